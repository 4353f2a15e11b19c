/**
 * API tokens (interface.md, additions of 2026-11-24): made, listed and revoked on My account and
 * by ADMINs; `Authorization: Bearer` wherever the session cookie works, the specification's
 * endpoints answering exactly as specified; read tokens refuse every write; revocation,
 * deactivation and expiry at once; last use written at most once a minute; wrong tokens throttled
 * like passwords; tokens never in the log. Then two instances over Redis and PostgreSQL.
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { newId } from '../src/ids.js';
import { eventually } from './helpers/eventually.js';
import { captureLogs } from './helpers/logs.js';
import { assertAnswer, assertIsoUtc } from './helpers/team.js';
import { Client, type TestService, openEventStream, startTestService } from './helpers/service.js';

const TOKEN = /^pos_[0-9A-Za-z]{32,}$/;
const pdf = { data: Buffer.from('%PDF-1.4\n% token test\n%%EOF\n'), filename: 'order.pdf', type: 'application/pdf' };

/** A client that sends `Authorization: Bearer <token>` and no cookie. */
function bearer(url: string, token: string): Client {
  const client = new Client(url);
  const send = client.request.bind(client);
  client.request = (method, path, opts = {}) => send(method, path, { ...opts, headers: { authorization: `Bearer ${token}`, ...opts.headers } });
  return client;
}

/** A new token of the signed-in client's user, over HTTP. */
async function makeToken(client: Client, scope: 'read' | 'write', extra: Record<string, unknown> = {}): Promise<{ id: string; token: string }> {
  const res = await client.post('/api/account/tokens', { name: `${scope} token`, scope, ...extra });
  assert.equal(res.status, 201, res.text);
  return res.body;
}

const rowsOf = async (svc: TestService) => svc.deps.database.db.selectFrom('api_tokens').selectAll().execute();

describe('API tokens, one instance', () => {
  let svc: TestService;
  before(async () => {
    svc = await startTestService({ env: { LOGIN_MAX_FAILURES_PER_ADDRESS: '1000' } });
  });
  after(() => svc?.close());

  test('POST /api/account/tokens: 201 with the token once, only its SHA-256 stored; listed without it; deleted with 204', async () => {
    const { client, user } = await svc.signIn('POC');
    const res = await client.post('/api/account/tokens', { name: '  ERP sync  ', scope: 'write', expiresInDays: 30 });
    assert.equal(res.status, 201, res.text);
    assert.deepEqual(Object.keys(res.body).sort(), ['createdAt', 'expiresAt', 'id', 'lastUsedAt', 'name', 'scope', 'token']);
    assert.equal(res.body.name, 'ERP sync');
    assert.equal(res.body.scope, 'write');
    assert.equal(res.body.lastUsedAt, null);
    assert.match(res.body.token, TOKEN);
    assertIsoUtc(res.body.createdAt);
    assert.equal(Date.parse(res.body.expiresAt) - Date.parse(res.body.createdAt), 30 * 86_400_000);

    const [row] = (await rowsOf(svc)).filter((r) => r.id === res.body.id);
    assert.ok(row);
    assert.equal(row.user_id, user.id);
    assert.equal(row.token_hash, createHash('sha256').update(res.body.token).digest('base64url'));
    assert.ok(!JSON.stringify(row).includes(res.body.token), 'the token itself is not stored');

    const never = await client.post('/api/account/tokens', { name: 'CI', scope: 'read' });
    assert.equal(never.status, 201);
    assert.equal(never.body.expiresAt, null);
    assert.notEqual(never.body.token, res.body.token);

    const list = await client.get('/api/account/tokens');
    assert.equal(list.status, 200);
    assert.deepEqual(
      list.body.map((t: { id: string }) => t.id),
      [never.body.id, res.body.id],
      'newest first',
    );
    assert.ok(!list.text.includes('pos_'), 'the list never carries a token');
    const { token: _t, ...listed } = never.body;
    assert.deepEqual(list.body[0], listed);

    assertAnswer(await client.request('DELETE', `/api/account/tokens/${never.body.id}`), 204, undefined);
    assert.deepEqual(
      (await client.get('/api/account/tokens')).body.map((t: { id: string }) => t.id),
      [res.body.id],
    );
    assertAnswer(await client.request('DELETE', `/api/account/tokens/${never.body.id}`), 404, { error: 'Token not found' });
  });

  test('bad input: a clear 400 and nothing stored; no session 401', async () => {
    const { client } = await svc.signIn('CLIENT');
    const before = (await rowsOf(svc)).length;
    const cases: [unknown, RegExp][] = [
      [{ scope: 'read' }, /name/i],
      [{ name: '   ', scope: 'read' }, /^Name is required$/],
      [{ name: 'x'.repeat(101), scope: 'read' }, /^Name must be at most 100 characters$/],
      [{ name: 'CI' }, /scope/i],
      [{ name: 'CI', scope: 'admin' }, /scope/i],
      [{ name: 'CI', scope: 'read', expiresInDays: 0 }, /^Expires in days must be a whole number from 1 to 3650$/],
      [{ name: 'CI', scope: 'read', expiresInDays: 3651 }, /^Expires in days must be a whole number from 1 to 3650$/],
      [{ name: 'CI', scope: 'read', expiresInDays: 2.5 }, /expiresInDays|Expires in days/],
      [{ name: 'CI', scope: 'read', expiresInDays: '30' }, /expiresInDays|Expires in days/],
      [{ name: 'CI', scope: 'read', userId: 'someone' }, /userId/],
      [[], /./],
    ];
    for (const [body, message] of cases) {
      const res = await client.post('/api/account/tokens', body);
      assert.equal(res.status, 400, `${JSON.stringify(body)}: ${res.text}`);
      assert.deepEqual(Object.keys(res.body), ['error']);
      assert.match(res.body.error, message, JSON.stringify(body));
    }
    assert.equal((await rowsOf(svc)).length, before, 'nothing stored');
    for (const [method, path] of [
      ['GET', '/api/account/tokens'],
      ['POST', '/api/account/tokens'],
      ['DELETE', `/api/account/tokens/${newId()}`],
      ['GET', '/api/tokens'],
      ['DELETE', `/api/tokens/${newId()}`],
    ] as const) {
      assertAnswer(await svc.anonymous.request(method, path, { json: method === 'POST' ? { name: 'x', scope: 'read' } : undefined }), 401, { error: 'Unauthorized' }, `${method} ${path}`);
    }
  });

  test('role rules: one’s own tokens only (another’s id 404); ADMIN lists and revokes everyone’s; others 401 there', async () => {
    const admin = await svc.signIn('ADMIN');
    const poc = await svc.signIn('POC', { name: 'Token Owner' });
    const other = await svc.signIn('CLIENT');
    const pocToken = await makeToken(poc.client, 'read');
    const otherToken = await makeToken(other.client, 'write');

    assertAnswer(await other.client.request('DELETE', `/api/account/tokens/${pocToken.id}`), 404, { error: 'Token not found' });
    assert.equal((await bearer(svc.url, pocToken.token).get('/api/auth/session')).status, 200, 'still works');
    assert.ok(!(await other.client.get('/api/account/tokens')).body.some((t: { id: string }) => t.id === pocToken.id));

    for (const client of [poc.client, other.client, bearer(svc.url, otherToken.token)]) {
      assertAnswer(await client.get('/api/tokens'), 401, { error: 'Unauthorized' });
      assertAnswer(await client.request('DELETE', `/api/tokens/${pocToken.id}`), 401, { error: 'Unauthorized' });
    }

    const all = await admin.client.get('/api/tokens');
    assert.equal(all.status, 200);
    const listed = all.body.find((t: { id: string }) => t.id === pocToken.id);
    assert.deepEqual(Object.keys(listed).sort(), ['createdAt', 'expiresAt', 'id', 'lastUsedAt', 'name', 'scope', 'userId', 'userName']);
    assert.equal(listed.userId, poc.user.id);
    assert.equal(listed.userName, 'Token Owner');
    assert.ok(!all.text.includes('pos_'));

    assertAnswer(await admin.client.request('DELETE', `/api/tokens/${pocToken.id}`), 204, undefined);
    assertAnswer(await bearer(svc.url, pocToken.token).get('/api/auth/session'), 401, { error: 'Unauthorized' });
    assertAnswer(await admin.client.request('DELETE', `/api/tokens/${pocToken.id}`), 404, { error: 'Token not found' });
    assert.ok(!(await admin.client.get('/api/tokens')).body.some((t: { id: string }) => t.id === pocToken.id), 'revoked ones are not listed');
  });

  test('a token is made only with a session: a request made with a token gets 403 and nothing is stored', async () => {
    const { client } = await svc.signIn('ADMIN');
    const { token } = await makeToken(client, 'write');
    const before = (await rowsOf(svc)).length;
    assertAnswer(await bearer(svc.url, token).post('/api/account/tokens', { name: 'child', scope: 'write' }), 403, {
      error: 'API tokens can be created only when signed in, not with a token',
    });
    assert.equal((await rowsOf(svc)).length, before);
  });

  test('the specification’s endpoints with Bearer: exactly the specified answers', async () => {
    const admin = await svc.signIn('ADMIN');
    const poc = await svc.signIn('POC');
    const adminWrite = bearer(svc.url, (await makeToken(admin.client, 'write')).token);
    const pocWrite = bearer(svc.url, (await makeToken(poc.client, 'write')).token);
    const ready = await svc.createProject(poc.user.id, { status: 'APPROVED', piStatus: 'VERIFIED' });
    const notMine = await svc.createProject(admin.user.id, { status: 'APPROVED', piStatus: 'VERIFIED' });

    const up = await pocWrite.upload([['projectId', ready.id], ['fileType', 'PO'], ['file', pdf]]);
    assert.equal(up.status, 201, up.text);
    assert.deepEqual(Object.keys(up.body).sort(), ['filename', 'id', 'size', 'url']);
    assert.equal(up.body.filename, 'order.pdf');
    assert.equal(up.body.size, pdf.data.length);
    const file = await svc.deps.store.files.findById(up.body.id);
    assert.equal(file?.uploadedById, poc.user.id, 'uploaded as the token’s user');

    assertAnswer(await pocWrite.upload([['projectId', notMine.id], ['fileType', 'PO'], ['file', pdf]]), 403, { error: 'You can only upload files to your own projects' });
    assertAnswer(await pocWrite.upload([['projectId', ready.id], ['fileType', 'NOPE'], ['file', pdf]]), 400, { error: 'Invalid fileType' });
    assertAnswer(await pocWrite.upload([['projectId', newId()], ['fileType', 'PO'], ['file', pdf]]), 404, { error: 'Project not found' });
    assertAnswer(await pocWrite.upload([['projectId', ready.id]]), 400, { error: 'file, projectId and fileType are required' });
    assertAnswer(await bearer(svc.url, `pos_${'x'.repeat(40)}`).upload([['projectId', ready.id], ['fileType', 'PO'], ['file', pdf]]), 401, { error: 'Unauthorized' });

    // Team: a non-admin's token is the specified 401, not 403.
    assertAnswer(await pocWrite.get('/api/team'), 401, { error: 'Unauthorized' });
    assertAnswer(await pocWrite.post('/api/team', { name: 'N', email: `n-${newId()}@example.com`, password: 'p' }), 401, { error: 'Unauthorized' });
    const viaToken = await adminWrite.get('/api/team');
    const viaCookie = await admin.client.get('/api/team');
    assert.equal(viaToken.status, 200);
    assert.deepEqual(viaToken.body, viaCookie.body, 'the same array');
    const created = await adminWrite.post('/api/team', { name: 'By token', email: `by-token-${newId()}@example.com`, password: 'p' });
    assert.equal(created.status, 201, created.text);
    assert.deepEqual(Object.keys(created.body).sort(), ['active', 'branch', 'createdAt', 'email', 'id', 'location', 'name', 'phone', 'role', 'updatedAt']);
    assertAnswer(await adminWrite.post('/api/team', { name: 'By token', email: created.body.email, password: 'p' }), 409, { error: 'Email already exists' });
    assertAnswer(await adminWrite.post('/api/team', { name: '', email: 'x@example.com', password: 'p' }), 400, { error: 'Name, email and password are required' });
    const patched = await adminWrite.patch(`/api/team/${created.body.id}`, { phone: '12345' });
    assert.equal(patched.status, 200, patched.text);
  });

  test('Bearer requests skip the cross-origin check (a cookie’s would be refused); Bearer wins over a cookie', async () => {
    const admin = await svc.signIn('ADMIN');
    const { token } = await makeToken(admin.client, 'write');
    const evil = { origin: 'https://evil.example', 'sec-fetch-site': 'cross-site' };
    const cookieRes = await admin.client.request('POST', '/api/projects', { json: { name: 'from afar' }, headers: evil });
    assertAnswer(cookieRes, 403, { error: 'Cross-origin request refused' });
    const tokenRes = await bearer(svc.url, token).request('POST', '/api/projects', { json: { name: 'from a script' }, headers: evil });
    assert.equal(tokenRes.status, 201, tokenRes.text);
    // A wrong Bearer with a good cookie: the Bearer decides.
    assertAnswer(await admin.client.get('/api/auth/session', { authorization: `Bearer pos_${'y'.repeat(40)}` }), 401, { error: 'Unauthorized' });
    const session = await bearer(svc.url, token).get('/api/auth/session');
    assert.equal(session.status, 200);
    assert.equal(session.body.user.id, admin.user.id);
    assert.equal(session.body.expiresAt, null, 'a token without expiry');
    assert.equal(session.headers.get('set-cookie'), null, 'no cookie for a token');
  });

  test('a read token refuses every method but GET and HEAD on every route that takes a session, and nothing changes', async () => {
    const admin = await svc.signIn('ADMIN');
    const read = bearer(svc.url, (await makeToken(admin.client, 'read')).token);
    const project = await svc.createProject(admin.user.id, { status: 'APPROVED', piStatus: 'VERIFIED' });
    const doc = (await (await fetch(`${svc.url}/api/openapi.json`)).json()) as { paths: Record<string, Record<string, { security?: Record<string, unknown>[] }>> };
    const writes: [string, string][] = [];
    for (const [path, operations] of Object.entries(doc.paths)) {
      for (const [method, operation] of Object.entries(operations)) {
        if (['get', 'head'].includes(method) || !operation.security?.some((s) => 'bearerAuth' in s)) continue;
        writes.push([method.toUpperCase(), path.replace(/\{[^}]+\}/g, project.id)]);
      }
    }
    for (const expected of ['POST /api/upload', 'POST /api/team', 'PATCH /api/team/', 'POST /api/projects', 'DELETE /api/account/tokens/', 'POST /api/resumable-uploads']) {
      assert.ok(writes.some(([m, p]) => `${m} ${p}`.startsWith(expected)), `${expected} is among the routes checked`);
    }
    const before = { projects: await svc.deps.database.db.selectFrom('projects').selectAll().execute(), tokens: await rowsOf(svc) };
    for (const [method, path] of writes) {
      const res = await read.request(method, path, { json: path === '/api/upload' ? undefined : {}, headers: path.startsWith('/api/resumable-uploads') ? { 'tus-resumable': '1.0.0', 'upload-length': '10' } : {} });
      assertAnswer(res, 403, { error: 'This token is read-only' }, `${method} ${path}`);
    }
    const up = await read.upload([['projectId', project.id], ['fileType', 'PO'], ['file', pdf]]);
    assertAnswer(up, 403, { error: 'This token is read-only' }, 'a real upload');
    assert.deepEqual(await svc.deps.database.db.selectFrom('projects').selectAll().execute(), before.projects, 'nothing changed');
    assert.deepEqual((await rowsOf(svc)).map((r) => r.id), before.tokens.map((r) => r.id));
    assert.equal((await read.get('/api/team')).status, 200, 'reads work');
    assert.equal((await read.get(`/api/projects/${project.id}`)).status, 200);
    assert.equal((await read.request('HEAD', '/api/account/tokens')).status, 200);
  });

  test('revocation ends the token and its open stream at once; deactivation ends all of the user’s tokens for good', async () => {
    const admin = await svc.signIn('ADMIN');
    const poc = await svc.signIn('POC');
    const first = await makeToken(poc.client, 'read');
    const second = await makeToken(poc.client, 'write');
    const streamClient = new Client(svc.url);
    const stream = await openEventStream(streamClient, '', { authorization: `Bearer ${first.token}` });
    const other = await openEventStream(streamClient, '', { authorization: `Bearer ${second.token}` });
    try {
      const started = Date.now();
      assertAnswer(await poc.client.request('DELETE', `/api/account/tokens/${first.id}`), 204, undefined);
      assert.deepEqual((await stream.end(2000)).at(-1), { id: '', event: 'session-ended', data: { reason: 'signed-out' } });
      assert.ok(Date.now() - started < 1000);
      assertAnswer(await bearer(svc.url, first.token).get('/api/projects'), 401, { error: 'Unauthorized' });
      assert.equal((await bearer(svc.url, second.token).get('/api/projects')).status, 200, 'the other token still works');

      // A password change leaves tokens (and their streams) alone.
      assert.equal((await admin.client.patch(`/api/team/${poc.user.id}`, { password: 'a-new-password-1' })).status, 200);
      assert.equal((await bearer(svc.url, second.token).get('/api/projects')).status, 200);

      assert.equal((await admin.client.patch(`/api/team/${poc.user.id}`, { active: false })).status, 200);
      assert.deepEqual((await other.end(2000)).at(-1), { id: '', event: 'session-ended', data: { reason: 'deactivated' } });
      assertAnswer(await bearer(svc.url, second.token).get('/api/projects'), 401, { error: 'Unauthorized' });
      assert.equal((await admin.client.patch(`/api/team/${poc.user.id}`, { active: true })).status, 200);
      assertAnswer(await bearer(svc.url, second.token).get('/api/projects'), 401, { error: 'Unauthorized' }, 'reactivation does not bring tokens back');
    } finally {
      stream.close();
      other.close();
    }
  });

  test('the role is read fresh: a demoted ADMIN’s token gets the team’s 401 at once', async () => {
    const boss = await svc.signIn('ADMIN');
    const admin = await svc.signIn('ADMIN');
    const client = bearer(svc.url, (await makeToken(admin.client, 'read')).token);
    assert.equal((await client.get('/api/team')).status, 200);
    assert.equal((await boss.client.patch(`/api/team/${admin.user.id}`, { role: 'POC' })).status, 200);
    assertAnswer(await client.get('/api/team'), 401, { error: 'Unauthorized' });
  });

  test('expiry follows the service’s clock: the token works until its instant, then 401', async () => {
    const { client } = await svc.signIn('POC');
    const made = await makeToken(client, 'read', { expiresInDays: 1 });
    const createdAt = Date.parse((await client.get('/api/account/tokens')).body.find((t: { id: string }) => t.id === made.id).createdAt);
    const use = bearer(svc.url, made.token);
    try {
      svc.deps.clock = { now: () => new Date(createdAt + 86_400_000 - 1000) };
      assert.equal((await use.get('/api/projects')).status, 200);
      svc.deps.clock = { now: () => new Date(createdAt + 86_400_000) };
      assertAnswer(await use.get('/api/projects'), 401, { error: 'Unauthorized' });
      assert.ok((await client.get('/api/account/tokens')).body.some((t: { id: string }) => t.id === made.id), 'an expired token stays listed');
    } finally {
      svc.deps.clock = { now: () => new Date() };
    }
  });

  test('last use is written at most once a minute per token, not per request', async () => {
    const { client } = await svc.signIn('POC');
    const made = await makeToken(client, 'read');
    const use = bearer(svc.url, made.token);
    const lastUse = async () => (await svc.deps.database.db.selectFrom('api_tokens').select('last_used_at').where('id', '=', made.id).executeTakeFirstOrThrow()).last_used_at;
    const t0 = Date.parse('2030-01-01T00:00:00.000Z');
    try {
      svc.deps.clock = { now: () => new Date(t0) };
      assert.equal((await use.get('/api/projects')).status, 200);
      await eventually('the first use is recorded', async () => (await lastUse()) === new Date(t0).toISOString());
      for (const later of [1_000, 30_000, 59_999]) {
        svc.deps.clock = { now: () => new Date(t0 + later) };
        for (let i = 0; i < 5; i++) assert.equal((await use.get('/api/projects')).status, 200);
      }
      await new Promise((r) => setTimeout(r, 200));
      assert.equal(await lastUse(), new Date(t0).toISOString(), 'no write within the minute');
      svc.deps.clock = { now: () => new Date(t0 + 60_000) };
      assert.equal((await use.get('/api/projects')).status, 200);
      await eventually('a use a minute later is recorded', async () => (await lastUse()) === new Date(t0 + 60_000).toISOString());
      const listed = (await client.get('/api/account/tokens')).body.find((t: { id: string }) => t.id === made.id);
      assert.equal(listed.lastUsedAt, new Date(t0 + 60_000).toISOString());
    } finally {
      svc.deps.clock = { now: () => new Date() };
    }
  });

  test('the CLI’s create-token token authenticates (cli.test.ts runs the command itself)', async () => {
    const { user } = await svc.signIn('POC');
    const { createApiToken } = await import('../src/actions/api-tokens.js');
    const { secret } = await createApiToken(svc.deps, user, { name: 'cli', scope: 'read' });
    assert.equal((await bearer(svc.url, secret).get('/api/auth/session')).body.user.id, user.id);
  });
});

describe('API tokens: throttling and logs', () => {
  test('wrong tokens count per address like wrong passwords: past the limit 429 with Retry-After, the right token too; right tokens at once all pass', async () => {
    const logs = captureLogs('debug');
    const svc = await startTestService({ env: { LOGIN_MAX_FAILURES_PER_ADDRESS: '3', LOG_LEVEL: 'debug' }, logger: logs.logger });
    try {
      const { client } = await svc.signIn('ADMIN');
      const made = await makeToken(client, 'write');
      const right = bearer(svc.url, made.token);
      // Fifty right ones at once: none refused.
      const together = await Promise.all(Array.from({ length: 50 }, () => right.get('/api/auth/session')));
      assert.deepEqual([...new Set(together.map((r) => r.status))], [200]);
      // A revoked token is a real one: 401, not counted.
      const revoked = await makeToken(client, 'read');
      assert.equal((await client.request('DELETE', `/api/account/tokens/${revoked.id}`)).status, 204);
      for (let i = 0; i < 5; i++) assertAnswer(await bearer(svc.url, revoked.token).get('/api/projects'), 401, { error: 'Unauthorized' });
      assert.equal((await right.get('/api/projects')).status, 200);

      const wrong = await Promise.all(Array.from({ length: 5 }, (_, i) => bearer(svc.url, `pos_${String(i).repeat(40)}`).get('/api/projects')));
      assert.deepEqual(
        wrong.map((r) => r.status).sort(),
        [401, 401, 401, 429, 429],
      );
      const refused = await right.get('/api/projects');
      assert.equal(refused.status, 429);
      assert.deepEqual(refused.body, { error: 'Too many failed token attempts, try again later' });
      assert.ok(Number(refused.headers.get('retry-after')) > 0);
      assert.equal((await client.get('/api/projects')).status, 200, 'the cookie session is not throttled by tokens');

      const all = logs.text.join('\n');
      assert.ok(!all.includes(made.token) && !all.includes(revoked.token), 'no token in the log');
      assert.ok(!all.includes('pos_0000'), 'nor a wrong one');
      assert.ok(logs.lines.some((l) => l.msg === 'incoming request'), 'requests were logged');
    } finally {
      await svc.close();
    }
  });

  test('the logger redacts the Authorization header wherever a request is logged with its headers', async () => {
    const logs = captureLogs('info');
    const token = `pos_${'Z'.repeat(40)}`;
    logs.logger.info({ req: { headers: { authorization: `Bearer ${token}` } } }, 'a request with its headers');
    assert.ok(!logs.text.join('\n').includes(token));
    // The request serializer (log-redaction.ts) writes no headers at all; redaction stays as a second guard.
    assert.match(logs.text[0]!, /a request with its headers/);
    assert.doesNotMatch(logs.text[0]!, /Bearer/);
  });
});

const REDIS_URL = process.env.REDIS_URL;
const PG_URL = process.env.TEST_DATABASE_URL;
const noPair = !REDIS_URL || !PG_URL ? 'REDIS_URL and TEST_DATABASE_URL are needed for two instances' : false;

describe('API tokens on two instances (PostgreSQL + Redis)', { skip: noPair }, () => {
  let a: TestService;
  let b: TestService;
  before(async () => {
    const env = { REALTIME_DRIVER: 'redis', REDIS_URL: REDIS_URL!, REDIS_CHANNEL_PREFIX: `test-${newId()}` };
    a = await startTestService({ env, postgresUrl: PG_URL });
    b = await startTestService({ env, sharedDatabase: a.deps.config.database });
  });
  after(async () => {
    await b?.close();
    await a?.close();
  });

  test('a token made on A works on B; revoked on A, it and its stream on B end at once; deactivation on A ends B’s', async () => {
    const admin = await a.signIn('ADMIN');
    const poc = await a.signIn('POC');
    const first = await makeToken(poc.client, 'read');
    const second = await makeToken(poc.client, 'write');
    assert.equal((await bearer(b.url, first.token).get('/api/projects')).status, 200);
    const onB = new Client(b.url);
    const stream1 = await openEventStream(onB, '', { authorization: `Bearer ${first.token}` });
    const stream2 = await openEventStream(onB, '', { authorization: `Bearer ${second.token}` });
    try {
      let started = Date.now();
      assert.equal((await poc.client.request('DELETE', `/api/account/tokens/${first.id}`)).status, 204);
      assert.deepEqual((await stream1.end(1500)).at(-1), { id: '', event: 'session-ended', data: { reason: 'signed-out' } });
      assert.ok(Date.now() - started < 1000, `ended ${Date.now() - started} ms after`);
      assertAnswer(await bearer(b.url, first.token).get('/api/projects'), 401, { error: 'Unauthorized' });

      started = Date.now();
      assert.equal((await admin.client.patch(`/api/team/${poc.user.id}`, { active: false })).status, 200);
      assert.deepEqual((await stream2.end(1500)).at(-1), { id: '', event: 'session-ended', data: { reason: 'deactivated' } });
      assert.ok(Date.now() - started < 1000);
      assertAnswer(await bearer(b.url, second.token).get('/api/projects'), 401, { error: 'Unauthorized' });
    } finally {
      stream1.close();
      stream2.close();
    }
  });
});
