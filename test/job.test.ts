/**
 * The job itself (interface.md, "The job itself"), over real HTTP: the reference, due date,
 * delivery address and lines on POST /api/projects, PATCH /api/projects/:id/details and an
 * admin's PATCH; who may edit them in which state; what the activity says; overdue, the due
 * filters and sort=due around midnight in a time zone that is not UTC (the service's clock is set
 * by the test); search over the reference and the POC's name; the dashboard's due counts.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { ConfigError, loadConfig } from '../src/config.js';
import { PROJECT_KEYS, type Someone, UUID, activityOf, changeEvents, startJobService, withoutIds } from './helpers/projects.js';
import { type Client, type Response, type TestService, collectEvents, startTestService } from './helpers/service.js';

let svc: TestService;
let admin: Someone;
let poc: Someone;
let otherPoc: Someone;
let clientUser: Someone;

/** The instant the service takes for now: tests move it. */
let now = '2026-03-10T06:00:00.000Z';

before(async () => {
  // Kolkata is UTC+05:30: its midnight is 18:30 UTC, so a date taken in UTC (or on a UTC machine) is a different date for 5½ hours a day.
  ({ svc, admin, poc, otherPoc, clientUser } = await startJobService(() => now));
});
after(() => svc?.close());

const NOT_FOUND = { error: 'Project not found' };
const FORBIDDEN = { error: 'Forbidden' };
const UNAUTHORIZED = { error: 'Unauthorized' };

const UNPRICED = { unitPrice: null, hsnSac: null, gstRate: null };
const LEAFLETS = { description: 'Leaflet A5', quantity: 5000, unit: 'pcs', size: 'A5', stock: '130 gsm gloss art', colours: '4/4', finishing: 'none', notes: null, ...UNPRICED };
const POSTERS = { description: 'Poster A2', quantity: 200, unit: 'sheets', size: 'A2', stock: '170 gsm silk', colours: '4/0', finishing: 'matt lamination', notes: 'roll, do not fold', ...UNPRICED };

const ids = (res: Response): string[] => res.body.items.map((p: { id: string }) => p.id);
const without = <T extends Record<string, unknown>>(lines: T[]) => lines.map(({ id: _id, ...rest }) => rest);

async function createJob(who: Someone, body: Record<string, unknown>): Promise<Response['body']> {
  const res = await who.client.post('/api/projects', { name: `Job ${Math.random().toString(36).slice(2, 8)}`, ...body });
  assert.equal(res.status, 201, res.text);
  return res.body;
}

const editDetails = (who: Someone | { client: Client }, id: string, json: unknown) => who.client.request('PATCH', `/api/projects/${id}/details`, { json });

describe('the job on POST /api/projects', () => {
  test('reference, due date, delivery address and lines are kept and answered; each line gets an id, unit pcs by default', async () => {
    const res = await poc.client.post('/api/projects', {
      name: 'Spring catalogue',
      reference: '  PO-4471 ',
      dueDate: '2026-03-31',
      deliveryAddress: 'Plot 12, MIDC, Pune 411019',
      items: [LEAFLETS, { description: ' Envelopes DL ', quantity: 5000 }],
    });
    assert.equal(res.status, 201, res.text);
    const p = res.body;
    assert.deepEqual(Object.keys(p).sort(), PROJECT_KEYS);
    assert.equal(p.reference, 'PO-4471');
    assert.equal(p.dueDate, '2026-03-31');
    assert.equal(p.deliveryAddress, 'Plot 12, MIDC, Pune 411019');
    assert.equal(p.overdue, false);
    assert.equal(p.items.length, 2);
    for (const line of p.items) assert.match(line.id, UUID);
    assert.notEqual(p.items[0].id, p.items[1].id);
    assert.deepEqual(without(p.items), [
      LEAFLETS,
      { description: 'Envelopes DL', quantity: 5000, unit: 'pcs', size: null, stock: null, colours: null, finishing: null, notes: null, ...UNPRICED },
    ]);
    const got = await poc.client.get(`/api/projects/${p.id}`);
    const { files: _f, payments: _p, allowedActions: _a, uploads: _u, canEditDetails: _c, canHold: _h, canReorder: _r, ...project } = got.body;
    assert.deepEqual(project, p, 'GET answers what POST did');
    const [entry] = await activityOf(admin.client, p.id);
    assert.deepEqual([entry!.action, entry!.details], ['PROJECT_CREATED', { name: 'Spring catalogue', pocId: poc.user.id }]);
  });

  test('all optional: without them the fields are null, no lines, not overdue', async () => {
    const p = await createJob(poc, {});
    assert.deepEqual([p.reference, p.dueDate, p.deliveryAddress, p.overdue, p.items], [null, null, null, false, []]);
    const blanks = await createJob(poc, { reference: '  ', deliveryAddress: '', dueDate: null, items: [] });
    assert.deepEqual([blanks.reference, blanks.dueDate, blanks.deliveryAddress, blanks.items], [null, null, null, []]);
  });

  test('a due date already past is taken, and the project is overdue at once', async () => {
    now = '2026-03-10T06:00:00.000Z';
    const p = await createJob(poc, { dueDate: '2026-03-09' });
    assert.equal(p.overdue, true);
  });

  test('400 naming the field for every rule, and nothing is created', async () => {
    const line = { description: 'Leaflet', quantity: 1 };
    const cases: [string, Record<string, unknown>, string][] = [
      ['30 February', { dueDate: '2026-02-30' }, 'Due date must be a real date written YYYY-MM-DD'],
      ['29 February of a common year', { dueDate: '2026-02-29' }, 'Due date must be a real date written YYYY-MM-DD'],
      ['month 13', { dueDate: '2026-13-01' }, 'Due date must be a real date written YYYY-MM-DD'],
      ['no leading zeros', { dueDate: '2026-3-5' }, 'Due date must be a real date written YYYY-MM-DD'],
      ['a date and time', { dueDate: '2026-03-05T10:00:00Z' }, 'Due date must be a real date written YYYY-MM-DD'],
      ['day first', { dueDate: '05/03/2026' }, 'Due date must be a real date written YYYY-MM-DD'],
      ['a number', { dueDate: 20260305 }, 'Due date must be text'],
      ['reference over 100', { reference: 'R'.repeat(101) }, 'Reference must be at most 100 characters'],
      ['reference a number', { reference: 4471 }, 'Reference must be text'],
      ['address over 1000', { deliveryAddress: 'a'.repeat(1001) }, 'Delivery address must be at most 1000 characters'],
      ['items not a list', { items: line }, 'Items must be a list'],
      ['items null', { items: null }, 'Items must be a list'],
      ['51 lines', { items: Array.from({ length: 51 }, () => line) }, 'Items must have at most 50 entries'],
      ['a line not an object', { items: [line, 'Posters'] }, 'Line 2 must be an object'],
      ['quantity 0', { items: [{ ...line, quantity: 0 }] }, 'Line 1 quantity must be at least 1'],
      ['quantity 10,000,001', { items: [{ ...line, quantity: 10_000_001 }] }, 'Line 1 quantity must be at most 10000000'],
      ['quantity 1.5', { items: [{ ...line, quantity: 1.5 }] }, 'Line 1 quantity must be a whole number'],
      ['quantity "3"', { items: [{ ...line, quantity: '3' }] }, 'Line 1 quantity must be a whole number'],
      ['quantity missing', { items: [line, { description: 'Posters' }] }, 'Line 2 quantity is required'],
      ['description missing', { items: [{ quantity: 3 }] }, 'Line 1 description is required'],
      ['description blank', { items: [{ ...line, description: '   ' }] }, 'Line 1 description is required'],
      ['description over 500', { items: [{ ...line, description: 'd'.repeat(501) }] }, 'Line 1 description must be at most 500 characters'],
      ['unit over 20', { items: [{ ...line, unit: 'u'.repeat(21) }] }, 'Line 1 unit must be at most 20 characters'],
      ['size over 100', { items: [{ ...line, size: 's'.repeat(101) }] }, 'Line 1 size must be at most 100 characters'],
      ['stock over 200', { items: [{ ...line, stock: 's'.repeat(201) }] }, 'Line 1 stock must be at most 200 characters'],
      ['colours over 100', { items: [{ ...line, colours: 'c'.repeat(101) }] }, 'Line 1 colours must be at most 100 characters'],
      ['finishing over 200', { items: [{ ...line, finishing: 'f'.repeat(201) }] }, 'Line 1 finishing must be at most 200 characters'],
      ['notes over 1000', { items: [{ ...line, notes: 'n'.repeat(1001) }] }, 'Line 1 notes must be at most 1000 characters'],
      ['an unknown field of a line', { items: [{ ...line, colour: 'red' }] }, 'Line 1 colour is not a known field'],
      ['a line field of another type', { items: [{ ...line, notes: 5 }] }, 'Line 1 notes must be text'],
      ['an id on a new project', { items: [{ ...line, id: '01a20f1a-0000-7000-8000-000000000000' }] }, 'Line 1 id is not a line of this project'],
      ['an unknown field of the project', { dueOn: '2026-03-05' }, 'dueOn is not a known field'],
      // PostgreSQL stores neither: refused on both databases alike.
      ['a NUL in a line', { items: [line, { ...line, notes: 'a\u0000b' }] }, 'Line 2 notes must not contain NUL characters'],
      ['a lone surrogate in the reference', { reference: 'PO-\ud800' }, 'Reference must not contain unpaired surrogates (invalid Unicode)'],
    ];
    const name = `Refused ${Date.now()}`;
    for (const [label, body, error] of cases) {
      const res = await poc.client.post('/api/projects', { name, ...body });
      assert.deepEqual([res.status, res.body], [400, { error }], label);
    }
    const made = await poc.client.get(`/api/projects?q=${encodeURIComponent(name)}`);
    assert.deepEqual(made.body.items, [], 'nothing was created');
    // At the bounds, everything is taken.
    const full = await createJob(poc, {
      reference: 'R'.repeat(100),
      deliveryAddress: 'é'.repeat(1000),
      items: Array.from({ length: 50 }, (_, i) => ({ description: 'd'.repeat(500), quantity: i % 2 ? 1 : 10_000_000, unit: 'u'.repeat(20), notes: 'n'.repeat(1000) })),
    });
    assert.equal(full.items.length, 50);
    assert.equal(full.items[0].quantity, 10_000_000);
  });
});

describe('PATCH /api/projects/:id/details: the job', () => {
  test('lines sent back with their ids are kept; PROJECT_UPDATED names the fields, the due date before and after, and which lines changed', async () => {
    const p = await createJob(poc, { dueDate: '2026-03-20', items: [LEAFLETS, POSTERS] });
    const [leaflets, posters] = p.items;

    let res!: Response;
    const events = await collectEvents(admin.client, 2, async () => {
      res = await editDetails(poc, p.id, {
        reference: 'PO-9',
        dueDate: '2026-03-25',
        // Posters first, changed; leaflets removed; a new line last.
        items: [{ ...posters, quantity: 250 }, { description: 'Stickers', quantity: 1000, unit: 'sheets' }],
      });
    });
    assert.equal(res.status, 200, res.text);
    assert.deepEqual(withoutIds(events), changeEvents(p.id));
    assert.equal(res.body.reference, 'PO-9');
    assert.equal(res.body.dueDate, '2026-03-25');
    assert.equal(res.body.items[0].id, posters.id, 'a line sent with its id keeps it');
    assert.equal(res.body.items[0].quantity, 250);
    assert.match(res.body.items[1].id, UUID);
    assert.ok(![leaflets.id, posters.id].includes(res.body.items[1].id), 'a new line gets a new id');
    const [entry] = await activityOf(admin.client, p.id);
    assert.equal(entry!.action, 'PROJECT_UPDATED');
    assert.equal(entry!.userId, poc.user.id);
    assert.deepEqual(entry!.details, {
      changed: ['reference', 'dueDate', 'items'],
      dueDate: { from: '2026-03-20', to: '2026-03-25' },
      items: { before: 2, after: 2, added: [2], changed: [1], removed: [1], reordered: false },
    });

    // The same lines again, and the fields as they are: nothing to name.
    const same = await editDetails(poc, p.id, { reference: 'PO-9', items: res.body.items });
    assert.equal(same.status, 200);
    assert.deepEqual(same.body.items, res.body.items);
    assert.deepEqual((await activityOf(admin.client, p.id))[0]!.details, { changed: [] });

    // Swapped: a move, nothing else.
    const swapped = await editDetails(poc, p.id, { items: [res.body.items[1], res.body.items[0]] });
    assert.deepEqual(swapped.body.items.map((l: { id: string }) => l.id), [res.body.items[1].id, res.body.items[0].id]);
    assert.deepEqual((await activityOf(admin.client, p.id))[0]!.details, {
      changed: ['items'],
      items: { before: 2, after: 2, added: [], changed: [], removed: [], reordered: true },
    });

    // Cleared: no lines, no due date, no reference; the name alone untouched.
    const cleared = await editDetails(poc, p.id, { items: [], dueDate: null, reference: null, deliveryAddress: '  ' });
    assert.deepEqual([cleared.body.items, cleared.body.dueDate, cleared.body.reference, cleared.body.deliveryAddress, cleared.body.name], [[], null, null, null, p.name]);
    assert.deepEqual((await activityOf(admin.client, p.id))[0]!.details, {
      changed: ['reference', 'dueDate', 'items'],
      dueDate: { from: '2026-03-25', to: null },
      items: { before: 2, after: 0, added: [], changed: [], removed: [1, 2], reordered: false },
    });
  });

  test('a line id the project does not have, or sent twice, is refused and nothing changes', async () => {
    const p = await createJob(poc, { items: [LEAFLETS] });
    const elsewhere = await createJob(poc, { items: [POSTERS] });
    const line = p.items[0];
    for (const [items, error] of [
      [[{ ...elsewhere.items[0] }], 'Line 1 id is not a line of this project'],
      [[line, { ...line, quantity: 3 }], 'Line 2 id repeats an earlier line'],
    ] as const) {
      const res = await editDetails(poc, p.id, { dueDate: '2026-04-01', items });
      assert.deepEqual([res.status, res.body], [400, { error }]);
    }
    const still = await poc.client.get(`/api/projects/${p.id}`);
    assert.deepEqual([still.body.dueDate, still.body.items], [null, p.items]);
    assert.equal((await activityOf(admin.client, p.id)).length, 1, 'only PROJECT_CREATED');
  });

  test('every rule of POST holds here too, and nothing changes', async () => {
    const p = await createJob(poc, { dueDate: '2026-03-20', items: [LEAFLETS] });
    for (const [body, error] of [
      [{ dueDate: '2026-02-30' }, 'Due date must be a real date written YYYY-MM-DD'],
      [{ items: Array.from({ length: 51 }, () => LEAFLETS) }, 'Items must have at most 50 entries'],
      [{ items: [{ ...LEAFLETS, quantity: 0 }] }, 'Line 1 quantity must be at least 1'],
      [{ items: [{ ...LEAFLETS, quantity: 10_000_001 }] }, 'Line 1 quantity must be at most 10000000'],
      [{ items: [{ ...LEAFLETS, quantity: 1.5 }] }, 'Line 1 quantity must be a whole number'],
      [{ items: [{ ...LEAFLETS, quantity: '3' }] }, 'Line 1 quantity must be a whole number'],
      [{ items: [{ ...LEAFLETS, paper: '300 gsm' }] }, 'Line 1 paper is not a known field'],
      [{ reference: 'R'.repeat(101) }, 'Reference must be at most 100 characters'],
      [{ deliveryAddress: 'a'.repeat(1001), name: 'ok' }, 'Delivery address must be at most 1000 characters'],
      [{ status: 'PRINTING' }, 'Status is not a known field'],
    ] as const) {
      const res = await editDetails(poc, p.id, body);
      assert.deepEqual([res.status, res.body], [400, { error }], JSON.stringify(body).slice(0, 80));
    }
    const still = await poc.client.get(`/api/projects/${p.id}`);
    assert.deepEqual([still.body.dueDate, still.body.items, still.body.name], ['2026-03-20', p.items, p.name]);
  });

  test('who may edit: the owner until printing starts, an ADMIN always; another POC or a CLIENT 404; no session 401', async () => {
    const states = ['REQUESTED', 'APPROVED', 'PRINTING', 'DISPATCHED', 'DELIVERED', 'CANCELLED'] as const;
    for (const status of states) {
      const p = await svc.createProject(poc.user.id, { status, piStatus: status === 'REQUESTED' ? 'PENDING' : 'VERIFIED' });
      const byOwner = await editDetails(poc, p.id, { dueDate: '2026-04-01' });
      if (status === 'REQUESTED' || status === 'APPROVED') {
        assert.equal(byOwner.status, 200, `${status}: ${byOwner.text}`);
        assert.equal(byOwner.body.dueDate, '2026-04-01');
      } else {
        assert.deepEqual([byOwner.status, byOwner.body], [409, { error: `Cannot edit a project that is ${status}` }], status);
      }
      const byAdmin = await editDetails(admin, p.id, { dueDate: '2026-04-02', items: [LEAFLETS] });
      assert.equal(byAdmin.status, 200, `${status}: ${byAdmin.text}`);
      assert.equal(byAdmin.body.dueDate, '2026-04-02');
      for (const stranger of [otherPoc, clientUser]) {
        const res = await editDetails(stranger, p.id, { dueDate: '2026-04-03' });
        assert.deepEqual([res.status, res.body], [404, NOT_FOUND], `${stranger.user.role} on ${status}`);
      }
      const anonymous = await editDetails({ client: svc.anonymous }, p.id, { dueDate: '2026-04-03' });
      assert.deepEqual([anonymous.status, anonymous.body], [401, UNAUTHORIZED]);
      const seen = await poc.client.get(`/api/projects/${p.id}`);
      assert.equal(seen.body.dueDate, '2026-04-02', `${status}: only the admin's change and the owner's allowed one happened`);
      assert.equal(seen.body.canEditDetails, status === 'REQUESTED' || status === 'APPROVED', status);
    }
    // A CLIENT who owns a project (an order from before account managers) edits it like any owner.
    const own = await svc.createProject(clientUser.user.id, {});
    const byClient = await editDetails(clientUser, own.id, { reference: 'CL-1', items: [POSTERS] });
    assert.equal(byClient.status, 200, byClient.text);
    assert.equal(byClient.body.reference, 'CL-1');
  });

  test("an ADMIN's PATCH /api/projects/:id corrects the job too; a POC's is 403 and changes nothing", async () => {
    const p = await svc.createProject(poc.user.id, { status: 'DELIVERED', piStatus: 'VERIFIED' });
    const res = await admin.client.patch(`/api/projects/${p.id}`, { dueDate: '2026-03-01', reference: 'Fixed', items: [LEAFLETS] });
    assert.equal(res.status, 200, res.text);
    assert.deepEqual([res.body.dueDate, res.body.reference, without(res.body.items)], ['2026-03-01', 'Fixed', [LEAFLETS]]);
    assert.equal(res.body.overdue, false, 'delivered: never overdue');
    const [entry] = await activityOf(admin.client, p.id);
    assert.deepEqual(entry!.details, {
      changed: ['reference', 'dueDate', 'items'],
      dueDate: { from: null, to: '2026-03-01' },
      items: { before: 0, after: 1, added: [1], changed: [], removed: [], reordered: false },
    });
    const byPoc = await poc.client.patch(`/api/projects/${p.id}`, { dueDate: '2026-03-05' });
    assert.deepEqual([byPoc.status, byPoc.body], [403, FORBIDDEN]);
    const bad = await admin.client.patch(`/api/projects/${p.id}`, { items: [{ ...LEAFLETS, quantity: 0 }] });
    assert.deepEqual([bad.status, bad.body], [400, { error: 'Line 1 quantity must be at least 1' }]);
    assert.equal((await admin.client.get(`/api/projects/${p.id}`)).body.dueDate, '2026-03-01');
  });
});

/** Projects of one fresh POC with these due dates (and states), made over HTTP where the state allows. */
async function dueProjects(owner: Someone, specs: [string, string | null, ('DELIVERED' | 'CANCELLED' | 'PRINTING')?][]): Promise<Record<string, string>> {
  const made: Record<string, string> = {};
  for (const [label, dueDate, status] of specs) {
    made[label] = status ? (await svc.createProject(owner.user.id, { name: label, status, piStatus: 'VERIFIED', dueDate })).id : (await createJob(owner, { name: label, dueDate })).id;
  }
  return made;
}

const labelsOf = (made: Record<string, string>, res: Response) => {
  assert.equal(res.status, 200, res.text);
  const byId = new Map(Object.entries(made).map(([label, id]) => [id, label]));
  return ids(res).map((id) => byId.get(id) ?? id);
};

describe('overdue and the due filters, around midnight in TIMEZONE (Asia/Kolkata, UTC+05:30)', () => {
  test('at 23:59:59 in Kolkata a project due that day is due today; one second later it is overdue', async () => {
    const owner = await svc.signIn('POC');
    const made = await dueProjects(owner, [
      ['due 9th', '2026-03-09'],
      ['due 10th', '2026-03-10'],
      ['due 11th', '2026-03-11'],
      ['due 16th', '2026-03-16'],
      ['due 17th', '2026-03-17'],
      ['no date', null],
      ['printing, due 9th', '2026-03-09', 'PRINTING'],
      ['delivered, due 9th', '2026-03-09', 'DELIVERED'],
      ['cancelled, due 10th', '2026-03-10', 'CANCELLED'],
    ]);
    const list = (query: string) => owner.client.get(`/api/projects?sort=due&${query}`);
    const overdue = async () => {
      const all = await owner.client.get('/api/projects?limit=200');
      return all.body.items.filter((p: { overdue: boolean }) => p.overdue).map((p: { name: string }) => p.name).sort();
    };

    // 2026-03-10 23:59:59.999 in Kolkata (18:29:59.999 UTC): still the 10th.
    now = '2026-03-10T18:29:59.999Z';
    assert.deepEqual(labelsOf(made, await list('due=overdue')), ['due 9th', 'printing, due 9th'].sort());
    assert.deepEqual(labelsOf(made, await list('due=today')), ['due 10th']);
    assert.deepEqual(labelsOf(made, await list('due=week')), ['due 10th', 'due 11th', 'due 16th']);
    assert.deepEqual(await overdue(), ['due 9th', 'printing, due 9th']);
    assert.deepEqual((await owner.client.get('/api/dashboard/stats')).body.due, { overdue: 2, today: 1, week: 3 });

    // 00:00:00.000 on the 11th in Kolkata (18:30 UTC, still the 10th in UTC).
    now = '2026-03-10T18:30:00.000Z';
    assert.deepEqual(labelsOf(made, await list('due=overdue')), ['due 9th', 'printing, due 9th', 'due 10th']);
    assert.deepEqual(labelsOf(made, await list('due=today')), ['due 11th']);
    assert.deepEqual(labelsOf(made, await list('due=week')), ['due 11th', 'due 16th', 'due 17th']);
    assert.deepEqual(await overdue(), ['due 10th', 'due 9th', 'printing, due 9th']);
    assert.deepEqual((await owner.client.get('/api/dashboard/stats')).body.due, { overdue: 3, today: 1, week: 3 });
    const one = await owner.client.get(`/api/projects/${made['due 10th']}`);
    assert.equal(one.body.overdue, true);
    // Delivered or cancelled: never overdue, never due.
    for (const label of ['delivered, due 9th', 'cancelled, due 10th']) assert.equal((await owner.client.get(`/api/projects/${made[label]}`)).body.overdue, false);
  });

  test('the filters combine with the others and with newest-first order', async () => {
    now = '2026-03-10T12:00:00.000Z';
    const owner = await svc.signIn('POC');
    const made = await dueProjects(owner, [
      ['a', '2026-03-01'],
      ['b', '2026-03-05'],
      ['c', '2026-03-12'],
    ]);
    await admin.client.post(`/api/projects/${made.b}/approve`);
    assert.deepEqual(labelsOf(made, await owner.client.get('/api/projects?due=overdue')), ['b', 'a'], 'newest first by default');
    assert.deepEqual(labelsOf(made, await owner.client.get('/api/projects?due=overdue&status=APPROVED')), ['b']);
    assert.deepEqual(labelsOf(made, await admin.client.get(`/api/projects?due=overdue&pocId=${owner.user.id}&sort=due`)), ['a', 'b']);
    assert.deepEqual(labelsOf(made, await otherPoc.client.get('/api/projects?due=overdue&limit=200')).filter((l) => l.length === 1), [], "another POC's filter shows none of them");
  });
});

describe('overdue around midnight in America/Los_Angeles (UTC-07:00 in March)', () => {
  let la: TestService;
  let laPoc: Someone;
  let laNow = '2026-03-10T06:59:59.999Z';
  before(async () => {
    la = await startTestService({ env: { TIMEZONE: 'America/Los_Angeles' } });
    la.deps.clock = { now: () => new Date(laNow) };
    laPoc = await la.signIn('POC');
  });
  after(() => la?.close());

  test('at 23:59:59 on the 9th in Los Angeles (already the 10th in UTC) a project due the 9th is due today, not overdue', async () => {
    const dueNinth = await laPoc.client.post('/api/projects', { name: 'Due the 9th', dueDate: '2026-03-09' });
    const dueTenth = await laPoc.client.post('/api/projects', { name: 'Due the 10th', dueDate: '2026-03-10' });
    assert.equal(dueNinth.body.overdue, false);
    const list = async (due: string) => ids(await laPoc.client.get(`/api/projects?due=${due}&sort=due`));
    assert.deepEqual(await list('today'), [dueNinth.body.id]);
    assert.deepEqual(await list('overdue'), []);
    assert.deepEqual(await list('week'), [dueNinth.body.id, dueTenth.body.id]);
    assert.deepEqual((await laPoc.client.get('/api/dashboard/stats')).body.due, { overdue: 0, today: 1, week: 2 });

    laNow = '2026-03-10T07:00:00.000Z';
    assert.equal((await laPoc.client.get(`/api/projects/${dueNinth.body.id}`)).body.overdue, true);
    assert.deepEqual(await list('overdue'), [dueNinth.body.id]);
    assert.deepEqual(await list('today'), [dueTenth.body.id]);
    assert.deepEqual(await list('week'), [dueTenth.body.id]);
    assert.deepEqual((await laPoc.client.get('/api/dashboard/stats')).body.due, { overdue: 1, today: 1, week: 1 });
  });
});

describe('sort=due', () => {
  test('earliest due date first, the projects without one last; limit and cursor visit each once', async () => {
    const owner = await svc.signIn('POC');
    const made = await dueProjects(owner, [
      ['none 1', null],
      ['apr', '2026-04-01'],
      ['mar a', '2026-03-15'],
      ['none 2', null],
      ['jan', '2026-01-20'],
      ['mar b', '2026-03-15'],
      ['dec', '2025-12-31'],
      ['none 3', null],
      ['delivered feb', '2026-02-01', 'DELIVERED'],
    ]);
    const byId = (a: string, b: string) => (made[a]! < made[b]! ? -1 : 1);
    const expected = ['dec', 'jan', 'delivered feb', ...['mar a', 'mar b'].sort(byId), 'apr', ...['none 1', 'none 2', 'none 3'].sort(byId)];
    const whole = await owner.client.get('/api/projects?sort=due');
    assert.deepEqual(labelsOf(made, whole), expected);
    assert.equal(whole.body.nextCursor, null);

    for (const limit of [1, 2, 3, 4, 6, 8, 9]) {
      const seen: string[] = [];
      let cursor: string | null = null;
      let pages = 0;
      do {
        const res: Response = await owner.client.get(`/api/projects?sort=due&limit=${limit}${cursor ? `&cursor=${cursor}` : ''}`);
        assert.ok(res.body.items.length <= limit);
        seen.push(...labelsOf(made, res));
        cursor = res.body.nextCursor;
        assert.ok(++pages <= 10, 'pages end');
      } while (cursor);
      assert.deepEqual(seen, expected, `limit ${limit}`);
    }
    // A filter that selects dated projects only pages the same way.
    const week: string[] = [];
    now = '2026-03-10T12:00:00.000Z';
    let cursor: string | null = null;
    do {
      const res: Response = await owner.client.get(`/api/projects?sort=due&due=overdue&limit=1${cursor ? `&cursor=${cursor}` : ''}`);
      week.push(...labelsOf(made, res));
      cursor = res.body.nextCursor;
    } while (cursor);
    assert.deepEqual(week, ['dec', 'jan']);
  });

  test('a cursor of one order is refused by the other; unknown filter values are 400', async () => {
    await createJob(poc, { dueDate: '2026-05-01' });
    await createJob(poc, { dueDate: '2026-05-02' });
    const byDue = await poc.client.get('/api/projects?sort=due&limit=1');
    const newest = await poc.client.get('/api/projects?limit=1');
    assert.ok(byDue.body.nextCursor && newest.body.nextCursor);
    for (const url of [`/api/projects?cursor=${byDue.body.nextCursor}`, `/api/projects?sort=newest&cursor=${byDue.body.nextCursor}`, `/api/projects?sort=due&cursor=${newest.body.nextCursor}`, '/api/projects?sort=due&cursor=garbage']) {
      const res = await poc.client.get(url);
      assert.deepEqual([res.status, res.body], [400, { error: 'Invalid cursor' }], url);
    }
    for (const [query, error] of [
      ['sort=oldest', 'querystring.sort must be one of newest, due, priority'],
      ['due=tomorrow', 'querystring.due must be one of overdue, today, week'],
      ['piStatus=PAID', 'querystring.piStatus must be one of PENDING, SUBMITTED, VERIFIED, REJECTED'],
    ]) {
      const res = await poc.client.get(`/api/projects?${query}`);
      assert.deepEqual([res.status, res.body], [400, { error }], query);
    }
    assert.deepEqual((await svc.anonymous.get('/api/projects?sort=due&due=overdue')).body, UNAUTHORIZED);
  });
});

describe('GET /api/projects: piStatus and q', () => {
  test('piStatus chooses by the PI, within what the caller may see', async () => {
    const owner = await svc.signIn('POC');
    const made: Record<string, string> = {};
    for (const pi of ['PENDING', 'SUBMITTED', 'VERIFIED', 'REJECTED'] as const) made[pi] = (await svc.createProject(owner.user.id, { piStatus: pi })).id;
    const theirs = await svc.createProject(otherPoc.user.id, { piStatus: 'SUBMITTED' });
    assert.deepEqual(labelsOf(made, await owner.client.get('/api/projects?piStatus=SUBMITTED')), ['SUBMITTED']);
    const all = ids(await admin.client.get('/api/projects?piStatus=SUBMITTED&limit=200'));
    assert.ok(all.includes(made.SUBMITTED!) && all.includes(theirs.id) && !all.includes(made.VERIFIED!));
  });

  test("q matches the name, the reference and the POC's name, ignoring case; never beyond what the caller may see", async () => {
    const tag = Date.now().toString(36);
    const named = await svc.signIn('POC', { name: `Zanzibar ${tag} Rao` });
    const byName = await createJob(named, { name: `Calendars ${tag}` });
    const byReference = await createJob(poc, { reference: `PO-${tag}-77` });
    const plain = await createJob(poc, { name: 'Plain', reference: 'nothing' });
    const q = async (who: Someone, term: string) => ids(await who.client.get(`/api/projects?limit=200&q=${encodeURIComponent(term)}`));
    assert.deepEqual(await q(admin, `ZANZIBAR ${tag}`), [byName.id], "the POC's name");
    assert.deepEqual(await q(admin, `po-${tag}-7`), [byReference.id], 'the reference');
    assert.deepEqual((await q(admin, tag)).sort(), [byName.id, byReference.id].sort(), 'either');
    assert.deepEqual(await q(poc, `zanzibar ${tag}`), [], "another POC's projects stay unseen, whatever their POC is called");
    assert.deepEqual(await q(poc, `${tag}-77`), [byReference.id]);
    assert.ok(!(await q(admin, tag)).includes(plain.id));
  });
});

describe('GET /api/dashboard/stats: due', () => {
  test('each role counts what it may see: an ADMIN everything, a POC their own, a CLIENT their own', async () => {
    now = '2026-06-15T06:00:00.000Z'; // 11:30 on the 15th in Kolkata
    const before = (await admin.client.get('/api/dashboard/stats')).body.due;
    const owner = await svc.signIn('POC');
    const client = await svc.signIn('CLIENT');
    await dueProjects(owner, [
      ['overdue', '2026-06-14'],
      ['today', '2026-06-15'],
      ['in six days', '2026-06-21'],
      ['in a week', '2026-06-22'],
      ['delivered', '2026-06-14', 'DELIVERED'],
    ]);
    // A CLIENT's own order from before account managers (a CLIENT's new orders are the account manager's).
    await svc.createProject(client.user.id, { name: 'client today', dueDate: '2026-06-15' });
    assert.deepEqual((await owner.client.get('/api/dashboard/stats')).body.due, { overdue: 1, today: 1, week: 2 });
    assert.deepEqual((await client.client.get('/api/dashboard/stats')).body.due, { overdue: 0, today: 1, week: 1 });
    const fresh = await svc.signIn('POC');
    assert.deepEqual((await fresh.client.get('/api/dashboard/stats')).body.due, { overdue: 0, today: 0, week: 0 });
    const after = (await admin.client.get('/api/dashboard/stats')).body.due;
    assert.deepEqual(after, { overdue: before.overdue + 1, today: before.today + 2, week: before.week + 3 });
    assert.equal((await svc.anonymous.get('/api/dashboard/stats')).status, 401);
  });
});

describe('TIMEZONE', () => {
  test('an IANA name is taken; anything else stops start-up with a message naming the variable; unset, the system zone', () => {
    const env = { DATA_DIR: '/tmp/unused' };
    assert.equal(loadConfig({ ...env, TIMEZONE: 'Asia/Kolkata' }).timeZone, 'Asia/Kolkata');
    assert.equal(loadConfig({ ...env, TIMEZONE: 'America/Los_Angeles' }).timeZone, 'America/Los_Angeles');
    assert.equal(loadConfig(env).timeZone, Intl.DateTimeFormat().resolvedOptions().timeZone);
    for (const bad of ['Mars/Olympus_Mons', '+05:30', 'IST5']) {
      assert.throws(
        () => loadConfig({ ...env, TIMEZONE: bad }),
        (err: unknown) => err instanceof ConfigError && err.message === `TIMEZONE must be an IANA time zone name such as Asia/Kolkata or America/Los_Angeles, got "${bad}"`,
        bad,
      );
    }
  });
});
