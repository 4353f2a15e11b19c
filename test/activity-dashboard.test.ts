import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { sql } from 'kysely';
import type { User } from '../src/domain/model.js';
import { newId } from '../src/ids.js';
import { ISO, PI_FIGURES, UUID, insertFile } from './helpers/projects.js';
import { type Client, type TestService, startTestService } from './helpers/service.js';

/*
 * One service whose whole history is known: every activity entry and every figure below is
 * written out in full. The tests only read; before() makes all the changes.
 */

let svc: TestService;
let admin: { user: User; client: Client };
let pocA: { user: User; client: Client };
let pocB: { user: User; client: Client };
let client: { user: User; client: Client };

/** The projects, by name. */
const P: Record<string, string> = {};
/** The activity entries, newest first, as [action, userId, entityType, entityId]. */
let log: [string, string, string, string][];

before(async () => {
  svc = await startTestService();
  [admin, pocA, pocB, client] = await Promise.all([svc.signIn('ADMIN'), svc.signIn('POC'), svc.signIn('POC'), svc.signIn('CLIENT')]);
  await svc.createUser({ role: 'POC', active: false });
  await svc.createUser({ role: 'ADMIN', active: false });

  const ok = (res: { status: number; text: string }, status = 200) => assert.equal(res.status, status, res.text);
  const p1 = await pocA.client.post('/api/projects', { name: 'P1' });
  ok(p1, 201);
  const p2 = await admin.client.post('/api/projects', { name: 'P2', pocId: pocB.user.id });
  ok(p2, 201);
  ok(await admin.client.post(`/api/projects/${p1.body.id}/approve`));
  ok(await pocA.client.post(`/api/projects/${p1.body.id}/submit-pi`, PI_FIGURES));
  const p3 = await admin.client.post('/api/projects', { name: 'P3' });
  ok(p3, 201);
  ok(await admin.client.patch(`/api/projects/${p2.body.id}`, { name: 'P2 renamed' }));
  Object.assign(P, { P1: p1.body.id, P2: p2.body.id, P3: p3.body.id });
  // An entry about something other than a project, with an action the service does not write
  // (ACTIVITY_ACTIONS): straight into the table, as an older version may have left one.
  await svc.deps.database.db
    .insertInto('activity_log')
    .values({
      id: newId(),
      seq: sql<number>`(select coalesce(max(seq), 0) + 1 from activity_log)`,
      user_id: admin.user.id,
      action: 'USER_NOTED',
      entity_type: 'user',
      entity_id: pocB.user.id,
      details: JSON.stringify({ reason: 'test' }),
      created_at: new Date(Date.now() + 1000).toISOString(),
    })
    .execute();
  log = [
    ['USER_NOTED', admin.user.id, 'user', pocB.user.id],
    ['PROJECT_UPDATED', admin.user.id, 'project', P.P2!],
    ['PROJECT_CREATED', admin.user.id, 'project', P.P3!],
    ['PI_SUBMITTED', pocA.user.id, 'project', P.P1!],
    ['PROJECT_APPROVED', admin.user.id, 'project', P.P1!],
    ['PROJECT_CREATED', admin.user.id, 'project', P.P2!],
    ['PROJECT_CREATED', pocA.user.id, 'project', P.P1!],
  ];

  // Projects straight in the database (no activity), and documents against them.
  const aDispatched = await svc.createProject(pocA.user.id, { status: 'DISPATCHED', piStatus: 'VERIFIED' });
  const aDelivered = await svc.createProject(pocA.user.id, { status: 'DELIVERED', piStatus: 'VERIFIED' });
  await svc.createProject(pocA.user.id, { status: 'CANCELLED' });
  const bPrinting = await svc.createProject(pocB.user.id, { status: 'PRINTING', piStatus: 'VERIFIED' });
  await insertFile(svc, P.P1!, 'PO', admin.user.id);
  await insertFile(svc, P.P1!, 'PO', pocA.user.id);
  await insertFile(svc, aDispatched.id, 'CHALLAN', admin.user.id);
  await insertFile(svc, aDispatched.id, 'INVOICE', admin.user.id);
  await insertFile(svc, aDelivered.id, 'INVOICE', pocA.user.id);
  await insertFile(svc, bPrinting.id, 'PO', admin.user.id);
});
after(() => svc.close());

type Entry = { id: string; userId: string; userName: string | null; action: string; entityType: string; entityId: string; details: Record<string, unknown>; createdAt: string };

async function list(c: Client, query = ''): Promise<Entry[]> {
  const res = await c.get(`/api/activity${query}`);
  assert.equal(res.status, 200, res.text);
  assert.deepEqual(Object.keys(res.body).sort(), ['items', 'nextCursor']);
  assert.equal(res.body.nextCursor, null);
  return res.body.items;
}

const summary = (items: Entry[]) => items.map((e) => [e.action, e.userId, e.entityType, e.entityId]);
/** Each entry's acting user's name, as the users were created. */
const nameOf = (userId: string) => [admin, pocA, pocB, client].find((u) => u.user.id === userId)?.user.name;
const assertNames = (items: Entry[]) => {
  for (const e of items) assert.equal(e.userName, nameOf(e.userId), `${e.action} by ${e.userId}`);
};
const where = (keep: (e: [string, string, string, string]) => boolean) => log.filter(keep);

describe('GET /api/activity', () => {
  test('401 without a session', async () => {
    const res = await svc.anonymous.get('/api/activity');
    assert.equal(res.status, 401);
    assert.deepEqual(res.body, { error: 'Unauthorized' });
  });

  test('an ADMIN sees every entry, newest first, each with its fields', async () => {
    const items = await list(admin.client);
    assert.deepEqual(summary(items), log);
    for (const e of items) {
      assert.deepEqual(Object.keys(e).sort(), ['action', 'createdAt', 'details', 'entityId', 'entityType', 'id', 'userId', 'userName']);
      assert.match(e.id, UUID);
      assert.match(e.createdAt, ISO);
    }
    assertNames(items);
    assert.equal(items[0]!.userName, admin.user.name);
    const stamps = items.map((e) => e.createdAt);
    assert.deepEqual(stamps, [...stamps].sort().reverse());
    assert.deepEqual(items[0]!.details, { reason: 'test' });
    assert.deepEqual(items[1]!.details, { changed: ['name'] });
    assert.deepEqual(items[3]!.details, {
      from: { status: 'APPROVED', piStatus: 'PENDING' },
      to: { status: 'APPROVED', piStatus: 'SUBMITTED' },
      ...PI_FIGURES,
      currency: 'INR',
      validUntil: null,
    });
    assert.deepEqual(items[6]!.details, { name: 'P1', pocId: pocA.user.id });
  });

  test('filters by entityType, entityId, action and userId, alone or together', async () => {
    assert.deepEqual(summary(await list(admin.client, '?entityType=project')), where((e) => e[2] === 'project'));
    assert.deepEqual(summary(await list(admin.client, '?entityType=user')), where((e) => e[2] === 'user'));
    assert.deepEqual(summary(await list(admin.client, `?entityId=${P.P1}`)), where((e) => e[3] === P.P1));
    assert.deepEqual(summary(await list(admin.client, '?action=PROJECT_CREATED')), where((e) => e[0] === 'PROJECT_CREATED'));
    assert.deepEqual(summary(await list(admin.client, `?userId=${pocA.user.id}`)), where((e) => e[1] === pocA.user.id));
    assert.deepEqual(
      summary(await list(admin.client, `?action=PROJECT_CREATED&userId=${admin.user.id}`)),
      where((e) => e[0] === 'PROJECT_CREATED' && e[1] === admin.user.id),
    );
    assert.deepEqual(
      summary(await list(admin.client, `?entityType=project&entityId=${P.P2}&action=PROJECT_UPDATED`)),
      [['PROJECT_UPDATED', admin.user.id, 'project', P.P2]],
    );
    assert.deepEqual(await list(admin.client, '?action=NOTHING_LIKE_IT'), []);
    assert.deepEqual(await list(admin.client, `?entityType=user&entityId=${P.P1}`), []);
    assert.deepEqual(await list(admin.client, '?action=project_created'), [], 'action is matched exactly');
  });

  test('limit and cursor visit every entry exactly once, newest first; filters hold across pages', async () => {
    for (const limit of [1, 2, 3, 7]) {
      const seen: Entry[] = [];
      let cursor: string | null = null;
      let pages = 0;
      do {
        const res: Awaited<ReturnType<Client['get']>> = await admin.client.get(`/api/activity?limit=${limit}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
        assert.equal(res.status, 200, res.text);
        assert.ok(res.body.items.length <= limit);
        seen.push(...res.body.items);
        cursor = res.body.nextCursor;
        assert.ok(++pages <= 10);
      } while (cursor);
      assert.deepEqual(summary(seen), log, `limit ${limit}`);
      assertNames(seen);
      assert.equal(new Set(seen.map((e) => e.id)).size, log.length);
      assert.equal(pages, Math.ceil(log.length / limit));
    }
    const first = await admin.client.get(`/api/activity?userId=${admin.user.id}&limit=3`);
    const rest = await admin.client.get(`/api/activity?userId=${admin.user.id}&limit=3&cursor=${encodeURIComponent(first.body.nextCursor)}`);
    assert.deepEqual(summary([...first.body.items, ...rest.body.items]), where((e) => e[1] === admin.user.id));
    assert.equal(rest.body.nextCursor, null);
  });

  test('400 for a bad cursor or a limit out of range', async () => {
    const bad = await admin.client.get('/api/activity?cursor=garbage');
    assert.equal(bad.status, 400);
    assert.deepEqual(bad.body, { error: 'Invalid cursor' });
    for (const limit of ['201', '0']) {
      const res = await admin.client.get(`/api/activity?limit=${limit}`);
      assert.equal(res.status, 400, limit);
      assert.match(res.body.error, /limit/);
    }
  });

  test('a POC sees only entries about the projects they own, whoever wrote them', async () => {
    assert.deepEqual(summary(await list(pocA.client)), where((e) => e[2] === 'project' && e[3] === P.P1));
    assert.deepEqual(summary(await list(pocB.client)), where((e) => e[2] === 'project' && e[3] === P.P2));
    assert.deepEqual(summary(await list(pocA.client, `?userId=${admin.user.id}`)), [['PROJECT_APPROVED', admin.user.id, 'project', P.P1]]);
    // Filters never widen the view.
    assert.deepEqual(await list(pocA.client, `?entityId=${P.P2}`), []);
    assert.deepEqual(await list(pocB.client, '?entityType=user'), []);
    assert.deepEqual(await list(pocB.client, `?userId=${pocA.user.id}`), []);
    assert.deepEqual(await list(client.client), []);
  });

  test("a POC sees the names of who acted on their projects, the admin's included, and no one's email", async () => {
    const res = await pocA.client.get('/api/activity');
    assert.equal(res.status, 200, res.text);
    assert.deepEqual(
      res.body.items.map((e: Entry) => [e.action, e.userName]),
      [
        ['PI_SUBMITTED', pocA.user.name],
        ['PROJECT_APPROVED', admin.user.name],
        ['PROJECT_CREATED', pocA.user.name],
      ],
    );
    assertNames(res.body.items);
    assert.doesNotMatch(res.text, /"email"/);
    for (const u of [admin, pocB, client, pocA]) assert.ok(!res.text.includes(u.user.email), `${u.user.email} in ${res.text}`);
    const b = await pocB.client.get('/api/activity');
    assert.deepEqual(
      b.body.items.map((e: Entry) => [e.action, e.userName]),
      [
        ['PROJECT_UPDATED', admin.user.name],
        ['PROJECT_CREATED', admin.user.name],
      ],
    );
    assert.ok(!b.text.includes(admin.user.email));
  });
});

describe('GET /api/dashboard/stats', () => {
  const zeroStatuses = { REQUESTED: 0, APPROVED: 0, PRINTING: 0, DISPATCHED: 0, DELIVERED: 0, CANCELLED: 0 };
  // These projects have no due dates (test/job.test.ts counts what is due).
  const NOTHING_DUE = { overdue: 0, today: 0, week: 0 };

  test('401 without a session', async () => {
    const res = await svc.anonymous.get('/api/dashboard/stats');
    assert.equal(res.status, 401);
    assert.deepEqual(res.body, { error: 'Unauthorized' });
  });

  test("an ADMIN's figures cover every project, document and team member", async () => {
    const res = await admin.client.get('/api/dashboard/stats');
    assert.equal(res.status, 200, res.text);
    assert.deepEqual(res.body, {
      projects: { total: 7, byStatus: { REQUESTED: 2, APPROVED: 1, PRINTING: 1, DISPATCHED: 1, DELIVERED: 1, CANCELLED: 1 }, rejected: 0 },
      documents: { total: 6, byType: { PO: 3, CHALLAN: 1, INVOICE: 2 } },
      due: NOTHING_DUE,
      // P1's PI, submitted (and not yet verified) for INR 125000.00.
      pi: { awaitingVerification: 1, outstanding: { INR: { amount: PI_FIGURES.amount, projects: 1 } } },
      proofs: { awaitingCustomer: 0, changesRequested: 0 },
      held: 0,
      rush: 0,
      team: { total: 6, active: 4, byRole: { ADMIN: 2, POC: 3, CLIENT: 1 } },
    });
  });

  test("a POC's figures cover their own projects only, without team figures", async () => {
    const a = await pocA.client.get('/api/dashboard/stats');
    assert.equal(a.status, 200, a.text);
    assert.deepEqual(a.body, {
      projects: { total: 4, byStatus: { ...zeroStatuses, APPROVED: 1, DISPATCHED: 1, DELIVERED: 1, CANCELLED: 1 }, rejected: 0 },
      documents: { total: 5, byType: { PO: 2, CHALLAN: 1, INVOICE: 2 } },
      due: NOTHING_DUE,
      pi: { awaitingVerification: 1 },
      proofs: { awaitingCustomer: 0, changesRequested: 0 },
      held: 0,
      rush: 0,
    });
    const b = await pocB.client.get('/api/dashboard/stats');
    assert.deepEqual(b.body, {
      projects: { total: 2, byStatus: { ...zeroStatuses, REQUESTED: 1, PRINTING: 1 }, rejected: 0 },
      documents: { total: 1, byType: { PO: 1, CHALLAN: 0, INVOICE: 0 } },
      due: NOTHING_DUE,
      pi: { awaitingVerification: 0 },
      proofs: { awaitingCustomer: 0, changesRequested: 0 },
      held: 0,
      rush: 0,
    });
    const c = await client.client.get('/api/dashboard/stats');
    assert.deepEqual(c.body, {
      projects: { total: 0, byStatus: zeroStatuses, rejected: 0 },
      documents: { total: 0, byType: { PO: 0, CHALLAN: 0, INVOICE: 0 } },
      due: NOTHING_DUE,
      pi: { awaitingVerification: 0 },
      proofs: { awaitingCustomer: 0, changesRequested: 0 },
      held: 0,
      rush: 0,
    });
  });
});
