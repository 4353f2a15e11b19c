import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { nowIso } from '../src/deps.js';
import { labelOf } from '../src/domain/labels.js';
import type { Role } from '../src/domain/model.js';
import { Client, type TestService, startTestService } from './helpers/service.js';
import { assertAnswer, assertIsoUtc, rawJson, sideEffectsOf, storedHash, uniqueEmail } from './helpers/team.js';

/** GET and POST /api/team (specification 4.2, 4.3, 5, 7, 8) and PATCH /api/team/:id, over real HTTP. */

const UNAUTHORIZED = { error: 'Unauthorized' };
const FIELDS_REQUIRED = { error: 'Name, email and password are required' };
const EMAIL_EXISTS = { error: 'Email already exists' };
const LAST_ADMIN = { error: 'The last active admin cannot be demoted or deactivated' };
const INVALID_LOGIN = { error: 'Invalid email or password' };

const LIST_KEYS = ['active', 'branch', 'createdAt', 'email', 'id', 'location', 'name', 'phone', 'role'];
const CREATED_KEYS = [...LIST_KEYS, 'updatedAt'].sort();

let svc: TestService;
let admin: Client;
let poc: Client;
let client: Client;

before(async () => {
  svc = await startTestService();
  [admin, poc, client] = await Promise.all([svc.signIn('ADMIN'), svc.signIn('POC'), svc.signIn('CLIENT')]).then((r) => r.map((s) => s.client));
});
after(() => svc.close());

const usersWithEmail = async (email: string) =>
  (await svc.deps.database.db.selectFrom('users').select('id').where('email_key', '=', email.toLowerCase()).execute()).length;

/** POST /api/team as the admin; asserts 201 and returns the body. */
async function create(body: Record<string, unknown>) {
  const res = await admin.post('/api/team', body);
  assert.equal(res.status, 201, res.text);
  return res.body;
}

const validBody = (extra: Record<string, unknown> = {}) => ({ name: 'Member', email: uniqueEmail(), password: 'correct horse battery', ...extra });

describe('GET /api/team', () => {
  test('401 Unauthorized without a session, with an unknown cookie, and for POC and CLIENT sessions', async () => {
    assertAnswer(await svc.anonymous.get('/api/team'), 401, UNAUTHORIZED, 'anonymous');
    const stranger = new Client(svc.url);
    stranger.cookie = 'session=not-a-real-token';
    assertAnswer(await stranger.get('/api/team'), 401, UNAUTHORIZED, 'unknown cookie');
    assertAnswer(await poc.get('/api/team'), 401, UNAUTHORIZED, 'POC');
    assertAnswer(await client.get('/api/team'), 401, UNAUTHORIZED, 'CLIENT');
  });

  test('200: every member with exactly the listed fields, newest first, ties by id descending; unset optional fields are null', async () => {
    const full = await create({ name: 'Full Member', email: uniqueEmail('full'), password: 'pw-full-1', phone: '+91 98765 43210', role: 'CLIENT', location: 'Pune', branch: 'West' });
    const bare = await Promise.all([0, 1, 2].map(() => create({ name: 'Bare Member', email: uniqueEmail('bare'), password: 'pw-bare-1' })));

    // Put the four at known times: `full` newest, the three others sharing one timestamp.
    const newest = '2099-01-02T00:00:00.000Z';
    const tied = '2099-01-01T00:00:00.000Z';
    await svc.deps.database.db.updateTable('users').set({ created_at: newest }).where('id', '=', full.id).execute();
    await svc.deps.database.db.updateTable('users').set({ created_at: tied }).where('id', 'in', bare.map((b) => b.id)).execute();

    const res = await admin.get('/api/team');
    assert.equal(res.status, 200, res.text);
    assert.ok(Array.isArray(res.body));
    const list = res.body as Record<string, unknown>[];
    const total = await svc.deps.database.db.selectFrom('users').select('id').execute();
    assert.equal(list.length, total.length, 'every user is listed');

    for (const member of list) {
      assert.deepEqual(Object.keys(member).sort(), LIST_KEYS, `keys of ${JSON.stringify(member)}`);
      assertIsoUtc(member.createdAt, 'createdAt');
    }
    for (let i = 1; i < list.length; i++) {
      const a = list[i - 1]!;
      const b = list[i]!;
      const ta = Date.parse(a.createdAt as string);
      const tb = Date.parse(b.createdAt as string);
      assert.ok(ta > tb || (ta === tb && (a.id as string) > (b.id as string)), `order at ${i}: ${a.createdAt}/${a.id} before ${b.createdAt}/${b.id}`);
    }

    const tiedIds = bare.map((b) => b.id as string).sort().reverse();
    assert.deepEqual(list.slice(0, 4).map((m) => m.id), [full.id, ...tiedIds]);
    assert.deepEqual(list[0], {
      id: full.id,
      name: 'Full Member',
      email: full.email,
      phone: '+91 98765 43210',
      role: 'CLIENT',
      location: 'Pune',
      branch: 'West',
      active: true,
      createdAt: newest,
    });
    for (const [i, b] of bare.entries()) {
      assert.deepEqual(
        list.find((m) => m.id === b.id),
        { id: b.id, name: 'Bare Member', email: b.email, phone: null, role: 'POC', location: null, branch: null, active: true, createdAt: tied },
        `bare member ${i}`,
      );
    }
  });

  test('an inactive member is still listed, with active false', async () => {
    const { user } = await svc.createUser({ role: 'POC', active: false });
    const res = await admin.get('/api/team');
    assert.equal(res.status, 200);
    assert.equal((res.body as { id: string; active: boolean }[]).find((m) => m.id === user.id)?.active, false);
  });
});

describe('POST /api/team', () => {
  test('401 Unauthorized without a session and for POC and CLIENT sessions, whatever the body, and nothing is created', async () => {
    for (const [who, c] of [['anonymous', svc.anonymous], ['POC', poc], ['CLIENT', client]] as const) {
      const body = validBody();
      assertAnswer(await c.post('/api/team', body), 401, UNAUTHORIZED, `${who}, valid body`);
      assert.equal(await usersWithEmail(body.email), 0);
      assertAnswer(await rawJson(c, 'POST', '/api/team', '{"name": "x", "email": '), 401, UNAUTHORIZED, `${who}, malformed JSON`);
      assertAnswer(await rawJson(c, 'POST', '/api/team', 'not json at all'), 401, UNAUTHORIZED, `${who}, not JSON`);
      assertAnswer(await c.post('/api/team', {}), 401, UNAUTHORIZED, `${who}, empty object`);
    }
  });

  test('400 when name, email or password is missing, empty, blank or not a string; nothing is created', async () => {
    const bad: [string, unknown][] = [
      ['missing', undefined],
      ['empty', ''],
      ['blank', '   '],
      ['tabs and newlines', '\t\n '],
      ['a number', 42],
      ['zero', 0],
      ['null', null],
      ['true', true],
      ['false', false],
      ['an array', ['x']],
      ['an object', { value: 'x' }],
    ];
    const before = (await svc.deps.database.db.selectFrom('users').select('id').execute()).length;
    for (const field of ['name', 'email', 'password'] as const) {
      for (const [label, value] of bad) {
        const body: Record<string, unknown> = validBody();
        if (value === undefined) delete body[field];
        else body[field] = value;
        assertAnswer(await admin.post('/api/team', body), 400, FIELDS_REQUIRED, `${field} ${label}`);
      }
    }
    for (const body of [{}, [], null, 'a string', 42, { name: 'Only Name' }, { email: uniqueEmail() }, { password: 'pw' }]) {
      assertAnswer(await admin.post('/api/team', body), 400, FIELDS_REQUIRED, `body ${JSON.stringify(body)}`);
    }
    // No body at all (no content type) is missing fields too.
    assertAnswer(await admin.request('POST', '/api/team'), 400, FIELDS_REQUIRED, 'no body');
    assert.equal((await svc.deps.database.db.selectFrom('users').select('id').execute()).length, before);
  });

  test('the required-fields check comes before the email check', async () => {
    const taken = await create(validBody());
    assertAnswer(await admin.post('/api/team', { name: 'Again', email: taken.email }), 400, FIELDS_REQUIRED);
  });

  test('409 Email already exists, also when the email differs only in case', async () => {
    const email = uniqueEmail('dup');
    await create({ name: 'First', email, password: 'pw-first-1' });
    assertAnswer(await admin.post('/api/team', { name: 'Second', email, password: 'pw-second-1' }), 409, EMAIL_EXISTS, 'same email');
    assertAnswer(await admin.post('/api/team', { name: 'Third', email: email.toUpperCase(), password: 'pw-third-1' }), 409, EMAIL_EXISTS, 'upper case');
    const mixed = email.replace(/^./, (c) => c.toUpperCase()).replace('example', 'Example');
    assertAnswer(await admin.post('/api/team', { name: 'Fourth', email: mixed, password: 'pw-fourth-1' }), 409, EMAIL_EXISTS, 'mixed case');
    assert.equal(await usersWithEmail(email), 1);
  });

  test('two simultaneous creations with one email: exactly one 201 and one 409, never 500', async () => {
    for (let round = 0; round < 4; round++) {
      const email = uniqueEmail('race');
      const second = round % 2 ? email.toUpperCase() : email;
      const results = await Promise.all([
        admin.post('/api/team', { name: 'Racer A', email, password: 'pw-race-a' }),
        admin.post('/api/team', { name: 'Racer B', email: second, password: 'pw-race-b' }),
      ]);
      const statuses = results.map((r) => r.status).sort();
      assert.deepEqual(statuses, [201, 409], `round ${round}: ${results.map((r) => r.text).join(' | ')}`);
      assert.deepEqual(results.find((r) => r.status === 409)!.body, EMAIL_EXISTS);
      assert.equal(await usersWithEmail(email), 1, `round ${round}: one user stored`);
    }
  });

  test('a malformed JSON body from an admin: 500 with the parser message, nothing created', async () => {
    const before = (await svc.deps.database.db.selectFrom('users').select('id').execute()).length;
    for (const text of ['{"name": "x", "email": ', 'not json at all', '{name: "x"}', '{"a":1}}']) {
      const res = await rawJson(admin, 'POST', '/api/team', text);
      assert.equal(res.status, 500, `${text}: ${res.text}`);
      assert.deepEqual(Object.keys(res.body ?? {}), ['error'], res.text);
      assert.equal(typeof res.body.error, 'string');
      assert.ok(res.body.error.length > 0, 'the parser message is not empty');
      assert.notEqual(res.body.error, 'Failed to create team member', 'the parser message, not the default');
    }
    assert.equal((await svc.deps.database.db.selectFrom('users').select('id').execute()).length, before);
  });

  test('a body refused before the route (too large 413, unsupported type 415, prototype keys or nesting 400) is not the 500 of a failure', async () => {
    const before = (await svc.deps.database.db.selectFrom('users').select('id').execute()).length;
    const email = uniqueEmail('refused');
    const cases: [string, Promise<Awaited<ReturnType<Client['request']>>>, number, unknown][] = [
      ['a body over the 1 MiB limit', admin.post('/api/team', validBody({ email, location: 'x'.repeat(1_100_000) })), 413, { error: 'Request body is too large' }],
      ['application/xml', admin.request('POST', '/api/team', { body: '<member/>', headers: { 'content-type': 'application/xml' } }), 415, { error: 'Unsupported Media Type' }],
      ['a __proto__ key', rawJson(admin, 'POST', '/api/team', `{"name":"P","email":"${email}","password":"pw-proto-1","__proto__":{"role":"ADMIN"}}`), 400, { error: 'Request body must not contain __proto__ or constructor.prototype keys' }],
      ['constructor.prototype', rawJson(admin, 'POST', '/api/team', `{"name":"P","email":"${email}","password":"pw-proto-1","constructor":{"prototype":{}}}`), 400, { error: 'Request body must not contain __proto__ or constructor.prototype keys' }],
      ['nested 10,000 deep', rawJson(admin, 'POST', '/api/team', `{"name":"P","email":"${email}","password":"pw-deep-1","branch":${'['.repeat(10_000)}${']'.repeat(10_000)}}`), 400, { error: 'Request body is nested too deeply' }],
    ];
    for (const [what, answer, status, body] of cases) assertAnswer(await answer, status, body, what);
    assert.equal(await usersWithEmail(email), 0);
    assert.equal((await svc.deps.database.db.selectFrom('users').select('id').execute()).length, before);
    // A non-admin still gets 401 before any of it.
    assertAnswer(await rawJson(poc, 'POST', '/api/team', '{"__proto__":{}}'), 401, UNAUTHORIZED, 'POC, __proto__');
    assertAnswer(await poc.request('POST', '/api/team', { body: '<member/>', headers: { 'content-type': 'application/xml' } }), 401, UNAUTHORIZED, 'POC, xml');
  });

  test('role ADMIN, POC and CLIENT are kept; any other value or none gives POC without an error', async () => {
    const cases: [unknown, Role][] = [
      ['ADMIN', 'ADMIN'],
      ['POC', 'POC'],
      ['CLIENT', 'CLIENT'],
      [undefined, 'POC'],
      ['admin', 'POC'],
      ['client', 'POC'],
      ['SUPERUSER', 'POC'],
      ['', 'POC'],
      [' ADMIN ', 'POC'],
      [42, 'POC'],
      [null, 'POC'],
      [true, 'POC'],
      [['ADMIN'], 'POC'],
      [{ role: 'ADMIN' }, 'POC'],
    ];
    await Promise.all(
      cases.map(async ([given, expected]) => {
        const body: Record<string, unknown> = validBody();
        if (given !== undefined) body.role = given;
        const res = await admin.post('/api/team', body);
        assert.equal(res.status, 201, `role ${JSON.stringify(given)}: ${res.text}`);
        assert.equal(res.body.role, expected, `role ${JSON.stringify(given)}`);
        const stored = await svc.deps.database.db.selectFrom('users').select('role').where('id', '=', res.body.id).executeTakeFirstOrThrow();
        assert.equal(stored.role, expected);
      }),
    );
  });

  test('201 with exactly the created fields, active true, ISO UTC timestamps; bcrypt cost 10; the member can sign in', async () => {
    const email = uniqueEmail('new');
    const password = 'a long and Unusual passphrase 42';
    const started = Date.now();
    const res = await admin.post('/api/team', { name: 'New Member', email, password, phone: '0123', role: 'POC', location: 'Delhi', branch: 'North' });
    assert.equal(res.status, 201, res.text);
    assert.deepEqual(Object.keys(res.body).sort(), CREATED_KEYS);
    assert.equal(typeof res.body.id, 'string');
    assert.ok(res.body.id.length > 0);
    assertIsoUtc(res.body.createdAt, 'createdAt');
    assertIsoUtc(res.body.updatedAt, 'updatedAt');
    assert.deepEqual(res.body, {
      id: res.body.id,
      email,
      name: 'New Member',
      phone: '0123',
      role: 'POC',
      location: 'Delhi',
      branch: 'North',
      active: true,
      createdAt: res.body.createdAt,
      updatedAt: res.body.updatedAt,
    });
    const created = Date.parse(res.body.createdAt);
    assert.ok(created >= started - 1000 && created <= Date.now() + 1000, 'createdAt is now');
    assert.ok(Date.parse(res.body.updatedAt) >= created);

    const hash = await storedHash(svc, res.body.id);
    assert.ok(hash.startsWith('$2'), hash.slice(0, 7));
    assert.match(hash, /^\$2[aby]\$10\$[./A-Za-z0-9]{53}$/, 'bcrypt with cost factor 10');
    assert.ok(!hash.includes(password));

    const member = new Client(svc.url);
    assertAnswer(await member.post('/api/auth/login', { email, password }), 200, { user: { id: res.body.id, name: 'New Member', email, role: 'POC' } });
    assertAnswer(await member.get('/api/auth/session').then((r) => ({ ...r, body: r.body?.user })), 200, { id: res.body.id, name: 'New Member', email, role: 'POC' });

    const listed = (await admin.get('/api/team')).body.find((m: { id: string }) => m.id === res.body.id);
    assert.deepEqual(listed, { id: res.body.id, name: 'New Member', email, phone: '0123', role: 'POC', location: 'Delhi', branch: 'North', active: true, createdAt: res.body.createdAt });
  });

  test('optional fields left out are null in the 201 body', async () => {
    const email = uniqueEmail('bare');
    const res = await admin.post('/api/team', { name: 'Bare', email, password: 'pw-bare-2' });
    assertAnswer(res, 201, {
      id: res.body.id,
      email,
      name: 'Bare',
      phone: null,
      role: 'POC',
      location: null,
      branch: null,
      active: true,
      createdAt: res.body.createdAt,
      updatedAt: res.body.updatedAt,
    });
  });
});

describe('PATCH /api/team/:id', () => {
  test('an admin changes name, phone, role, location, branch and active', async () => {
    const m = await create({ name: 'Before', email: uniqueEmail('patch'), password: 'pw-patch-1' });
    const res = await admin.patch(`/api/team/${m.id}`, { name: 'After', phone: '555', role: 'CLIENT', location: 'Mumbai', branch: 'Central' });
    assert.equal(res.status, 200, res.text);
    assertIsoUtc(res.body.updatedAt, 'updatedAt');
    assert.deepEqual(res.body, {
      id: m.id,
      email: m.email,
      name: 'After',
      phone: '555',
      role: 'CLIENT',
      location: 'Mumbai',
      branch: 'Central',
      active: true,
      createdAt: m.createdAt,
      updatedAt: res.body.updatedAt,
      customerId: null,
    });
    assert.ok(Date.parse(res.body.updatedAt) >= Date.parse(m.updatedAt));

    // Only what is sent changes; null clears an optional field.
    const cleared = await admin.patch(`/api/team/${m.id}`, { phone: null, active: false });
    assertAnswer(cleared, 200, { ...res.body, phone: null, active: false, updatedAt: cleared.body.updatedAt });
    const back = await admin.patch(`/api/team/${m.id}`, { active: true, role: 'POC' });
    assertAnswer(back, 200, { ...cleared.body, active: true, role: 'POC', updatedAt: back.body.updatedAt });

    const listed = (await admin.get('/api/team')).body.find((u: { id: string }) => u.id === m.id);
    assert.deepEqual(listed, { id: m.id, name: 'After', email: m.email, phone: null, role: 'POC', location: 'Mumbai', branch: 'Central', active: true, createdAt: m.createdAt });
  });

  test('401 Unauthorized for no session, POC and CLIENT; the member is unchanged', async () => {
    const m = await create({ name: 'Untouched', email: uniqueEmail('untouched'), password: 'pw-untouched' });
    for (const [who, c] of [['anonymous', svc.anonymous], ['POC', poc], ['CLIENT', client]] as const) {
      assertAnswer(await c.patch(`/api/team/${m.id}`, { name: 'Hacked', role: 'ADMIN' }), 401, UNAUTHORIZED, who);
    }
    const row = await svc.deps.store.users.findById(m.id);
    assert.equal(row?.name, 'Untouched');
    assert.equal(row?.role, 'POC');
  });

  test('404 for an unknown id', async () => {
    assertAnswer(await admin.patch('/api/team/00000000-0000-7000-8000-000000000000', { name: 'Nobody' }), 404, { error: 'User not found' });
    assertAnswer(await admin.patch('/api/team/no-such-user', { active: false }), 404, { error: 'User not found' });
  });

  test('400 for an invalid role; the member is unchanged', async () => {
    const m = await create({ name: 'Role Check', email: uniqueEmail('role'), password: 'pw-role-1' });
    for (const role of ['SUPERUSER', 'admin', '', 42, null]) {
      assertAnswer(await admin.patch(`/api/team/${m.id}`, { role, name: 'Not Applied' }), 400, { error: 'Role must be one of ADMIN, POC, CLIENT' }, `role ${JSON.stringify(role)}`);
    }
    const after = await svc.deps.store.users.findById(m.id);
    assert.equal(after?.role, 'POC');
    assert.equal(after?.name, 'Role Check');
  });

  test('400 for a field PATCH does not change or a value of the wrong type, never coerced; the member is unchanged', async () => {
    const m = await create({ name: 'Strict Check', email: uniqueEmail('strict'), password: 'pw-strict-1' });
    assertAnswer(await admin.patch(`/api/team/${m.id}`, { createdAt: '2020-01-01T00:00:00.000Z' }), 400, { error: 'createdAt is not a known field' });
    assertAnswer(await admin.patch(`/api/team/${m.id}`, { active: 0 }), 400, { error: 'Active must be true or false' });
    assertAnswer(await admin.patch(`/api/team/${m.id}`, { name: 5 }), 400, { error: 'Name must be text' });
    const after = await svc.deps.store.users.findById(m.id);
    assert.equal(after?.active, true);
    assert.equal(after?.name, 'Strict Check');
    assert.equal(after?.updatedAt, m.updatedAt);
  });

  test('400 for an empty or blank name or password; the member is unchanged', async () => {
    const m = await create({ name: 'Blank Check', email: uniqueEmail('blank'), password: 'pw-blank-1' });
    const hash = await storedHash(svc, m.id);
    for (const change of [{ name: '' }, { name: '   ' }, { password: '' }, { password: '   ' }]) {
      const res = await admin.patch(`/api/team/${m.id}`, change);
      assert.equal(res.status, 400, `${JSON.stringify(change)}: ${res.text}`);
      assert.deepEqual(Object.keys(res.body), ['error']);
      assert.match(res.body.error, new RegExp(`^${labelOf(Object.keys(change)[0]!)} `), res.text);
    }
    assert.equal((await svc.deps.store.users.findById(m.id))?.name, 'Blank Check');
    assert.equal(await storedHash(svc, m.id), hash);
  });

  test('a member’s email can be corrected; it stays unique, case-insensitively (409); they sign in with the new one', async () => {
    const m = await create({ name: 'Mail Change', email: uniqueEmail('mail-old'), password: 'pw-mail-change-1' });
    const taken = await create({ name: 'Taken', email: uniqueEmail('mail-taken'), password: 'pw-mail-taken-1' });
    assertAnswer(await admin.patch(`/api/team/${m.id}`, { email: taken.email.toUpperCase() }), 409, { error: 'Email already exists' });
    assertAnswer(await admin.patch(`/api/team/${m.id}`, { email: '  ' }), 400, { error: 'Email is required' });
    assert.equal((await svc.deps.store.users.findById(m.id))?.email, m.email, 'unchanged');

    const fresh = uniqueEmail('mail-new');
    const res = await admin.patch(`/api/team/${m.id}`, { email: ` ${fresh} ` });
    assert.equal(res.status, 200, res.text);
    assert.equal(res.body.email, fresh);
    // Only the case changes: still theirs, no conflict with themselves.
    assert.equal((await admin.patch(`/api/team/${m.id}`, { email: fresh.toUpperCase() })).status, 200);
    assert.equal((await svc.anonymous.post('/api/auth/login', { email: m.email, password: 'pw-mail-change-1' })).status, 401, 'the old email no longer signs in');
    assert.equal((await svc.anonymous.post('/api/auth/login', { email: fresh, password: 'pw-mail-change-1' })).status, 200);
  });

  test('PATCH bounds text and asks new passwords for 8 characters; POST keeps the specification’s checks', async () => {
    const m = await create({ name: 'Bounds', email: uniqueEmail('bounds'), password: 'pw-bounds-1' });
    const hash = await storedHash(svc, m.id);
    const cases: [object, string][] = [
      [{ password: 'a' }, 'Password must be at least 8 characters'],
      [{ password: '1234567' }, 'Password must be at least 8 characters'],
      [{ password: 'x'.repeat(73) }, 'Password must be at most 72 bytes'],
      [{ name: 'x'.repeat(201) }, 'Name must be at most 200 characters'],
      [{ phone: '9'.repeat(41) }, 'Phone must be at most 40 characters'],
      [{ location: 'x'.repeat(201) }, 'Location must be at most 200 characters'],
      [{ branch: 'x'.repeat(201) }, 'Branch must be at most 200 characters'],
      [{ email: `${'x'.repeat(250)}@example.com` }, 'Email must be at most 254 characters'],
    ];
    for (const [change, error] of cases) assertAnswer(await admin.patch(`/api/team/${m.id}`, change), 400, { error }, JSON.stringify(change).slice(0, 40));
    const after = await svc.deps.store.users.findById(m.id);
    assert.deepEqual([after?.name, after?.phone, after?.updatedAt], ['Bounds', null, m.updatedAt]);
    assert.equal(await storedHash(svc, m.id), hash);
    assert.equal((await admin.patch(`/api/team/${m.id}`, { password: '12345678' })).status, 200);

    // The specification's POST: any non-empty password, and its own messages only.
    const created = await admin.post('/api/team', { name: 'Short Pw', email: uniqueEmail('short-pw'), password: 'a' });
    assert.equal(created.status, 201, created.text);
    assertAnswer(await admin.post('/api/team', { name: '', email: uniqueEmail('x'), password: 'a' }), 400, { error: 'Name, email and password are required' });
  });

  test('a role change takes effect at once on the member’s existing session', async () => {
    const { user, client: member } = await svc.signIn('POC');
    assertAnswer(await member.get('/api/team'), 401, UNAUTHORIZED, 'as POC');
    const promoted = await admin.patch(`/api/team/${user.id}`, { role: 'ADMIN' });
    assert.equal(promoted.status, 200, promoted.text);
    assert.equal(promoted.body.role, 'ADMIN');
    const asAdmin = await member.get('/api/team');
    assert.equal(asAdmin.status, 200, 'the same cookie now lists the team');
    assert.equal((await member.get('/api/auth/session')).body.user.role, 'ADMIN');

    assert.equal((await admin.patch(`/api/team/${user.id}`, { role: 'CLIENT' })).status, 200);
    assertAnswer(await member.get('/api/team'), 401, UNAUTHORIZED, 'demoted to CLIENT');
    assert.equal((await member.get('/api/auth/session')).body.user.role, 'CLIENT');
  });

  test('deactivating ends the member’s sessions and they cannot sign in; reactivating lets them sign in again', async () => {
    const { user, client: member, password } = await svc.signIn('POC');
    const second = await svc.login(user.email, password);
    assert.equal((await member.get('/api/auth/session')).status, 200);

    const res = await admin.patch(`/api/team/${user.id}`, { active: false });
    assert.equal(res.status, 200, res.text);
    assert.equal(res.body.active, false);
    assertAnswer(await member.get('/api/auth/session'), 401, UNAUTHORIZED, 'first session');
    assertAnswer(await second.get('/api/auth/session'), 401, UNAUTHORIZED, 'second session');
    assertAnswer(await member.get('/api/projects'), 401, UNAUTHORIZED, 'any route');
    const rows = await svc.deps.database.db.selectFrom('sessions').select('user_id').where('user_id', '=', user.id).execute();
    assert.equal(rows.length, 0, 'their sessions are deleted');
    assertAnswer(await new Client(svc.url).post('/api/auth/login', { email: user.email, password }), 401, INVALID_LOGIN);

    assert.equal((await admin.patch(`/api/team/${user.id}`, { active: true })).status, 200);
    assertAnswer(await member.get('/api/auth/session'), 401, UNAUTHORIZED, 'the old cookie stays dead');
    const again = await svc.login(user.email, password);
    assert.equal((await again.get('/api/auth/session')).status, 200);
  });

  test('password reset: the old password fails, the new one works (bcrypt cost 10), old sessions end', async () => {
    const { user, client: member, password } = await svc.signIn('CLIENT');
    const newPassword = 'brand new secret 9';
    const res = await admin.patch(`/api/team/${user.id}`, { password: newPassword });
    assert.equal(res.status, 200, res.text);
    assert.deepEqual(Object.keys(res.body).sort(), [...CREATED_KEYS, 'customerId'].sort(), 'PATCH answers the member with their customer');
    assert.match(await storedHash(svc, user.id), /^\$2[aby]\$10\$/);

    assertAnswer(await new Client(svc.url).post('/api/auth/login', { email: user.email, password }), 401, INVALID_LOGIN, 'old password');
    const fresh = new Client(svc.url);
    assertAnswer(await fresh.post('/api/auth/login', { email: user.email, password: newPassword }), 200, {
      user: { id: user.id, name: user.name, email: user.email, role: 'CLIENT' },
    });
    assertAnswer(await member.get('/api/auth/session'), 401, UNAUTHORIZED, 'the session from before the reset');
  });

  describe('the last active admin', () => {
    /** Leaves `keep` as the only active admins (by role change in the database) and returns a function that restores the others. */
    async function onlyActiveAdmins(...keep: string[]) {
      const others = await svc.deps.database.db
        .selectFrom('users')
        .select('id')
        .where('role', '=', 'ADMIN')
        .where('active', '=', true)
        .where('id', 'not in', keep)
        .execute();
      for (const { id } of others) await svc.deps.store.users.update(id, { role: 'POC' }, nowIso());
      return async () => {
        for (const { id } of others) await svc.deps.store.users.update(id, { role: 'ADMIN', active: true }, nowIso());
      };
    }

    test('cannot be demoted or deactivated (409), but can be once another active admin exists', async () => {
      const a = await svc.signIn('ADMIN');
      const restore = await onlyActiveAdmins(a.user.id);
      try {
        // An inactive admin does not count.
        await svc.createUser({ role: 'ADMIN', active: false });
        for (const change of [{ role: 'POC' }, { role: 'CLIENT' }, { active: false }, { role: 'POC', active: false }, { name: 'Renamed', active: false }]) {
          assertAnswer(await a.client.patch(`/api/team/${a.user.id}`, change), 409, LAST_ADMIN, JSON.stringify(change));
        }
        const unchanged = await svc.deps.store.users.findById(a.user.id);
        assert.equal(unchanged?.role, 'ADMIN');
        assert.equal(unchanged?.active, true);
        assert.equal(unchanged?.name, a.user.name, 'a refused change changes nothing');
        // Changes that keep them an active admin are fine.
        assert.equal((await a.client.patch(`/api/team/${a.user.id}`, { role: 'ADMIN', active: true, branch: 'HQ' })).status, 200);

        // Promote someone: now the first admin may step down, and the other becomes the last.
        const b = await svc.signIn('POC');
        assert.equal((await a.client.patch(`/api/team/${b.user.id}`, { role: 'ADMIN' })).status, 200);
        const demoted = await a.client.patch(`/api/team/${a.user.id}`, { role: 'POC' });
        assert.equal(demoted.status, 200, demoted.text);
        assert.equal(demoted.body.role, 'POC');
        assertAnswer(await a.client.get('/api/team'), 401, UNAUTHORIZED, 'the demoted admin');
        assertAnswer(await b.client.patch(`/api/team/${b.user.id}`, { active: false }), 409, LAST_ADMIN, 'b is now the last');

        // b promotes a back; then b may be deactivated.
        assert.equal((await b.client.patch(`/api/team/${a.user.id}`, { role: 'ADMIN' })).status, 200);
        const off = await a.client.patch(`/api/team/${b.user.id}`, { active: false });
        assert.equal(off.status, 200, off.text);
        assert.equal(off.body.active, false);
        assertAnswer(await b.client.get('/api/team'), 401, UNAUTHORIZED, 'the deactivated admin');
      } finally {
        await restore();
      }
    });

    test('two admins demoting each other at once never leave no active admin', async () => {
      for (let round = 0; round < 4; round++) {
        const [a, b] = await Promise.all([svc.signIn('ADMIN'), svc.signIn('ADMIN')]);
        const restore = await onlyActiveAdmins(a.user.id, b.user.id);
        try {
          const change = round % 2 ? { active: false } : { role: 'POC' };
          const results = await Promise.all([a.client.patch(`/api/team/${b.user.id}`, change), b.client.patch(`/api/team/${a.user.id}`, change)]);
          const statuses = results.map((r) => r.status).sort();
          assert.ok(
            JSON.stringify(statuses) === '[200,409]' || JSON.stringify(statuses) === '[200,401]',
            `round ${round}: ${results.map((r) => `${r.status} ${r.text}`).join(' | ')}`,
          );
          assert.deepEqual(results.find((r) => r.status !== 200)!.body, statuses[1] === 409 ? LAST_ADMIN : UNAUTHORIZED);
          assert.equal(await svc.deps.store.users.countActiveAdmins(), 1, `round ${round}: one active admin remains`);
        } finally {
          await restore();
        }
      }
    });
  });
});

describe('unexpected failures (specification part 7)', () => {
  /** Replaces one users-repository method for the duration of fn (the routes read deps.store at request time). */
  async function withFailing<K extends 'teamVersion' | 'insert'>(method: K, error: Error, fn: () => Promise<void>) {
    const users = svc.deps.store.users;
    const original = users[method];
    users[method] = (async () => {
      throw error;
    }) as unknown as typeof original;
    try {
      await fn();
    } finally {
      users[method] = original;
    }
  }

  test('GET: 500 Failed to fetch team members, without the failure’s own message', async () => {
    await withFailing('teamVersion', new Error('connection to db-7 lost'), async () => {
      assertAnswer(await admin.get('/api/team'), 500, { error: 'Failed to fetch team members' });
    });
    assert.equal((await admin.get('/api/team')).status, 200);
  });

  test('POST: 500 with the failure message, or Failed to create team member when it has none', async () => {
    await withFailing('insert', new Error('disk is full'), async () => {
      assertAnswer(await admin.post('/api/team', validBody()), 500, { error: 'disk is full' });
    });
    await withFailing('insert', new Error(''), async () => {
      assertAnswer(await admin.post('/api/team', validBody()), 500, { error: 'Failed to create team member' });
    });
    // Authorization and validation still come first.
    await withFailing('insert', new Error('disk is full'), async () => {
      assertAnswer(await poc.post('/api/team', validBody()), 401, UNAUTHORIZED);
      assertAnswer(await admin.post('/api/team', { name: 'x' }), 400, FIELDS_REQUIRED);
    });
    assert.equal((await admin.post('/api/team', validBody())).status, 201);
  });
});

test('no team endpoint writes an activity entry or sends a notification', async () => {
  const effects = await sideEffectsOf(svc, async () => {
    assert.equal((await admin.get('/api/team')).status, 200);
    const created = await admin.post('/api/team', validBody({ role: 'CLIENT', phone: '1' }));
    assert.equal(created.status, 201);
    assert.equal((await admin.post('/api/team', { name: 'Dup', email: created.body.email, password: 'pw' })).status, 409);
    assert.equal((await admin.post('/api/team', { name: 'No email' })).status, 400);
    assert.equal((await poc.post('/api/team', validBody())).status, 401);
    assert.equal((await rawJson(admin, 'POST', '/api/team', '{')).status, 500);
    assert.equal((await admin.patch(`/api/team/${created.body.id}`, { name: 'Changed', role: 'POC', active: false })).status, 200);
    assert.equal((await admin.patch(`/api/team/${created.body.id}`, { active: true, password: 'another pw' })).status, 200);
  });
  assert.equal(effects.activityRows, 0, 'activity entries written');
  assert.deepEqual(effects.notifications, [], 'notifications sent');
});
