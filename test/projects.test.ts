import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { User } from '../src/domain/model.js';
import { ISO, PI_FIGURES, PROJECT_KEYS, UUID, activityOf, changeEvents, insertFile, isoPlus, withoutIds } from './helpers/projects.js';
import { type Client, type TestService, collectEvents, startTestService } from './helpers/service.js';

let svc: TestService;
let admin: { user: User; client: Client };
let poc: { user: User; client: Client };
let otherPoc: { user: User; client: Client };
let clientUser: { user: User; client: Client };

before(async () => {
  svc = await startTestService();
  [admin, poc, otherPoc, clientUser] = await Promise.all([svc.signIn('ADMIN'), svc.signIn('POC'), svc.signIn('POC'), svc.signIn('CLIENT')]);
});
after(() => svc.close());

const NOT_FOUND = { error: 'Project not found' };
/** The job's fields of a project that has none recorded (test/job.test.ts covers them). */
const NO_JOB = { reference: null, dueDate: null, deliveryAddress: null, overdue: false, items: [] };
/** No PI yet, nothing paid (interface.md, "The PI and payments"). */
const NO_PI = { pi: null, paid: 0, balance: null, proof: null, totals: null, invoice: null };
/** Neither rush nor held nor a reorder (interface.md, "Holds, rush, reorders"). */
const PLAIN = { rush: false, hold: null, repeatOf: null };
const FORBIDDEN = { error: 'Forbidden' };
const UNAUTHORIZED = { error: 'Unauthorized' };
const WAIT_FOR_APPROVAL = 'POCs can upload documents only after admin approves the project and verifies the PI';

describe('POST /api/projects', () => {
  test('401 without a session, and nothing is created', async () => {
    const res = await svc.anonymous.post('/api/projects', { name: 'Anonymous' });
    assert.equal(res.status, 401);
    assert.deepEqual(res.body, UNAUTHORIZED);
  });

  test('a POC creates a project they own: REQUESTED, PI PENDING, no approval; activity and notifications follow', async () => {
    let res!: Awaited<ReturnType<Client['post']>>;
    const events = await collectEvents(admin.client, 2, async () => {
      res = await poc.client.post('/api/projects', { name: '  Leaflets  ', description: ' A5, 1000 copies ' });
    });
    assert.equal(res.status, 201, res.text);
    const p = res.body;
    assert.deepEqual(Object.keys(p).sort(), PROJECT_KEYS);
    assert.match(p.id, UUID);
    assert.match(p.createdAt, ISO);
    assert.deepEqual(p, {
      id: p.id,
      name: 'Leaflets',
      description: 'A5, 1000 copies',
      pocId: poc.user.id,
      pocName: poc.user.name,
      customerId: null,
      customerName: null,
      status: 'REQUESTED',
      piStatus: 'PENDING',
      approval: null,
      ...NO_JOB,
      ...NO_PI,
      ...PLAIN,
      number: p.number,
      createdAt: p.createdAt,
      updatedAt: p.createdAt,
    });
    assert.deepEqual(withoutIds(events), changeEvents(p.id));

    const [entry, ...rest] = await activityOf(admin.client, p.id);
    assert.equal(rest.length, 0);
    assert.deepEqual(entry, {
      id: entry!.id,
      userId: poc.user.id,
      userName: poc.user.name,
      action: 'PROJECT_CREATED',
      entityType: 'project',
      entityId: p.id,
      details: { name: 'Leaflets', pocId: poc.user.id },
      createdAt: p.createdAt,
    });

    const got = await poc.client.get(`/api/projects/${p.id}`);
    assert.equal(got.status, 200);
    assert.equal(got.body.name, 'Leaflets');
    assert.equal(got.body.pocName, poc.user.name);
  });

  test('description is optional and null when absent or blank', async () => {
    const a = await poc.client.post('/api/projects', { name: 'No description' });
    assert.equal(a.status, 201);
    assert.equal(a.body.description, null);
    const b = await poc.client.post('/api/projects', { name: 'Blank description', description: '   ' });
    assert.equal(b.status, 201);
    assert.equal(b.body.description, null);
  });

  test("a POC's project is always their own, even when they name someone else", async () => {
    const res = await poc.client.post('/api/projects', { name: 'Not for you', pocId: otherPoc.user.id });
    assert.equal(res.status, 201);
    assert.equal(res.body.pocId, poc.user.id);
    // A CLIENT's order is their company's account manager's (test/floor-orders.test.ts): without a company, none.
    const byClient = await clientUser.client.post('/api/projects', { name: 'Client order', pocId: admin.user.id });
    assert.equal(byClient.status, 409);
  });

  test('an ADMIN may name any active user as POC; the project is then theirs', async () => {
    const res = await admin.client.post('/api/projects', { name: 'For the POC', pocId: poc.user.id });
    assert.equal(res.status, 201);
    assert.equal(res.body.pocId, poc.user.id);
    assert.equal(res.body.pocName, poc.user.name);
    const [entry] = await activityOf(admin.client, res.body.id);
    assert.equal(entry!.userId, admin.user.id);
    assert.equal(entry!.userName, admin.user.name);
    assert.deepEqual(entry!.details, { name: 'For the POC', pocId: poc.user.id });
    assert.equal((await poc.client.get(`/api/projects/${res.body.id}`)).status, 200);

    const forClient = await admin.client.post('/api/projects', { name: 'For a client', pocId: clientUser.user.id });
    assert.equal(forClient.status, 201);
    assert.equal(forClient.body.pocId, clientUser.user.id);

    const own = await admin.client.post('/api/projects', { name: 'Admin keeps it' });
    assert.equal(own.status, 201);
    assert.equal(own.body.pocId, admin.user.id);
  });

  test('400 when an ADMIN names an unknown or inactive user', async () => {
    const inactive = await svc.createUser({ role: 'POC', active: false });
    for (const pocId of ['no-such-user', inactive.user.id]) {
      const res = await admin.client.post('/api/projects', { name: 'Orphan', pocId });
      assert.equal(res.status, 400, pocId);
      assert.deepEqual(res.body, { error: 'Point of contact must be the id of an active user' });
    }
  });

  test('400 naming the field for a missing, empty or blank name', async () => {
    for (const body of [{}, { name: '' }, { name: '   ' }, { description: 'no name' }]) {
      const res = await poc.client.post('/api/projects', body);
      assert.equal(res.status, 400, JSON.stringify(body));
      assert.deepEqual(Object.keys(res.body), ['error']);
      assert.match(res.body.error, /^Name /, JSON.stringify(body));
    }
    const blank = await poc.client.post('/api/projects', { name: '   ' });
    assert.deepEqual(blank.body, { error: 'Name is required' });
  });

  test('400 naming a field the body may not carry, and nothing is created', async () => {
    const name = `Strict ${Date.now()}`;
    for (const [body, error] of [
      [{ name, status: 'APPROVED' }, 'Status is not a known field'],
      [{ name, approval: { status: 'APPROVED' } }, 'approval is not a known field'],
    ] as const) {
      const res = await poc.client.post('/api/projects', body);
      assert.equal(res.status, 400, JSON.stringify(body));
      assert.deepEqual(res.body, { error }, JSON.stringify(body));
    }
    const mine = await poc.client.get(`/api/projects?q=${encodeURIComponent(name)}`);
    assert.deepEqual(mine.body.items, []);
  });
});

describe('GET /api/projects', () => {
  test('401 without a session', async () => {
    const res = await svc.anonymous.get('/api/projects');
    assert.equal(res.status, 401);
    assert.deepEqual(res.body, UNAUTHORIZED);
  });

  test('newest first, with a status filter; a POC sees only their own projects', async () => {
    const owner = await svc.signIn('POC');
    const stranger = await svc.signIn('POC');
    const made = [];
    for (const status of ['REQUESTED', 'APPROVED', 'REQUESTED', 'PRINTING', 'APPROVED'] as const) {
      made.push(await svc.createProject(owner.user.id, { status }));
    }
    const theirs = await svc.createProject(stranger.user.id, { status: 'APPROVED' });
    const newestFirst = [...made].reverse().map((p) => p.id);

    const mine = await owner.client.get('/api/projects');
    assert.equal(mine.status, 200);
    assert.deepEqual(Object.keys(mine.body).sort(), ['items', 'nextCursor']);
    assert.deepEqual(mine.body.items.map((p: { id: string }) => p.id), newestFirst);
    assert.equal(mine.body.nextCursor, null);
    for (const item of mine.body.items) assert.deepEqual(Object.keys(item).sort(), PROJECT_KEYS);

    const approved = await owner.client.get('/api/projects?status=APPROVED');
    assert.deepEqual(approved.body.items.map((p: { id: string }) => p.id), [made[4]!.id, made[1]!.id]);

    // Naming another POC does not widen a POC's view.
    const peek = await owner.client.get(`/api/projects?pocId=${stranger.user.id}`);
    assert.equal(peek.status, 200);
    assert.deepEqual(peek.body, { items: [], nextCursor: null });

    const asAdmin = await admin.client.get(`/api/projects?pocId=${owner.user.id}`);
    assert.deepEqual(asAdmin.body.items.map((p: { id: string }) => p.id), newestFirst);
    const all = await admin.client.get('/api/projects?limit=200');
    const ids = all.body.items.map((p: { id: string }) => p.id);
    assert.ok(ids.includes(theirs.id) && newestFirst.every((id) => ids.includes(id)));
    const stamps = all.body.items.map((p: { createdAt: string }) => p.createdAt);
    assert.deepEqual(stamps, [...stamps].sort().reverse(), 'newest first');

    const adminApproved = await admin.client.get(`/api/projects?status=APPROVED&pocId=${stranger.user.id}`);
    assert.deepEqual(adminApproved.body.items.map((p: { id: string }) => p.id), [theirs.id]);
  });

  test('400 for an unknown status filter', async () => {
    const res = await admin.client.get('/api/projects?status=LOST');
    assert.equal(res.status, 400);
    assert.match(res.body.error, /status/);
  });

  test('q searches names case-insensitively, % and _ taken literally', async () => {
    const owner = await svc.signIn('POC');
    const names = ['Brochure 50% off', 'Brochure 500 off', 'Flyer_A4', 'FlyerBA4', 'annual REPORT', 'Report card'];
    const byName = new Map<string, string>();
    for (const name of names) byName.set(name, (await svc.createProject(owner.user.id, { name })).id);
    const search = async (q: string) => {
      const res = await owner.client.get(`/api/projects?q=${encodeURIComponent(q)}`);
      assert.equal(res.status, 200, res.text);
      return res.body.items.map((p: { name: string }) => p.name).sort();
    };
    assert.deepEqual(await search('report'), ['Report card', 'annual REPORT']);
    assert.deepEqual(await search('BROCHURE'), ['Brochure 50% off', 'Brochure 500 off']);
    assert.deepEqual(await search('50%'), ['Brochure 50% off']);
    assert.deepEqual(await search('%'), ['Brochure 50% off']);
    assert.deepEqual(await search('r_a'), ['Flyer_A4']);
    assert.deepEqual(await search('_'), ['Flyer_A4']);
    assert.deepEqual(await search('\\'), []);
    assert.deepEqual(await search('nothing like it'), []);
    // q combines with the other filters.
    const res = await admin.client.get(`/api/projects?q=flyer&pocId=${owner.user.id}`);
    assert.deepEqual(res.body.items.map((p: { id: string }) => p.id), [byName.get('FlyerBA4'), byName.get('Flyer_A4')]);
  });

  test('limit and cursor visit every project exactly once, newest first', async () => {
    const owner = await svc.signIn('POC');
    const made = [];
    // Straight inserts in a tight loop: several share a millisecond, so ties are ordered by id.
    for (let i = 0; i < 7; i++) made.push(await svc.createProject(owner.user.id, { name: `Page ${i}` }));
    const expected = [...made].reverse().map((p) => p.id);
    for (const limit of [1, 2, 3, 7, 8]) {
      const seen: string[] = [];
      let cursor: string | null = null;
      let pages = 0;
      do {
        const res: Awaited<ReturnType<Client['get']>> = await owner.client.get(`/api/projects?limit=${limit}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
        assert.equal(res.status, 200, res.text);
        assert.ok(res.body.items.length <= limit);
        // The names come with every page (a LEFT JOIN on users neither adds nor drops rows).
        for (const p of res.body.items) assert.equal(p.pocName, owner.user.name);
        seen.push(...res.body.items.map((p: { id: string }) => p.id));
        cursor = res.body.nextCursor;
        pages++;
        assert.ok(pages <= 10, 'paging ends');
      } while (cursor);
      assert.deepEqual(seen, expected, `limit ${limit}`);
      assert.equal(pages, Math.max(1, Math.ceil(7 / limit)), `limit ${limit}`);
    }
    // Paging keeps the filters.
    const first = await admin.client.get(`/api/projects?pocId=${owner.user.id}&limit=4`);
    const second = await admin.client.get(`/api/projects?pocId=${owner.user.id}&limit=4&cursor=${encodeURIComponent(first.body.nextCursor)}`);
    assert.deepEqual([...first.body.items, ...second.body.items].map((p: { id: string }) => p.id), expected);
    assert.equal(second.body.nextCursor, null);
  });

  test('400 for a bad cursor or a limit out of range', async () => {
    for (const cursor of ['nonsense', Buffer.from('not-a-date|x').toString('base64url'), Buffer.from('2030-01-01T00:00:00.000Z|a|b').toString('base64url')]) {
      const res = await admin.client.get(`/api/projects?cursor=${cursor}`);
      assert.equal(res.status, 400, cursor);
      assert.deepEqual(res.body, { error: 'Invalid cursor' });
    }
    for (const limit of ['201', '0', '-1', 'ten']) {
      const res = await admin.client.get(`/api/projects?limit=${limit}`);
      assert.equal(res.status, 400, limit);
      assert.match(res.body.error, /limit/);
    }
    assert.equal((await admin.client.get('/api/projects?limit=200')).status, 200);
  });
});

describe('GET /api/projects/:id', () => {
  test('the project with its files newest first, what the caller may do, and why uploads would be refused', async () => {
    const p = await svc.createProject(poc.user.id, { status: 'APPROVED', piStatus: 'VERIFIED' });
    const t0 = new Date().toISOString();
    const older = await insertFile(svc, p.id, 'PO', admin.user.id, t0);
    const newer = await insertFile(svc, p.id, 'PO', poc.user.id, isoPlus(t0, 5));
    const elsewhere = await svc.createProject(poc.user.id);
    await insertFile(svc, elsewhere.id, 'PO', admin.user.id, t0);

    const res = await poc.client.get(`/api/projects/${p.id}`);
    assert.equal(res.status, 200, res.text);
    const { files, payments, allowedActions, uploads, canEditDetails, canHold, canReorder, ...project } = res.body;
    assert.equal(canHold, true);
    assert.equal(canReorder, true);
    assert.deepEqual(payments, []);
    assert.equal(canEditDetails, true, 'an approved project is still the POC’s to edit until printing starts');
    assert.deepEqual(project, {
      id: p.id,
      name: p.name,
      description: null,
      pocId: poc.user.id,
      pocName: poc.user.name,
      customerId: null,
      customerName: null,
      status: 'APPROVED',
      piStatus: 'VERIFIED',
      // Inserted without a decider: no name either.
      approval: { status: 'APPROVED', note: null, decidedById: null, decidedByName: null, decidedAt: p.approval!.decidedAt },
      ...NO_JOB,
      ...NO_PI,
      ...PLAIN,
      number: p.number,
      createdAt: p.createdAt,
      updatedAt: p.updatedAt,
    });
    const asJson = (f: typeof older, uploadedByName: string) => ({
      id: f.id,
      projectId: f.projectId,
      type: f.type,
      url: f.url,
      filename: f.filename,
      size: f.size,
      contentType: f.contentType,
      uploadedById: f.uploadedById,
      uploadedByName,
      createdAt: f.createdAt,
      // inserted without bytes: no checksum, no detected type (issue 13's fields are in test/documents.test.ts)
      sha256: null,
      detectedContentType: null,
      contentTypeMismatch: false,
      duplicateOf: null,
      // standing, not withdrawn (test/void-documents.test.ts)
      voidedAt: null,
      voidedById: null,
      voidedByName: null,
      voidReason: null,
    });
    assert.deepEqual(files, [asJson(newer, poc.user.name), asJson(older, admin.user.name)]);
    assert.deepEqual(allowedActions, ['cancel']);
    assert.deepEqual(uploads, { PO: null, CHALLAN: 'Challan can only be uploaded after dispatch', INVOICE: 'Invoice can only be uploaded after dispatch' });

    const asAdmin = await admin.client.get(`/api/projects/${p.id}`);
    assert.deepEqual(asAdmin.body.allowedActions, ['start-printing', 'cancel']);
  });

  test('a fresh project: no files, the owner may submit the PI or cancel, uploads wait for approval', async () => {
    const p = await svc.createProject(poc.user.id);
    const res = await poc.client.get(`/api/projects/${p.id}`);
    assert.equal(res.status, 200);
    assert.deepEqual(res.body.files, []);
    assert.deepEqual(res.body.allowedActions, ['submit-pi', 'cancel']);
    assert.deepEqual(res.body.uploads, { PO: WAIT_FOR_APPROVAL, CHALLAN: WAIT_FOR_APPROVAL, INVOICE: WAIT_FOR_APPROVAL });
    const asAdmin = await admin.client.get(`/api/projects/${p.id}`);
    assert.deepEqual(asAdmin.body.allowedActions, ['approve', 'reject', 'submit-pi', 'cancel']);
    assert.deepEqual(asAdmin.body.uploads, {
      PO: 'PO can only be uploaded after project approval',
      CHALLAN: 'Challan can only be uploaded after dispatch',
      INVOICE: 'Invoice can only be uploaded after dispatch',
    });
  });

  test("404 for another's project, an unknown id, and 401 without a session", async () => {
    const p = await svc.createProject(otherPoc.user.id);
    for (const c of [poc.client, clientUser.client]) {
      const res = await c.get(`/api/projects/${p.id}`);
      assert.equal(res.status, 404);
      assert.deepEqual(res.body, NOT_FOUND);
    }
    const unknown = await admin.client.get('/api/projects/no-such-project');
    assert.equal(unknown.status, 404);
    assert.deepEqual(unknown.body, NOT_FOUND);
    const anon = await svc.anonymous.get(`/api/projects/${p.id}`);
    assert.equal(anon.status, 401);
    assert.deepEqual(anon.body, UNAUTHORIZED);
  });
});

describe('PATCH /api/projects/:id', () => {
  test('403 Forbidden for a POC, even on their own project, and nothing changes', async () => {
    const p = await svc.createProject(poc.user.id);
    const res = await poc.client.patch(`/api/projects/${p.id}`, { status: 'DELIVERED' });
    assert.equal(res.status, 403);
    assert.deepEqual(res.body, FORBIDDEN);
    const other = await clientUser.client.patch(`/api/projects/${p.id}`, { name: 'Mine now' });
    assert.equal(other.status, 403);
    assert.deepEqual(other.body, FORBIDDEN);
    assert.equal((await admin.client.get(`/api/projects/${p.id}`)).body.status, 'REQUESTED');
    assert.deepEqual(await activityOf(admin.client, p.id), []);
    const anon = await svc.anonymous.patch(`/api/projects/${p.id}`, { name: 'x' });
    assert.equal(anon.status, 401);
  });

  test('an ADMIN sets any valid value; PROJECT_UPDATED names the changed fields; notifications follow', async () => {
    const p = await svc.createProject(poc.user.id);
    let res!: Awaited<ReturnType<Client['patch']>>;
    const events = await collectEvents(admin.client, 2, async () => {
      res = await admin.client.patch(`/api/projects/${p.id}`, {
        name: ' Renamed ',
        description: 'Now with a description',
        pocId: otherPoc.user.id,
        status: 'DELIVERED',
        piStatus: 'REJECTED',
        approval: { status: 'PENDING', note: ' needs a look ' },
      });
    });
    assert.equal(res.status, 200, res.text);
    const body = res.body;
    assert.deepEqual(Object.keys(body).sort(), PROJECT_KEYS);
    assert.match(body.updatedAt, ISO);
    assert.match(body.approval.decidedAt, ISO);
    assert.deepEqual(body, {
      id: p.id,
      name: 'Renamed',
      description: 'Now with a description',
      pocId: otherPoc.user.id,
      pocName: otherPoc.user.name,
      customerId: null,
      customerName: null,
      status: 'DELIVERED',
      piStatus: 'REJECTED',
      approval: { status: 'PENDING', note: 'needs a look', decidedById: admin.user.id, decidedByName: admin.user.name, decidedAt: body.approval.decidedAt },
      ...NO_JOB,
      ...NO_PI,
      ...PLAIN,
      number: p.number,
      createdAt: p.createdAt,
      updatedAt: body.updatedAt,
    });
    assert.ok(body.updatedAt >= p.updatedAt);
    assert.deepEqual(withoutIds(events), changeEvents(p.id));

    const [entry] = await activityOf(admin.client, p.id);
    assert.equal(entry!.action, 'PROJECT_UPDATED');
    assert.equal(entry!.userId, admin.user.id);
    assert.deepEqual(entry!.details, { changed: ['name', 'description', 'pocId', 'status', 'piStatus', 'approval'] });

    // The new POC now sees it; the old one no longer does.
    assert.equal((await otherPoc.client.get(`/api/projects/${p.id}`)).status, 200);
    assert.equal((await poc.client.get(`/api/projects/${p.id}`)).status, 404);

    // Only what actually changed is named.
    const again = await admin.client.patch(`/api/projects/${p.id}`, { status: 'DELIVERED', piStatus: 'VERIFIED' });
    assert.equal(again.status, 200);
    assert.equal(again.body.piStatus, 'VERIFIED');
    const [second] = await activityOf(admin.client, p.id);
    assert.deepEqual(second!.details, { changed: ['piStatus'] });

    // Corrections may go anywhere, backwards too; description can be cleared.
    const back = await admin.client.patch(`/api/projects/${p.id}`, { status: 'REQUESTED', description: null });
    assert.equal(back.status, 200);
    assert.equal(back.body.status, 'REQUESTED');
    assert.equal(back.body.description, null);
    const fetched = await admin.client.get(`/api/projects/${p.id}`);
    assert.equal(fetched.body.status, 'REQUESTED');
    assert.equal(fetched.body.piStatus, 'VERIFIED');
    assert.equal(fetched.body.approval.status, 'PENDING');
  });

  test('400 naming the field for an unknown status, piStatus or approval.status, and nothing changes', async () => {
    const p = await svc.createProject(poc.user.id);
    const cases: [object, string][] = [
      [{ status: 'LOST' }, 'Status must be one of REQUESTED, APPROVED, PRINTING, DISPATCHED, DELIVERED, CANCELLED'],
      [{ piStatus: 'MAYBE' }, 'PI status must be one of PENDING, SUBMITTED, VERIFIED, REJECTED'],
      [{ approval: { status: 'SORT_OF' } }, 'Approval status must be one of PENDING, APPROVED, REJECTED'],
      [{ approval: { status: 'APPROVED', decidedById: 'someone' } }, 'approval.decidedById is not a known field'],
      [{ name: 'Fine', status: 'approved' }, 'Status must be one of REQUESTED, APPROVED, PRINTING, DISPATCHED, DELIVERED, CANCELLED'],
      [{ name: '   ' }, 'Name is required'],
      [{ name: 'x'.repeat(201) }, 'Name must be at most 200 characters'],
      [{ description: 'x'.repeat(5001) }, 'Description must be at most 5000 characters'],
      [{ pocId: 'no-such-user' }, 'Point of contact must be the id of an active user'],
    ];
    for (const [patch, error] of cases) {
      const res = await admin.client.patch(`/api/projects/${p.id}`, patch);
      assert.equal(res.status, 400, JSON.stringify(patch));
      assert.deepEqual(res.body, { error });
    }
    const unchanged = await admin.client.get(`/api/projects/${p.id}`);
    assert.equal(unchanged.body.name, p.name);
    assert.equal(unchanged.body.status, 'REQUESTED');
    assert.deepEqual(await activityOf(admin.client, p.id), []);
  });

  test('404 for an unknown project', async () => {
    const res = await admin.client.patch('/api/projects/no-such-project', { name: 'Ghost' });
    assert.equal(res.status, 404);
    assert.deepEqual(res.body, NOT_FOUND);
  });
});

describe('lifecycle actions over HTTP', () => {
  /** Takes an action, checks the two notifications, and returns the answer. */
  async function act(client: Client, projectId: string, action: string, body?: object) {
    let res!: Awaited<ReturnType<Client['post']>>;
    const events = await collectEvents(admin.client, 2, async () => {
      res = await client.post(`/api/projects/${projectId}/${action}`, body);
    });
    assert.equal(res.status, 200, `${action}: ${res.text}`);
    assert.deepEqual(Object.keys(res.body).sort(), PROJECT_KEYS);
    assert.deepEqual(withoutIds(events), changeEvents(projectId), action);
    return res.body;
  }

  async function lastEntry(projectId: string) {
    return (await activityOf(admin.client, projectId))[0]!;
  }

  test('the full path: approve, submit-pi, verify-pi, start-printing, dispatch, deliver', async () => {
    const created = await poc.client.post('/api/projects', { name: 'Annual report' });
    const id = created.body.id;

    const steps: { by: () => Client; action: string; body?: object; status: string; piStatus: string; activity: string; note?: string }[] = [
      { by: () => admin.client, action: 'approve', body: { note: '  go ahead ' }, status: 'APPROVED', piStatus: 'PENDING', activity: 'PROJECT_APPROVED', note: 'go ahead' },
      { by: () => poc.client, action: 'submit-pi', body: PI_FIGURES, status: 'APPROVED', piStatus: 'SUBMITTED', activity: 'PI_SUBMITTED' },
      { by: () => admin.client, action: 'verify-pi', status: 'APPROVED', piStatus: 'VERIFIED', activity: 'PI_VERIFIED' },
      { by: () => admin.client, action: 'start-printing', status: 'PRINTING', piStatus: 'VERIFIED', activity: 'PRINTING_STARTED' },
      { by: () => admin.client, action: 'dispatch', status: 'DISPATCHED', piStatus: 'VERIFIED', activity: 'PROJECT_DISPATCHED' },
      { by: () => poc.client, action: 'deliver', status: 'DELIVERED', piStatus: 'VERIFIED', activity: 'PROJECT_DELIVERED' },
    ];
    let before = { status: 'REQUESTED', piStatus: 'PENDING' };
    let approval: unknown = null;
    let pi: { amount: number } | null = null;
    for (const step of steps) {
      const client = step.by();
      const actorId = client === admin.client ? admin.user.id : poc.user.id;
      const actorName = client === admin.client ? admin.user.name : poc.user.name;
      const p = await act(client, id, step.action, step.body);
      if (step.action === 'approve') {
        assert.match(p.approval.decidedAt, ISO);
        approval = { status: 'APPROVED', note: 'go ahead', decidedById: admin.user.id, decidedByName: admin.user.name, decidedAt: p.approval.decidedAt };
      }
      if (step.action === 'submit-pi') {
        assert.match(p.pi.submittedAt, ISO);
        pi = { ...PI_FIGURES, currency: 'INR', validUntil: null, submittedAt: p.pi.submittedAt, submittedById: poc.user.id, submittedByName: poc.user.name } as { amount: number };
      }
      assert.deepEqual(p, {
        ...created.body,
        status: step.status,
        piStatus: step.piStatus,
        approval,
        // The PI's figures from submit-pi on, kept by every later step.
        pi,
        balance: pi ? pi.amount : null,
        updatedAt: p.updatedAt,
      });
      const entry = await lastEntry(id);
      const after = { status: step.status, piStatus: step.piStatus };
      assert.deepEqual(entry, {
        id: entry.id,
        userId: actorId,
        userName: actorName,
        action: step.activity,
        entityType: 'project',
        entityId: id,
        details: {
          from: before,
          to: after,
          ...(step.action === 'submit-pi' ? { ...PI_FIGURES, currency: 'INR', validUntil: null } : {}),
          ...(step.note ? { note: step.note } : {}),
        },
        createdAt: p.updatedAt,
      });
      before = after;
    }
    const log = await activityOf(admin.client, id);
    assert.deepEqual(
      log.map((e) => e.action),
      ['PROJECT_DELIVERED', 'PROJECT_DISPATCHED', 'PRINTING_STARTED', 'PI_VERIFIED', 'PI_SUBMITTED', 'PROJECT_APPROVED', 'PROJECT_CREATED'],
    );
    const final = await poc.client.get(`/api/projects/${id}`);
    assert.deepEqual(final.body.allowedActions, []);
    assert.deepEqual(final.body.uploads, { PO: null, CHALLAN: null, INVOICE: null });
  });

  test('reject keeps the project REQUESTED with a rejected approval; it may still be approved later', async () => {
    const p = await svc.createProject(poc.user.id);
    const rejected = await act(admin.client, p.id, 'reject', { note: 'too expensive' });
    assert.equal(rejected.status, 'REQUESTED');
    assert.deepEqual(rejected.approval, {
      status: 'REJECTED',
      note: 'too expensive',
      decidedById: admin.user.id,
      decidedByName: admin.user.name,
      decidedAt: rejected.approval.decidedAt,
    });
    const entry = await lastEntry(p.id);
    assert.equal(entry.action, 'PROJECT_REJECTED');
    assert.deepEqual(entry.details, { from: { status: 'REQUESTED', piStatus: 'PENDING' }, to: { status: 'REQUESTED', piStatus: 'PENDING' }, note: 'too expensive' });

    const twice = await admin.client.post(`/api/projects/${p.id}/reject`);
    assert.equal(twice.status, 409);
    assert.deepEqual(twice.body, { error: 'Cannot reject a project that is already rejected' });

    const approved = await act(admin.client, p.id, 'approve');
    assert.equal(approved.status, 'APPROVED');
    assert.equal(approved.approval.status, 'APPROVED');
    assert.equal(approved.approval.note, null);
  });

  test('a rejected request is corrected and resubmitted by its POC: the approval is pending again, an admin then decides', async () => {
    const p = await svc.createProject(poc.user.id, { name: 'Brochure, wrong size' });
    await act(admin.client, p.id, 'reject', { note: 'A4, not A5' });
    const seen = await poc.client.get(`/api/projects/${p.id}`);
    assert.deepEqual(seen.body.allowedActions, ['resubmit', 'submit-pi', 'cancel']);
    assert.equal(seen.body.canEditDetails, true);

    // The POC corrects the name and description: PROJECT_UPDATED, and the two notifications.
    let edited!: Awaited<ReturnType<Client['post']>>;
    const events = await collectEvents(admin.client, 2, async () => {
      edited = await poc.client.request('PATCH', `/api/projects/${p.id}/details`, { json: { name: ' Brochure A4 ', description: 'A4, 16 pages' } });
    });
    assert.equal(edited.status, 200, edited.text);
    assert.deepEqual(withoutIds(events), changeEvents(p.id));
    assert.equal(edited.body.name, 'Brochure A4');
    assert.equal(edited.body.description, 'A4, 16 pages');
    assert.equal(edited.body.approval.status, 'REJECTED', 'editing alone does not resubmit');
    const editEntry = await lastEntry(p.id);
    assert.deepEqual([editEntry.action, editEntry.userId, editEntry.details], ['PROJECT_UPDATED', poc.user.id, { changed: ['name', 'description'] }]);

    // Asking again: the approval returns to pending, the decision cleared; the POC's note is in the activity.
    const again = await act(poc.client, p.id, 'resubmit', { note: 'now A4' });
    assert.equal(again.status, 'REQUESTED');
    assert.deepEqual(again.approval, { status: 'PENDING', note: null, decidedById: null, decidedByName: null, decidedAt: null });
    const entry = await lastEntry(p.id);
    assert.deepEqual([entry.action, entry.userId, entry.details.note], ['APPROVAL_REQUESTED', poc.user.id, 'now A4']);

    // It is in the admins' queue of requests awaiting a decision, no longer among the rejected ones.
    const queue = await admin.client.get('/api/projects?status=REQUESTED&approval=PENDING&limit=200');
    assert.ok(queue.body.items.some((i: { id: string }) => i.id === p.id));
    const rejectedList = await admin.client.get('/api/projects?status=REQUESTED&approval=REJECTED&limit=200');
    assert.ok(!rejectedList.body.items.some((i: { id: string }) => i.id === p.id));

    const twice = await poc.client.post(`/api/projects/${p.id}/resubmit`);
    assert.deepEqual([twice.status, twice.body], [409, { error: 'Cannot resubmit a project that is awaiting a decision' }]);
    const byAdmin = await admin.client.post(`/api/projects/${p.id}/resubmit`);
    assert.deepEqual([byAdmin.status, byAdmin.body], [403, FORBIDDEN], 'an admin decides; only the owner asks');

    const approved = await act(admin.client, p.id, 'approve');
    assert.equal(approved.approval.status, 'APPROVED');
    // Approved: the POC may still edit it until printing starts; then only an admin may.
    const approvedEdit = await poc.client.request('PATCH', `/api/projects/${p.id}/details`, { json: { name: 'Brochure A4, approved' } });
    assert.equal(approvedEdit.status, 200, approvedEdit.text);
    await act(poc.client, p.id, 'submit-pi', PI_FIGURES);
    await act(admin.client, p.id, 'verify-pi');
    await act(admin.client, p.id, 'start-printing');
    const late = await poc.client.request('PATCH', `/api/projects/${p.id}/details`, { json: { name: 'Too late' } });
    assert.deepEqual([late.status, late.body], [409, { error: 'Cannot edit a project that is PRINTING' }]);
    const byAdminEdit = await admin.client.request('PATCH', `/api/projects/${p.id}/details`, { json: { name: 'Brochure A4, final' } });
    assert.equal(byAdminEdit.status, 200);
    assert.equal((await svc.deps.store.projects.findById(p.id))?.name, 'Brochure A4, final');
  });

  test('editing details: 404 for another POC, 400 for an empty name, and nothing changes', async () => {
    const p = await svc.createProject(poc.user.id, { name: 'Posters' });
    const other = await otherPoc.client.request('PATCH', `/api/projects/${p.id}/details`, { json: { name: 'Mine now' } });
    assert.deepEqual([other.status, other.body], [404, NOT_FOUND]);
    const empty = await poc.client.request('PATCH', `/api/projects/${p.id}/details`, { json: { name: '  ' } });
    assert.deepEqual([empty.status, empty.body], [400, { error: 'Name is required' }]);
    const extra = await poc.client.request('PATCH', `/api/projects/${p.id}/details`, { json: { status: 'APPROVED' } });
    assert.equal(extra.status, 400, 'only the name and description');
    assert.equal((await svc.deps.store.projects.findById(p.id))?.name, 'Posters');
    assert.equal((await svc.deps.store.projects.findById(p.id))?.status, 'REQUESTED');
  });

  test('the dashboard counts rejected requests apart, for the admins and for the owner', async () => {
    const before = (await poc.client.get('/api/dashboard/stats')).body.projects.rejected;
    const p = await svc.createProject(poc.user.id);
    await act(admin.client, p.id, 'reject');
    assert.equal((await poc.client.get('/api/dashboard/stats')).body.projects.rejected, before + 1);
    assert.equal((await otherPoc.client.get('/api/dashboard/stats')).body.projects.rejected, 0);
    assert.ok((await admin.client.get('/api/dashboard/stats')).body.projects.rejected >= before + 1);
  });

  test('reject-pi sends the PI back; the owner may submit it again', async () => {
    const p = await svc.createProject(poc.user.id, { status: 'APPROVED', piStatus: 'SUBMITTED' });
    const back = await act(admin.client, p.id, 'reject-pi', { note: 'wrong GST number' });
    assert.equal(back.piStatus, 'REJECTED');
    assert.equal(back.status, 'APPROVED');
    const entry = await lastEntry(p.id);
    assert.equal(entry.action, 'PI_REJECTED');
    assert.equal(entry.userId, admin.user.id);
    assert.deepEqual(entry.details, { from: { status: 'APPROVED', piStatus: 'SUBMITTED' }, to: { status: 'APPROVED', piStatus: 'REJECTED' }, note: 'wrong GST number' });
    const resubmitted = await act(poc.client, p.id, 'submit-pi', PI_FIGURES);
    assert.equal(resubmitted.piStatus, 'SUBMITTED');
  });

  test('cancel: the owner before printing, an ADMIN during printing too', async () => {
    const early = await svc.createProject(clientUser.user.id);
    const cancelled = await act(clientUser.client, early.id, 'cancel');
    assert.equal(cancelled.status, 'CANCELLED');
    const entry = await lastEntry(early.id);
    assert.equal(entry.action, 'PROJECT_CANCELLED');
    assert.equal(entry.userId, clientUser.user.id);
    assert.deepEqual(entry.details, { from: { status: 'REQUESTED', piStatus: 'PENDING' }, to: { status: 'CANCELLED', piStatus: 'PENDING' } });

    const printing = await svc.createProject(poc.user.id, { status: 'PRINTING', piStatus: 'VERIFIED' });
    const refused = await poc.client.post(`/api/projects/${printing.id}/cancel`);
    assert.equal(refused.status, 409);
    assert.deepEqual(refused.body, { error: 'Cannot cancel a project that is PRINTING' });
    const byAdmin = await act(admin.client, printing.id, 'cancel');
    assert.equal(byAdmin.status, 'CANCELLED');
    assert.equal((await lastEntry(printing.id)).userId, admin.user.id);
  });

  test('409 from a wrong state, and nothing is written', async () => {
    const cases: [Parameters<TestService['createProject']>[1], string, string][] = [
      [{ status: 'APPROVED' }, 'approve', 'Cannot approve a project that is APPROVED'],
      [{ status: 'CANCELLED' }, 'reject', 'Cannot reject a project that is CANCELLED'],
      [{ status: 'APPROVED', piStatus: 'VERIFIED' }, 'submit-pi', 'Cannot submit pi a project that is PI VERIFIED'],
      [{ status: 'CANCELLED', piStatus: 'PENDING' }, 'submit-pi', 'Cannot submit pi a project that is CANCELLED'],
      [{ status: 'APPROVED', piStatus: 'PENDING' }, 'verify-pi', 'Cannot verify pi a project that is PI PENDING'],
      [{ status: 'CANCELLED', piStatus: 'SUBMITTED' }, 'verify-pi', 'Cannot verify pi a project that is CANCELLED'],
      [{ status: 'APPROVED', piStatus: 'VERIFIED' }, 'reject-pi', 'Cannot reject pi a project that is PI VERIFIED'],
      [{ status: 'APPROVED', piStatus: 'SUBMITTED' }, 'start-printing', 'Cannot start printing a project that is APPROVED with PI SUBMITTED'],
      [{ status: 'REQUESTED', piStatus: 'VERIFIED' }, 'start-printing', 'Cannot start printing a project that is REQUESTED'],
      [{ status: 'APPROVED', piStatus: 'VERIFIED' }, 'dispatch', 'Cannot dispatch a project that is APPROVED'],
      [{ status: 'PRINTING', piStatus: 'VERIFIED' }, 'deliver', 'Cannot deliver a project that is PRINTING'],
      [{ status: 'DELIVERED', piStatus: 'VERIFIED' }, 'cancel', 'Cannot cancel a project that is DELIVERED'],
    ];
    for (const [state, action, error] of cases) {
      const p = await svc.createProject(poc.user.id, state);
      const res = await admin.client.post(`/api/projects/${p.id}/${action}`);
      assert.equal(res.status, 409, `${action} on ${JSON.stringify(state)}`);
      assert.deepEqual(res.body, { error });
      const now = await admin.client.get(`/api/projects/${p.id}`);
      assert.equal(now.body.status, p.status);
      assert.equal(now.body.piStatus, p.piStatus);
      assert.equal(now.body.updatedAt, p.updatedAt);
      assert.deepEqual(await activityOf(admin.client, p.id), []);
    }
  });

  test('403 for an owner taking an admin-only action; 404 for anyone else who is not an admin', async () => {
    const p = await svc.createProject(poc.user.id, { status: 'APPROVED', piStatus: 'SUBMITTED' });
    for (const action of ['approve', 'reject', 'verify-pi', 'reject-pi', 'start-printing', 'dispatch']) {
      const res = await poc.client.post(`/api/projects/${p.id}/${action}`);
      assert.equal(res.status, 403, action);
      assert.deepEqual(res.body, FORBIDDEN);
    }
    for (const action of ['approve', 'submit-pi', 'deliver', 'cancel']) {
      for (const c of [otherPoc.client, clientUser.client]) {
        const res = await c.post(`/api/projects/${p.id}/${action}`);
        assert.equal(res.status, 404, action);
        assert.deepEqual(res.body, NOT_FOUND);
      }
    }
    const unknown = await admin.client.post('/api/projects/no-such-project/approve');
    assert.equal(unknown.status, 404);
    assert.deepEqual(unknown.body, NOT_FOUND);
    const anon = await svc.anonymous.post(`/api/projects/${p.id}/approve`);
    assert.equal(anon.status, 401);
    assert.deepEqual(anon.body, UNAUTHORIZED);
    assert.deepEqual(await activityOf(admin.client, p.id), []);
  });

  test('400 for an unknown action', async () => {
    const p = await svc.createProject(poc.user.id);
    for (const action of ['publish', 'APPROVE', 'submit_pi']) {
      const res = await admin.client.post(`/api/projects/${p.id}/${action}`);
      assert.equal(res.status, 400, action);
      assert.deepEqual(Object.keys(res.body), ['error']);
      assert.match(res.body.error, /action/);
    }
  });
});

describe('names of the people a project refers to', () => {
  test('a POC sees the names, never the emails, of who created, approved, uploaded to and acted on their project', async () => {
    const owner = await svc.signIn('POC', { name: 'Olga Owner' });
    const approver = await svc.signIn('ADMIN', { name: 'Anil Approver' });
    const created = await owner.client.post('/api/projects', { name: 'Named people' });
    assert.equal(created.status, 201, created.text);
    const id = created.body.id;
    assert.equal(created.body.pocName, 'Olga Owner');
    const approved = await approver.client.post(`/api/projects/${id}/approve`, { note: 'fine' });
    assert.equal(approved.status, 200, approved.text);
    assert.equal(approved.body.approval.decidedByName, 'Anil Approver');
    await insertFile(svc, id, 'PO', approver.user.id);

    const list = await owner.client.get('/api/projects');
    const detail = await owner.client.get(`/api/projects/${id}`);
    const activity = await owner.client.get(`/api/activity?entityType=project&entityId=${id}`);
    for (const res of [list, detail, activity]) assert.equal(res.status, 200, res.text);

    const [item] = list.body.items;
    assert.equal(item.id, id);
    assert.equal(item.pocName, 'Olga Owner');
    assert.deepEqual(item.approval, { status: 'APPROVED', note: 'fine', decidedById: approver.user.id, decidedByName: 'Anil Approver', decidedAt: item.approval.decidedAt });
    assert.equal(detail.body.pocName, 'Olga Owner');
    assert.equal(detail.body.approval.decidedByName, 'Anil Approver');
    assert.deepEqual(
      detail.body.files.map((f: { uploadedById: string; uploadedByName: string }) => [f.uploadedById, f.uploadedByName]),
      [[approver.user.id, 'Anil Approver']],
    );
    assert.deepEqual(
      activity.body.items.map((e: { action: string; userId: string; userName: string }) => [e.action, e.userId, e.userName]),
      [
        ['PROJECT_APPROVED', approver.user.id, 'Anil Approver'],
        ['PROJECT_CREATED', owner.user.id, 'Olga Owner'],
      ],
    );

    // Names only: no email, of the admin or of anyone.
    for (const res of [list, detail, activity]) {
      assert.doesNotMatch(res.text, /"email"/, res.text);
      for (const email of [approver.user.email, admin.user.email, owner.user.email]) assert.ok(!res.text.includes(email), `${email} in ${res.text}`);
    }

    // Names are read with the records, so a renamed user shows under the new name.
    const renamed = await approver.client.patch(`/api/team/${approver.user.id}`, { name: 'Anil A. Approver' });
    assert.equal(renamed.status, 200, renamed.text);
    const again = await owner.client.get(`/api/projects/${id}`);
    assert.equal(again.body.approval.decidedByName, 'Anil A. Approver');
    assert.equal(again.body.files[0].uploadedByName, 'Anil A. Approver');
    assert.equal((await activityOf(owner.client, id))[0]!.userName, 'Anil A. Approver');
  });
});
