import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import http from 'node:http';
import { after, before, describe, test } from 'node:test';
import { Client, type Response, type TestService, assertNoSecrets, startTestService } from './helpers/service.js';
import { assertAnswer, assertIsoUtc, rawJson, uniqueEmail } from './helpers/team.js';

/** Sessions (interface.md): login, session, logout, throttling, the Origin check, unknown routes. */

const UNAUTHORIZED = { error: 'Unauthorized' };
const FIELDS_REQUIRED = { error: 'Email and password are required' };
const INVALID_LOGIN = { error: 'Invalid email or password' };
const TOO_MANY = { error: 'Too many login attempts, try again later' };
const CROSS_ORIGIN = { error: 'Cross-origin request refused' };
const HOUR = 3_600_000;
const WINDOW_SECONDS = 15 * 60; // LOGIN_WINDOW_MINUTES default

let svc: TestService;
/** LOGIN_MAX_FAILURES_PER_EMAIL 3 */
let perEmail: TestService;
/** LOGIN_MAX_FAILURES_PER_ADDRESS 4 */
let perAddress: TestService;

before(async () => {
  [svc, perEmail, perAddress] = await Promise.all([
    startTestService(),
    startTestService({ env: { LOGIN_MAX_FAILURES_PER_EMAIL: '3', LOGIN_MAX_FAILURES_PER_ADDRESS: '1000' } }),
    startTestService({ env: { LOGIN_MAX_FAILURES_PER_EMAIL: '1000', LOGIN_MAX_FAILURES_PER_ADDRESS: '4' } }),
  ]);
});
after(() => Promise.all([svc?.close(), perEmail?.close(), perAddress?.close()]));

/** The session cookie's attributes, from the response's Set-Cookie header. */
function sessionCookie(res: Response): { value: string; attributes: Map<string, string> } {
  const header = res.headers.getSetCookie().find((c) => c.startsWith('session='));
  assert.ok(header, `a session cookie is set: ${res.headers.get('set-cookie')}`);
  const [pair, ...attrs] = header.split(';').map((p) => p.trim());
  const attributes = new Map(attrs.map((a) => [a.split('=')[0]!.toLowerCase(), a.slice(a.indexOf('=') + 1)] as [string, string]));
  return { value: decodeURIComponent(pair!.slice('session='.length)), attributes };
}

const sha256 = (s: string) => createHash('sha256').update(s).digest();

/** A fresh client signed in as a new user of the given service; returns the token too. */
async function signedIn(service: TestService, role: 'ADMIN' | 'POC' | 'CLIENT' = 'POC') {
  const { user, email, password } = await service.createUser({ role, email: uniqueEmail(role.toLowerCase()) });
  const c = new Client(service.url);
  const res = await c.post('/api/auth/login', { email, password });
  assert.equal(res.status, 200, res.text);
  return { user, email, password, client: c, token: sessionCookie(res).value };
}

/** POST /api/auth/login from a chosen local address (the whole of 127.0.0.0/8 is loopback on Linux). */
function loginFrom(service: TestService, localAddress: string, body: unknown): Promise<{ status: number; body: unknown }> {
  return new Promise((resolve, reject) => {
    const req = http.request(
      `${service.url}/api/auth/login`,
      { method: 'POST', localAddress, headers: { 'content-type': 'application/json' } },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (chunk) => (text += chunk));
        res.on('end', () => {
          assertNoSecrets(text);
          resolve({ status: res.statusCode ?? 0, body: JSON.parse(text) });
        });
      },
    );
    req.on('error', reject);
    req.end(JSON.stringify(body));
  });
}

describe('POST /api/auth/login', () => {
  test('a user of an earlier deployment signs in with their $2a$ or $2b$ hash as it was stored', async () => {
    // OpenBSD's published bcrypt test vector for the password "U*U".
    const vector = '$2a$05$CCCCCCCCCCCCCCCCCCCCC.E5YPO9kmyuRGyh0XouQYb4YMJKvyOeW';
    for (const stored of [vector, vector.replace('$2a$', '$2b$')]) {
      const email = uniqueEmail('legacy');
      const { user } = await svc.createUser({ email });
      await svc.deps.database.db.updateTable('users').set({ password_hash: stored }).where('id', '=', user.id).execute();
      assert.equal((await new Client(svc.url).post('/api/auth/login', { email, password: 'U*U' })).status, 200, stored);
      assertAnswer(await new Client(svc.url).post('/api/auth/login', { email, password: 'U*V' }), 401, { error: 'Invalid email or password' });
    }
  });

  test('200 {user: {id, name, email, role}}, email matched case-insensitively', async () => {
    const email = uniqueEmail('login');
    const { user, password } = await svc.createUser({ role: 'CLIENT', email, name: 'Login Person' });
    for (const given of [email, email.toUpperCase(), email.replace(/^./, (c) => c.toUpperCase())]) {
      const c = new Client(svc.url);
      assertAnswer(await c.post('/api/auth/login', { email: given, password }), 200, { user: { id: user.id, name: 'Login Person', email, role: 'CLIENT' } }, given);
      assert.equal((await c.get('/api/auth/session')).status, 200);
    }
  });

  test('Set-Cookie: session, HttpOnly, SameSite=Lax, Path=/, no Secure over http, expiring with the session', async () => {
    const { password, email } = await svc.createUser({ email: uniqueEmail('cookie') });
    const c = new Client(svc.url);
    const res = await c.post('/api/auth/login', { email, password });
    assert.equal(res.status, 200);
    const { value, attributes } = sessionCookie(res);
    assert.ok(value.length >= 32, 'an opaque token of real length');
    assert.ok(attributes.has('httponly'), 'HttpOnly');
    assert.equal(attributes.get('samesite')?.toLowerCase(), 'lax', 'SameSite=Lax');
    assert.equal(attributes.get('path'), '/', 'Path=/');
    assert.ok(!attributes.has('secure'), 'no Secure on http');
    assert.ok(!attributes.has('domain'), 'host-only');

    const session = await c.get('/api/auth/session');
    const expires = attributes.get('expires') ?? '';
    const maxAge = attributes.get('max-age');
    const cookieEnd = maxAge !== undefined ? Date.now() + Number(maxAge) * 1000 : Date.parse(expires);
    assert.ok(Math.abs(cookieEnd - Date.parse(session.body.expiresAt)) < 5000, `cookie ends with the session: ${expires || maxAge} vs ${session.body.expiresAt}`);
  });

  test('the cookie is Secure when PUBLIC_URL is https', async () => {
    const secure = await startTestService({ env: { PUBLIC_URL: 'https://orders.example.com' } });
    try {
      const { email, password } = await secure.createUser({ email: uniqueEmail('secure') });
      const res = await new Client(secure.url).post('/api/auth/login', { email, password });
      assert.equal(res.status, 200, res.text);
      const { attributes } = sessionCookie(res);
      assert.ok(attributes.has('secure'), 'Secure');
      assert.ok(attributes.has('httponly'), 'HttpOnly');
      assert.equal(attributes.get('samesite')?.toLowerCase(), 'lax');
    } finally {
      await secure.close();
    }
  });

  test('two logins give two different tokens', async () => {
    const { email, password } = await svc.createUser({ email: uniqueEmail('twice') });
    const a = await new Client(svc.url).post('/api/auth/login', { email, password });
    const b = await new Client(svc.url).post('/api/auth/login', { email, password });
    assert.notEqual(sessionCookie(a).value, sessionCookie(b).value);
  });

  test('only a SHA-256 hash of the token is stored: the cookie value appears nowhere in the sessions table', async () => {
    const { user, token } = await signedIn(svc);
    const rows = await svc.deps.database.db.selectFrom('sessions').selectAll().execute();
    for (const row of rows) {
      for (const [column, v] of Object.entries(row)) {
        assert.ok(!String(v).includes(token), `the token appears in sessions.${column}`);
      }
    }
    const mine = rows.filter((r) => r.user_id === user.id);
    assert.equal(mine.length, 1);
    const digest = sha256(token);
    const encodings = [digest.toString('hex'), digest.toString('base64'), digest.toString('base64url'), digest.toString('base64').replace(/=+$/, '')];
    assert.ok(encodings.includes(mine[0]!.token_hash), `token_hash ${mine[0]!.token_hash} is the token's SHA-256`);
  });

  test('400 Email and password are required when either is missing or empty', async () => {
    const { email, password } = await svc.createUser({ email: uniqueEmail('fields') });
    const bodies: unknown[] = [
      {},
      { email },
      { password },
      { email: '', password },
      { email, password: '' },
      { email: '', password: '' },
      { email: null, password },
      { email, password: null },
      null,
      [],
    ];
    for (const body of bodies) {
      const c = new Client(svc.url);
      const res = await c.post('/api/auth/login', body);
      assertAnswer(res, 400, FIELDS_REQUIRED, JSON.stringify(body));
      assert.equal(res.headers.getSetCookie().length, 0, 'no cookie');
    }
    assertAnswer(await svc.anonymous.request('POST', '/api/auth/login'), 400, FIELDS_REQUIRED, 'no body');
  });

  test('401 Invalid email or password, the same answer for an unknown email, a wrong password and an inactive user', async () => {
    const active = await svc.createUser({ email: uniqueEmail('known') });
    const inactive = await svc.createUser({ email: uniqueEmail('inactive'), active: false });
    const attempts: [string, unknown][] = [
      ['unknown email', { email: uniqueEmail('nobody'), password: active.password }],
      ['wrong password', { email: active.email, password: `${active.password}x` }],
      ['wrong password, case changed', { email: active.email, password: active.password.toUpperCase() }],
      ['inactive user, right password', { email: inactive.email, password: inactive.password }],
    ];
    for (const [what, body] of attempts) {
      const res = await new Client(svc.url).post('/api/auth/login', body);
      assertAnswer(res, 401, INVALID_LOGIN, what);
      assert.equal(res.headers.getSetCookie().length, 0, `${what}: no cookie`);
    }
    const rows = await svc.deps.database.db.selectFrom('sessions').select('user_id').where('user_id', 'in', [active.user.id, inactive.user.id]).execute();
    assert.equal(rows.length, 0, 'no session was created');
  });
});

describe('GET /api/auth/session', () => {
  test('200 {user, expiresAt, maxUploadBytes} with a session; expiresAt is about SESSION_TTL_HOURS (168) ahead', async () => {
    const { user, client } = await signedIn(svc, 'ADMIN');
    const res = await client.get('/api/auth/session');
    assert.equal(res.status, 200, res.text);
    assertIsoUtc(res.body.expiresAt, 'expiresAt');
    assert.deepEqual(res.body, { user: { id: user.id, name: user.name, email: user.email, role: 'ADMIN' }, expiresAt: res.body.expiresAt, maxUploadBytes: 104_857_600 });
    const ahead = Date.parse(res.body.expiresAt) - Date.now();
    assert.ok(ahead > 167 * HOUR && ahead <= 168 * HOUR + 5000, `expires in ${ahead / HOUR} h`);
  });

  test('401 Unauthorized without a session or with an unknown token', async () => {
    assertAnswer(await svc.anonymous.get('/api/auth/session'), 401, UNAUTHORIZED, 'no cookie');
    for (const cookie of ['session=', 'session=nonsense', `session=${'A'.repeat(43)}`, 'other=value']) {
      const c = new Client(svc.url);
      c.cookie = cookie;
      assertAnswer(await c.get('/api/auth/session'), 401, UNAUTHORIZED, cookie);
    }
  });

  test('the stored hash is not a credential: sending it as the cookie fails', async () => {
    const { user, client } = await signedIn(svc);
    const row = await svc.deps.database.db.selectFrom('sessions').select('token_hash').where('user_id', '=', user.id).executeTakeFirstOrThrow();
    assert.equal((await client.get('/api/auth/session')).status, 200);
    const thief = new Client(svc.url);
    thief.cookie = `session=${encodeURIComponent(row.token_hash)}`;
    assertAnswer(await thief.get('/api/auth/session'), 401, UNAUTHORIZED);
  });
});

describe('POST /api/auth/logout', () => {
  test('204, the cookie is cleared, the session row is gone and the old cookie gets 401; other sessions live on', async () => {
    const { user, client, token, email, password } = await signedIn(svc);
    const other = await svc.login(email, password);
    const oldCookie = client.cookie!;

    const res = await client.request('POST', '/api/auth/logout');
    assert.equal(res.status, 204);
    assert.equal(res.text, '');
    const cleared = res.headers.getSetCookie().find((c) => c.startsWith('session='));
    assert.ok(cleared, 'the cookie is cleared');
    assert.match(cleared, /^session=;/);
    assert.ok(/Max-Age=0/i.test(cleared) || Date.parse(/Expires=([^;]+)/i.exec(cleared)?.[1] ?? '') < Date.now(), cleared);
    assert.match(cleared, /Path=\//);

    const rows = await svc.deps.database.db.selectFrom('sessions').select('token_hash').where('user_id', '=', user.id).execute();
    assert.equal(rows.length, 1, 'only the other session is left');
    assert.ok(!rows.some((r) => r.token_hash === sha256(token).toString('base64url') || r.token_hash === sha256(token).toString('hex')));

    const replay = new Client(svc.url);
    replay.cookie = oldCookie;
    assertAnswer(await replay.get('/api/auth/session'), 401, UNAUTHORIZED, 'the old cookie');
    assertAnswer(await client.get('/api/auth/session'), 401, UNAUTHORIZED, 'the logged-out client');
    assert.equal((await other.get('/api/auth/session')).status, 200, 'the other session');
  });

  test('204 without a session as well', async () => {
    const res = await new Client(svc.url).request('POST', '/api/auth/logout');
    assert.equal(res.status, 204);
    assert.equal(res.text, '');
  });
});

describe('login throttling', () => {
  test(`per email: after LOGIN_MAX_FAILURES_PER_EMAIL (3) failures even the right password gets 429 with Retry-After`, async () => {
    const { email, password } = await perEmail.createUser({ email: uniqueEmail('throttled') });
    for (let i = 0; i < 3; i++) {
      assertAnswer(await perEmail.anonymous.post('/api/auth/login', { email, password: `wrong-${i}` }), 401, INVALID_LOGIN, `failure ${i + 1}`);
    }
    for (const [what, body] of [
      ['right password', { email, password }],
      ['wrong password', { email, password: 'wrong-again' }],
      ['email in another case', { email: email.toUpperCase(), password }],
    ] as const) {
      const res = await new Client(perEmail.url).post('/api/auth/login', body);
      assertAnswer(res, 429, TOO_MANY, what);
      const retryAfter = res.headers.get('retry-after');
      assert.match(retryAfter ?? '', /^\d+$/, `${what}: Retry-After in seconds`);
      assert.ok(Number(retryAfter) >= 1 && Number(retryAfter) <= WINDOW_SECONDS, `${what}: Retry-After ${retryAfter}`);
      assert.equal(res.headers.getSetCookie().length, 0, `${what}: no cookie`);
    }

    // Another account from the same address is not affected (the address limit is far away).
    const other = await perEmail.createUser({ email: uniqueEmail('unaffected') });
    assert.equal((await new Client(perEmail.url).post('/api/auth/login', { email: other.email, password: other.password })).status, 200);
  });

  test('per email: an unknown email is throttled the same way', async () => {
    const email = uniqueEmail('ghost');
    for (let i = 0; i < 3; i++) assertAnswer(await perEmail.anonymous.post('/api/auth/login', { email, password: 'whatever' }), 401, INVALID_LOGIN);
    const res = await perEmail.anonymous.post('/api/auth/login', { email, password: 'whatever' });
    assertAnswer(res, 429, TOO_MANY);
    assert.match(res.headers.get('retry-after') ?? '', /^\d+$/);
  });

  test('per address: after LOGIN_MAX_FAILURES_PER_ADDRESS (4) failures across different emails, the address gets 429', async () => {
    const victims = await Promise.all([0, 1].map(() => perAddress.createUser({ email: uniqueEmail('addr') })));
    const failures = [
      { email: victims[0]!.email, password: 'wrong' },
      { email: victims[1]!.email, password: 'wrong' },
      { email: uniqueEmail('addr-unknown'), password: 'wrong' },
      { email: uniqueEmail('addr-unknown'), password: 'wrong' },
    ];
    for (const [i, body] of failures.entries()) assertAnswer(await perAddress.anonymous.post('/api/auth/login', body), 401, INVALID_LOGIN, `failure ${i + 1}`);

    const fresh = await perAddress.createUser({ email: uniqueEmail('addr-fresh') });
    const res = await new Client(perAddress.url).post('/api/auth/login', { email: fresh.email, password: fresh.password });
    assertAnswer(res, 429, TOO_MANY, 'a fresh email with its right password');
    const retryAfter = Number(res.headers.get('retry-after'));
    assert.ok(Number.isInteger(retryAfter) && retryAfter >= 1 && retryAfter <= WINDOW_SECONDS, `Retry-After ${res.headers.get('retry-after')}`);

    // Another client address is not throttled.
    const elsewhere = await loginFrom(perAddress, '127.0.0.2', { email: fresh.email, password: fresh.password });
    assert.equal(elsewhere.status, 200, JSON.stringify(elsewhere.body));
    assert.deepEqual(elsewhere.body, { user: { id: fresh.user.id, name: fresh.user.name, email: fresh.email, role: 'POC' } });
  });
});

describe('cross-origin writes', () => {
  test('a cookie-authenticated POST or PATCH with another Origin gets 403; the service’s own origin works', async () => {
    const { client: admin } = await signedIn(svc, 'ADMIN');
    for (const origin of ['https://evil.example', 'null', 'http://localhost:1', `${svc.url.replace('127.0.0.1', 'localhost')}`]) {
      const email = uniqueEmail('xorigin');
      assertAnswer(await admin.post('/api/team', { name: 'X', email, password: 'pw-x-1' }, { origin }), 403, CROSS_ORIGIN, `POST from ${origin}`);
      const stored = await svc.deps.database.db.selectFrom('users').select('id').where('email_key', '=', email).execute();
      assert.equal(stored.length, 0, `nothing created from ${origin}`);
    }

    const email = uniqueEmail('same-origin');
    const created = await admin.post('/api/team', { name: 'Same Origin', email, password: 'pw-same-1' }, { origin: new URL(svc.url).origin });
    assert.equal(created.status, 201, created.text);

    const patch = (origin: string) => admin.request('PATCH', `/api/team/${created.body.id}`, { json: { name: 'Renamed' }, headers: { origin } });
    assertAnswer(await patch('https://evil.example'), 403, CROSS_ORIGIN, 'PATCH from another site');
    assert.equal((await svc.deps.store.users.findById(created.body.id))?.name, 'Same Origin');
    assert.equal((await patch(new URL(svc.url).origin)).status, 200, 'PATCH from the own origin');

    // Reads are not refused, and a write without Origin (a non-browser client) works.
    assert.equal((await admin.get('/api/team', { origin: 'https://evil.example' })).status, 200);
    assert.equal((await admin.post('/api/team', { name: 'No Origin', email: uniqueEmail('no-origin'), password: 'pw-none-1' })).status, 201);
  });

  test('a cross-origin logout is refused and the session survives', async () => {
    const { client } = await signedIn(svc);
    assertAnswer(await client.request('POST', '/api/auth/logout', { headers: { origin: 'https://evil.example' } }), 403, CROSS_ORIGIN);
    assert.equal((await client.get('/api/auth/session')).status, 200);
  });

  test('on the team endpoints a non-admin gets 401 whatever the Origin (the role is checked first)', async () => {
    const { client: poc } = await signedIn(svc, 'POC');
    const body = { name: 'X', email: uniqueEmail('poc-xorigin'), password: 'pw-x-1' };
    assertAnswer(await poc.post('/api/team', body, { origin: 'https://evil.example' }), 401, { error: 'Unauthorized' });
  });

  test('a cross-origin write is refused before its body is read', async () => {
    const { client: admin } = await signedIn(svc, 'ADMIN');
    assertAnswer(await rawJson(admin, 'POST', '/api/team', '{', { origin: 'https://evil.example' }), 403, CROSS_ORIGIN);
  });
});

describe('the origin check follows the request, not PUBLIC_URL', () => {
  /** PUBLIC_URL names neither address the tests use, as when a person opens 127.0.0.1 while PUBLIC_URL says localhost. */
  let elsewhere: TestService;
  let proxied: TestService;
  before(async () => {
    [elsewhere, proxied] = await Promise.all([
      startTestService({ env: { PUBLIC_URL: 'http://print.example.com' } }),
      startTestService({ env: { PUBLIC_URL: 'http://print.example.com', TRUST_PROXY: 'true' } }),
    ]);
  });
  after(() => Promise.all([elsewhere?.close(), proxied?.close()]));

  /** POST /api/auth/login with chosen Host, Origin and other headers (fetch cannot set Host). */
  function loginWith(service: TestService, headers: Record<string, string>, body: unknown): Promise<{ status: number; body: unknown }> {
    return new Promise((resolve, reject) => {
      const req = http.request(`${service.url}/api/auth/login`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers } }, (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (c: string) => (text += c));
        res.on('end', () => resolve({ status: res.statusCode!, body: JSON.parse(text || 'null') }));
      });
      req.on('error', reject);
      req.end(JSON.stringify(body));
    });
  }

  test('a page opened at 127.0.0.1 and one opened at localhost both sign in; a wrong password says so', async () => {
    const { email, password } = await elsewhere.createUser({ role: 'POC', email: uniqueEmail('addresses') });
    const port = new URL(elsewhere.url).port;
    for (const host of [`127.0.0.1:${port}`, `localhost:${port}`]) {
      const origin = `http://${host}`;
      const ok = await loginWith(elsewhere, { host, origin, 'sec-fetch-site': 'same-origin' }, { email, password });
      assert.equal(ok.status, 200, `sign-in at ${origin}: ${JSON.stringify(ok.body)}`);
      assert.deepEqual(await loginWith(elsewhere, { host, origin }, { email, password: 'wrong' }), { status: 401, body: INVALID_LOGIN });
    }
    // The other address's page, or another site, is still refused.
    assert.deepEqual(await loginWith(elsewhere, { host: `127.0.0.1:${port}`, origin: `http://localhost:${port}` }, { email, password }), { status: 403, body: CROSS_ORIGIN });
    assert.deepEqual(await loginWith(elsewhere, { host: `127.0.0.1:${port}`, origin: 'http://print.example.com' }, { email, password }), { status: 403, body: CROSS_ORIGIN });
  });

  test('Sec-Fetch-Site: cross-site is refused even without an Origin', async () => {
    const { email, password } = await elsewhere.createUser({ role: 'POC', email: uniqueEmail('fetch-site') });
    assert.deepEqual(await loginWith(elsewhere, { 'sec-fetch-site': 'cross-site' }, { email, password }), { status: 403, body: CROSS_ORIGIN });
    const { client: admin } = await signedIn(elsewhere, 'ADMIN');
    const email2 = uniqueEmail('fetch-site-team');
    assertAnswer(await admin.post('/api/team', { name: 'X', email: email2, password: 'pw-x-1-long' }, { 'sec-fetch-site': 'cross-site' }), 403, CROSS_ORIGIN);
    assert.equal(await elsewhere.deps.store.users.emailTaken(email2), false, 'nothing created');
  });

  test('X-Forwarded-Proto and -Host count only from a trusted proxy', async () => {
    const { email, password } = await proxied.createUser({ role: 'POC', email: uniqueEmail('proxy') });
    const forwarded = { 'x-forwarded-proto': 'https', 'x-forwarded-host': 'print.example.com', origin: 'https://print.example.com' };
    assert.equal((await loginWith(proxied, forwarded, { email, password })).status, 200, 'behind a trusted proxy');
    const direct = await elsewhere.createUser({ role: 'POC', email: uniqueEmail('no-proxy') });
    assert.deepEqual(await loginWith(elsewhere, forwarded, { email: direct.email, password: direct.password }), { status: 403, body: CROSS_ORIGIN }, 'not trusted: the headers are ignored');
  });
});

test('unknown routes give 404 with a JSON error', async () => {
  const { client } = await signedIn(svc, 'ADMIN');
  for (const [method, path] of [
    ['GET', '/api/nope'],
    ['GET', '/nope'],
    ['POST', '/api/nope'],
    ['DELETE', '/api/team'],
    ['GET', '/api/team/extra/segment'],
  ] as const) {
    for (const c of [svc.anonymous, client]) {
      const res = await c.request(method, path);
      assert.equal(res.status, 404, `${method} ${path}: ${res.text}`);
      assert.match(res.headers.get('content-type') ?? '', /^application\/json/);
      assert.deepEqual(Object.keys(res.body), ['error'], res.text);
      assert.equal(typeof res.body.error, 'string');
      assert.ok(res.body.error.length > 0);
    }
  }
});
