/**
 * Customers (interface.md, additions of 2026-11-24, "Customers, and who may see a project") over
 * real HTTP: the endpoints and who may use them, validation (GSTIN included), the duplicate rule
 * (case-insensitive, under a race too), pages by name and the active filter, the activity entries;
 * a user's customerId (PATCH /api/team/:id, GET /api/team/:id, GET /api/account, never in the
 * specification's team answers); a project's customerId and customerName, the filter and search.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { User } from '../src/domain/model.js';
import { UUID, activityOf } from './helpers/projects.js';
import { type Client, type Response, type TestService, startTestService } from './helpers/service.js';

type Someone = { user: User; client: Client };

let svc: TestService;
let admin: Someone;
let poc: Someone;
let clientUser: Someone;

before(async () => {
  svc = await startTestService();
  [admin, poc, clientUser] = await Promise.all([svc.signIn('ADMIN'), svc.signIn('POC'), svc.signIn('CLIENT')]);
});
after(() => svc?.close());

let counter = 0;
const uniqueName = (base = 'Customer') => `${base} ${++counter} ${Math.random().toString(36).slice(2, 7)}`;

async function createCustomer(who: Someone, body: Record<string, unknown> = {}): Promise<Response['body']> {
  const res = await who.client.post('/api/customers', { name: uniqueName(), ...body });
  assert.equal(res.status, 201, res.text);
  return res.body;
}

const CUSTOMER_KEYS = ['accountManagerId', 'active', 'billingAddress', 'createdAt', 'email', 'gstin', 'id', 'name', 'phone', 'stateCode', 'updatedAt'];
const count = async () => Number((await svc.deps.database.db.selectFrom('customers').select((eb) => eb.fn.countAll().as('n')).executeTakeFirstOrThrow()).n);

describe('POST /api/customers', () => {
  test('an ADMIN and a POC add customers: 201 with every field, trimmed, the GSTIN upper-cased, active by default', async () => {
    const name = uniqueName('  Acme   Prints');
    const res = await poc.client.post('/api/customers', {
      name,
      gstin: ' 27aapfu0939f1zv ',
      email: ' accounts@acme.example.in ',
      phone: '+91 20 1234 5678',
      billingAddress: 'Plot 12, MIDC, Pune 411019',
    });
    assert.equal(res.status, 201, res.text);
    assert.deepEqual(Object.keys(res.body).sort(), CUSTOMER_KEYS);
    assert.match(res.body.id, UUID);
    assert.equal(res.body.name, name.trim().replace(/\s+/g, ' '));
    assert.equal(res.body.gstin, '27AAPFU0939F1ZV');
    assert.equal(res.body.email, 'accounts@acme.example.in');
    assert.equal(res.body.active, true);
    const read = await admin.client.get(`/api/customers/${res.body.id}`);
    assert.deepEqual({ ...read.body, clients: undefined }, { ...res.body, clients: undefined });
    const byAdmin = await createCustomer(admin, { gstin: '29AAGCB7383J1Z4', active: false });
    assert.equal(byAdmin.active, false);
  });

  test('a CLIENT gets 403, no session 401; nothing is stored', async () => {
    const before = await count();
    const res = await clientUser.client.post('/api/customers', { name: uniqueName() });
    assert.deepEqual([res.status, res.body], [403, { error: 'Forbidden' }]);
    const anon = await svc.anonymous.post('/api/customers', { name: uniqueName() });
    assert.deepEqual([anon.status, anon.body], [401, { error: 'Unauthorized' }]);
    assert.equal(await count(), before);
  });

  test('a POC may not set active: 403, nothing stored', async () => {
    const before = await count();
    const res = await poc.client.post('/api/customers', { name: uniqueName(), active: true });
    assert.deepEqual([res.status, res.body], [403, { error: 'Forbidden' }]);
    assert.equal(await count(), before);
  });

  test('bad input: a clear 400, nothing stored', async () => {
    const before = await count();
    const cases: [Record<string, unknown>, string | RegExp][] = [
      [{}, /name/i],
      [{ name: '   ' }, 'Name is required'],
      [{ name: 'x'.repeat(201) }, 'Name must be at most 200 characters'],
      [{ name: uniqueName(), gstin: '27AAPFU0939F1ZW' }, 'GSTIN check character does not match: please check the number'],
      [{ name: uniqueName(), gstin: '29AAGCB7383J1Z5' }, 'GSTIN check character does not match: please check the number'],
      [{ name: uniqueName(), gstin: '27AAPFU0939F1Z' }, /^GSTIN must be 15 characters/],
      [{ name: uniqueName(), gstin: '27AAPFU0939F0ZV' }, /^GSTIN must be 15 characters/],
      [{ name: uniqueName(), email: 'accounts@acme' }, 'Email must be a full address, like name@example.com'],
      [{ name: uniqueName(), phone: '1'.repeat(41) }, 'Phone must be at most 40 characters'],
      [{ name: uniqueName(), billingAddress: 'x'.repeat(1001) }, 'Billing address must be at most 1000 characters'],
      [{ name: uniqueName(), website: 'acme.in' }, /website|additional/i],
      [{ name: 42 }, /name/i],
    ];
    for (const [body, message] of cases) {
      const res = await admin.client.post('/api/customers', body);
      assert.equal(res.status, 400, `${JSON.stringify(body)}: ${res.text}`);
      assert.deepEqual(Object.keys(res.body), ['error']);
      if (typeof message === 'string') assert.equal(res.body.error, message);
      else assert.match(res.body.error, message);
    }
    assert.equal(await count(), before);
  });

  test('a duplicate name, whatever its case and spaces: 409; at once from two requests: one 201, one 409', async () => {
    const name = uniqueName('Duplicate Test');
    await createCustomer(admin, { name });
    for (const again of [name, name.toUpperCase(), ` ${name.toLowerCase().replace(' ', '   ')} `]) {
      const res = await poc.client.post('/api/customers', { name: again });
      assert.deepEqual([res.status, res.body], [409, { error: 'A customer with this name already exists' }], again);
    }
    const raced = uniqueName('Race');
    const answers = await Promise.all([admin.client.post('/api/customers', { name: raced }), poc.client.post('/api/customers', { name: raced.toLowerCase() })]);
    assert.deepEqual(answers.map((r) => r.status).sort(), [201, 409]);
    assert.deepEqual(answers.find((r) => r.status === 409)!.body, { error: 'A customer with this name already exists' });
  });

  test('writes CUSTOMER_CREATED (entityType customer), seen only by an ADMIN', async () => {
    const c = await createCustomer(poc);
    const entries = (await admin.client.get(`/api/activity?entityType=customer&entityId=${c.id}`)).body.items;
    assert.deepEqual(entries.map((e: { action: string; userId: string; details: unknown }) => [e.action, e.userId, e.details]), [['CUSTOMER_CREATED', poc.user.id, { name: c.name }]]);
    for (const other of [poc, clientUser]) {
      const res = await other.client.get(`/api/activity?entityType=customer&entityId=${c.id}`);
      assert.deepEqual(res.body.items, []);
    }
  });
});

describe('PATCH /api/customers/:id', () => {
  test('an ADMIN and a POC change fields; null clears; CUSTOMER_UPDATED names what changed', async () => {
    const c = await createCustomer(admin, { gstin: '33AAACH7409R1Z8', phone: '123' });
    const res = await poc.client.patch(`/api/customers/${c.id}`, { phone: null, billingAddress: 'Chennai', gstin: null });
    assert.equal(res.status, 200, res.text);
    assert.deepEqual([res.body.phone, res.body.billingAddress, res.body.gstin, res.body.name], [null, 'Chennai', null, c.name]);
    const entries = (await admin.client.get(`/api/activity?entityType=customer&entityId=${c.id}&action=CUSTOMER_UPDATED`)).body.items;
    assert.deepEqual(entries[0].details.changed.sort(), ['billingAddress', 'gstin', 'phone']);
  });

  test('active only by an ADMIN (a POC gets 403, nothing changed); a CLIENT 403; unknown 404; no session 401', async () => {
    const c = await createCustomer(admin);
    const byPoc = await poc.client.patch(`/api/customers/${c.id}`, { active: false, phone: '9' });
    assert.deepEqual([byPoc.status, byPoc.body], [403, { error: 'Forbidden' }]);
    assert.equal((await admin.client.get(`/api/customers/${c.id}`)).body.phone, null);
    const byClient = await clientUser.client.patch(`/api/customers/${c.id}`, { phone: '9' });
    assert.deepEqual([byClient.status, byClient.body], [403, { error: 'Forbidden' }]);
    const byAdmin = await admin.client.patch(`/api/customers/${c.id}`, { active: false });
    assert.deepEqual([byAdmin.status, byAdmin.body.active], [200, false]);
    const unknown = await admin.client.patch('/api/customers/0190a0a0-0000-7000-8000-000000000000', { phone: '1' });
    assert.deepEqual([unknown.status, unknown.body], [404, { error: 'Customer not found' }]);
    const anon = await svc.anonymous.patch(`/api/customers/${c.id}`, { phone: '1' });
    assert.equal(anon.status, 401);
  });

  test('renaming onto another customer’s name is 409; onto its own in another case is fine; a bad GSTIN 400, nothing changed', async () => {
    const [a, b] = [await createCustomer(admin), await createCustomer(admin)];
    const clash = await admin.client.patch(`/api/customers/${a.id}`, { name: b.name.toUpperCase() });
    assert.deepEqual([clash.status, clash.body], [409, { error: 'A customer with this name already exists' }]);
    const own = await admin.client.patch(`/api/customers/${a.id}`, { name: a.name.toLowerCase() });
    assert.deepEqual([own.status, own.body.name], [200, a.name.toLowerCase()]);
    const bad = await admin.client.patch(`/api/customers/${a.id}`, { gstin: '27AAPFU0939F1ZA' });
    assert.equal(bad.status, 400);
    assert.equal((await admin.client.get(`/api/customers/${a.id}`)).body.gstin, null);
  });
});

describe('GET /api/customers', () => {
  test('by name, case-insensitively, in pages; q; active=true by default, false, all; bad cursor 400', async () => {
    const tag = Math.random().toString(36).slice(2, 8);
    const names = ['delta', 'Alpha', 'charlie', 'Bravo', 'echo'].map((n) => `${tag} ${n}`);
    for (const name of names) await createCustomer(admin, { name, ...(name.endsWith('echo') ? { active: false } : {}) });
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const res: Response = await poc.client.get(`/api/customers?q=${tag.toUpperCase()}&limit=2${cursor ? `&cursor=${cursor}` : ''}`);
      assert.equal(res.status, 200, res.text);
      assert.ok(res.body.items.length <= 2);
      seen.push(...res.body.items.map((c: { name: string }) => c.name));
      cursor = res.body.nextCursor;
    } while (cursor);
    assert.deepEqual(seen, [`${tag} Alpha`, `${tag} Bravo`, `${tag} charlie`, `${tag} delta`]);
    const inactive = await admin.client.get(`/api/customers?q=${tag}&active=false`);
    assert.deepEqual(inactive.body.items.map((c: { name: string }) => c.name), [`${tag} echo`]);
    const all = await admin.client.get(`/api/customers?q=${tag}&active=all`);
    assert.equal(all.body.items.length, 5);
    for (const bad of ['cursor=nope', 'active=yes', 'limit=0', 'limit=201']) {
      const res = await admin.client.get(`/api/customers?${bad}`);
      assert.equal(res.status, 400, bad);
      assert.deepEqual(Object.keys(res.body), ['error']);
    }
    assert.equal((await svc.anonymous.get('/api/customers')).status, 401);
  });

  test('a CLIENT sees only their own customer, without clients; another customer is a 404; without a customer, none', async () => {
    const own = await createCustomer(admin);
    const other = await createCustomer(admin);
    const client = await svc.signIn('CLIENT');
    assert.deepEqual((await client.client.get('/api/customers')).body, { items: [], nextCursor: null });
    assert.equal((await client.client.get(`/api/customers/${own.id}`)).status, 404);
    const attach = await admin.client.patch(`/api/team/${client.user.id}`, { customerId: own.id });
    assert.equal(attach.status, 200, attach.text);
    const list = await client.client.get('/api/customers?active=all');
    assert.deepEqual(list.body.items.map((c: { id: string }) => c.id), [own.id]);
    const read = await client.client.get(`/api/customers/${own.id}`);
    assert.equal(read.status, 200);
    assert.deepEqual(Object.keys(read.body).sort(), CUSTOMER_KEYS, 'no clients for a CLIENT');
    const theirs = await client.client.get(`/api/customers/${other.id}`);
    assert.deepEqual([theirs.status, theirs.body], [404, { error: 'Customer not found' }]);
    // ADMIN and POC see the attached CLIENTs (id, name, email, active).
    for (const who of [admin, poc]) {
      const detail = await who.client.get(`/api/customers/${own.id}`);
      assert.deepEqual(detail.body.clients, [{ id: client.user.id, name: client.user.name, email: client.user.email, active: true }]);
    }
  });
});

describe('a user’s customer', () => {
  test('set by an ADMIN with PATCH /api/team/:id, shown by GET /api/team/:id and GET /api/account, never in GET /api/team', async () => {
    const c = await createCustomer(admin);
    const member = await svc.signIn('CLIENT');
    const set = await admin.client.patch(`/api/team/${member.user.id}`, { customerId: c.id });
    assert.deepEqual([set.status, set.body.customerId], [200, c.id]);
    assert.equal((await admin.client.get(`/api/team/${member.user.id}`)).body.customerId, c.id);
    assert.equal((await member.client.get('/api/account')).body.customerId, c.id);
    const team = await admin.client.get('/api/team');
    const listed = team.body.find((u: { id: string }) => u.id === member.user.id);
    assert.deepEqual(Object.keys(listed).sort(), ['active', 'branch', 'createdAt', 'email', 'id', 'location', 'name', 'phone', 'role']);
    const created = await admin.client.post('/api/team', { name: 'New', email: `new-${Date.now()}@example.com`, password: 'x' });
    assert.equal(created.body.customerId, undefined);
    const cleared = await admin.client.patch(`/api/team/${member.user.id}`, { customerId: null });
    assert.deepEqual([cleared.status, cleared.body.customerId], [200, null]);
    assert.equal((await member.client.get('/api/account')).body.customerId, null);
  });

  test('an unknown customer is 400, nothing changed; a non-ADMIN gets 401; GET /api/team/:id of nobody 404', async () => {
    const c = await createCustomer(admin);
    const member = await svc.signIn('CLIENT');
    await admin.client.patch(`/api/team/${member.user.id}`, { customerId: c.id });
    const res = await admin.client.patch(`/api/team/${member.user.id}`, { customerId: '0190a0a0-0000-7000-8000-000000000000' });
    assert.deepEqual([res.status, res.body], [400, { error: 'Customer must be the id of a customer' }]);
    assert.equal((await admin.client.get(`/api/team/${member.user.id}`)).body.customerId, c.id);
    for (const who of [poc, clientUser]) {
      assert.equal((await who.client.patch(`/api/team/${member.user.id}`, { customerId: null })).status, 401);
      assert.equal((await who.client.get(`/api/team/${member.user.id}`)).status, 401);
    }
    assert.equal((await admin.client.get('/api/team/0190a0a0-0000-7000-8000-000000000000')).status, 404);
  });
});

describe('a project’s customer', () => {
  test('set on POST, answered with customerName (detail and list); unknown customer 400, nothing stored', async () => {
    const c = await createCustomer(admin);
    const res = await poc.client.post('/api/projects', { name: 'For a customer', customerId: c.id });
    assert.equal(res.status, 201, res.text);
    assert.deepEqual([res.body.customerId, res.body.customerName], [c.id, c.name]);
    const detail = await poc.client.get(`/api/projects/${res.body.id}`);
    assert.deepEqual([detail.body.customerId, detail.body.customerName], [c.id, c.name]);
    const none = await poc.client.post('/api/projects', { name: 'No customer' });
    assert.deepEqual([none.body.customerId, none.body.customerName], [null, null]);
    const before = (await admin.client.get('/api/projects?limit=200')).body.items.length;
    const bad = await poc.client.post('/api/projects', { name: 'Bad', customerId: '0190a0a0-0000-7000-8000-000000000000' });
    assert.deepEqual([bad.status, bad.body], [400, { error: 'Customer must be the id of a customer' }]);
    assert.equal((await admin.client.get('/api/projects?limit=200')).body.items.length, before);
  });

  test('GET /api/projects?customerId= and q over the customer’s name', async () => {
    const c = await createCustomer(admin, { name: uniqueName('Zebra Crossing Stationers') });
    const mine = await poc.client.post('/api/projects', { name: 'Letterheads', customerId: c.id });
    await poc.client.post('/api/projects', { name: 'Letterheads too' });
    const byCustomer = await admin.client.get(`/api/projects?customerId=${c.id}`);
    assert.deepEqual(byCustomer.body.items.map((p: { id: string }) => p.id), [mine.body.id]);
    const byName = await poc.client.get(`/api/projects?q=${encodeURIComponent('zebra crossing')}`);
    assert.deepEqual(byName.body.items.map((p: { id: string }) => p.id), [mine.body.id]);
  });

  test('changed by the owner’s details edit and an ADMIN’s PATCH; PROJECT_UPDATED records the move; unknown 400; others 403', async () => {
    const [a, b] = [await createCustomer(admin), await createCustomer(admin)];
    const p = (await poc.client.post('/api/projects', { name: 'Moving', customerId: a.id })).body;
    const moved = await poc.client.patch(`/api/projects/${p.id}/details`, { customerId: b.id });
    assert.deepEqual([moved.status, moved.body.customerId, moved.body.customerName], [200, b.id, b.name]);
    const [entry] = await activityOf(admin.client, p.id);
    assert.equal(entry!.action, 'PROJECT_UPDATED');
    assert.deepEqual(entry!.details.changed, ['customerId']);
    assert.deepEqual(entry!.details.customerId, { from: a.id, to: b.id });
    const cleared = await admin.client.patch(`/api/projects/${p.id}`, { customerId: null });
    assert.deepEqual([cleared.status, cleared.body.customerId, cleared.body.customerName], [200, null, null]);
    const bad = await admin.client.patch(`/api/projects/${p.id}`, { customerId: 'nope' });
    assert.deepEqual([bad.status, bad.body], [400, { error: 'Customer must be the id of a customer' }]);
    const byPoc = await poc.client.patch(`/api/projects/${p.id}`, { customerId: a.id });
    assert.equal(byPoc.status, 403);
    assert.equal((await admin.client.get(`/api/projects/${p.id}`)).body.customerId, null);
  });

  test('a CLIENT’s project is always their company’s: customerId is ignored (interface.md, 2026-11-27)', async () => {
    const [own, other] = [await createCustomer(admin), await createCustomer(admin)];
    const client = await svc.signIn('CLIENT');
    await admin.client.patch(`/api/team/${client.user.id}`, { customerId: own.id });
    assert.equal((await admin.client.patch(`/api/customers/${own.id}`, { accountManagerId: admin.user.id })).status, 200);
    const made = await client.client.post('/api/projects', { name: 'By a client' });
    assert.deepEqual([made.status, made.body.customerId], [201, own.id]);
    const elsewhere = await client.client.post('/api/projects', { name: 'For another', customerId: other.id });
    assert.deepEqual([elsewhere.status, elsewhere.body.customerId], [201, own.id]);
    const none = await client.client.post('/api/projects', { name: 'For nobody', customerId: null });
    assert.deepEqual([none.status, none.body.customerId], [201, own.id]);
  });
});
