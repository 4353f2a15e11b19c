/**
 * The first run (interface.md, "First run"), over HTTP on a real database: a new install without an
 * admin logs its one-time setup link once, at warn; the token works once (the admin made and signed
 * in), and is refused after; a wrong token is 403 and counts as a failed sign-in of the address
 * (then 429, the right token included); bad fields keep the token good; a cross-origin request is
 * refused; every start (every instance) has its own token; ADMIN_EMAIL means no link at all.
 */
import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';
import { type CapturedLog, captureLogs } from './helpers/logs.js';
import { Client, type TestService, startTestService } from './helpers/service.js';

const started: TestService[] = [];
after(async () => {
  // The instances sharing a database first, its owner last (its cleanup drops the database).
  for (const svc of started.reverse()) await svc.close();
});

const WARN = 40;
const LINK = /^Open (\S+)\/setup#([0-9A-Za-z]+) to create the first admin$/;

async function start(options: Parameters<typeof startTestService>[0] = {}): Promise<{ svc: TestService; logs: CapturedLog; token: string | null }> {
  const logs = captureLogs('info');
  const svc = await startTestService({ ...options, logger: logs.logger });
  started.push(svc);
  const lines = logs.lines.filter((l) => LINK.test(l.msg));
  assert.ok(lines.length <= 1, 'the link is logged once');
  if (!lines.length) return { svc, logs, token: null };
  assert.equal(lines[0]!.level, WARN, 'at warn');
  const [, url, token] = LINK.exec(lines[0]!.msg)!;
  assert.equal(url, svc.deps.config.publicUrl);
  assert.ok(token!.length >= 32, 'at least 32 base62 characters');
  return { svc, logs, token: token! };
}

const FIRST = { name: 'Ada First', email: 'ada.first@example.com', password: 'first-admin-pass' };

describe('a new install without an admin', () => {
  test('the logged link creates the first admin once, signed in; refused after, whatever the token', async () => {
    const { svc, token } = await start();
    assert.ok(token, 'the link is logged');
    assert.deepEqual((await svc.anonymous.get('/api/setup')).body, { needed: true });

    // Wrong token, missing token: 403, nothing made.
    const wrong = await svc.anonymous.post('/api/setup', { ...FIRST, token: `${token.slice(0, -1)}${token.endsWith('a') ? 'b' : 'a'}` });
    assert.deepEqual([wrong.status, wrong.body], [403, { error: 'Invalid setup token' }]);
    assert.deepEqual([(await svc.anonymous.post('/api/setup', FIRST)).status, (await svc.anonymous.post('/api/setup', 'not an object')).status], [403, 403]);
    // Bad fields with the right token: 400 naming the field; the token stays good.
    const short = await svc.anonymous.post('/api/setup', { ...FIRST, token, password: 'short' });
    assert.deepEqual([short.status, short.body], [400, { error: 'Password must be at least 8 characters' }]);
    const noName = await svc.anonymous.post('/api/setup', { ...FIRST, token, name: ' ' });
    assert.deepEqual([noName.status, noName.body], [400, { error: 'Name is required' }]);
    assert.equal((await svc.anonymous.post('/api/setup', { ...FIRST, token, email: 'ada' })).status, 400);
    // Cross-origin: refused as a sign-in is, before the token is looked at.
    const cross = await svc.anonymous.post('/api/setup', { ...FIRST, token }, { origin: 'https://evil.example' });
    assert.deepEqual([cross.status, cross.body], [403, { error: 'Cross-origin request refused' }]);
    assert.equal(await svc.deps.store.users.countActiveAdmins(), 0, 'nothing made by a refused setup');

    const browser = new Client(svc.url);
    const made = await browser.post('/api/setup', { ...FIRST, token });
    assert.equal(made.status, 201, made.text);
    assert.deepEqual(Object.keys(made.body), ['user']);
    assert.equal(made.body.user.role, 'ADMIN');
    assert.equal(made.body.user.email, FIRST.email);
    assert.match(made.headers.get('set-cookie') ?? '', /session=[^;]+;.*HttpOnly/i);
    const session = await browser.get('/api/auth/session');
    assert.deepEqual([session.status, session.body.user.name], [200, FIRST.name]);
    // The password works for signing in later.
    await svc.login(FIRST.email, FIRST.password);

    // Used once: the same token, another one, none: 409 whatever the token.
    for (const body of [{ ...FIRST, token }, { ...FIRST, token, email: 'again@example.com' }, { ...FIRST, token: 'x'.repeat(43) }, {}]) {
      const again = await svc.anonymous.post('/api/setup', body);
      assert.deepEqual([again.status, again.body], [409, { error: 'Setup is already done' }]);
    }
    assert.deepEqual((await svc.anonymous.get('/api/setup')).body, { needed: false });
    assert.equal(await svc.deps.store.users.countActiveAdmins(), 1);
  });

  test('wrong tokens count as failed sign-ins of the address: then 429 with Retry-After, the right token too', async () => {
    const { svc, token } = await start({ env: { LOGIN_MAX_FAILURES_PER_ADDRESS: '3' } });
    assert.ok(token);
    for (let i = 0; i < 3; i++) assert.equal((await svc.anonymous.post('/api/setup', { ...FIRST, token: `wrong-${i}` })).status, 403);
    const limited = await svc.anonymous.post('/api/setup', { ...FIRST, token });
    assert.equal(limited.status, 429);
    assert.match(limited.headers.get('retry-after') ?? '', /^\d+$/);
    assert.equal(await svc.deps.store.users.countActiveAdmins(), 0);
    // The address's sign-ins are limited alike: one limit for both.
    assert.equal((await svc.anonymous.post('/api/auth/login', { email: 'x@example.com', password: 'whatever-it-is' })).status, 429);
  });

  test('every start has its own token: another instance’s is refused; once one is used, every instance says setup is done', async () => {
    const a = await start();
    const b = await start({ sharedDatabase: a.svc.deps.config.database });
    assert.ok(a.token && b.token);
    assert.notEqual(a.token, b.token);
    assert.equal((await b.svc.anonymous.post('/api/setup', { ...FIRST, token: a.token })).status, 403);
    assert.equal((await b.svc.anonymous.post('/api/setup', { ...FIRST, token: b.token })).status, 201);
    const late = await a.svc.anonymous.post('/api/setup', { ...FIRST, email: 'late@example.com', token: a.token });
    assert.deepEqual([late.status, late.body], [409, { error: 'Setup is already done' }]);
    // A start with an admin logs no link.
    const c = await start({ sharedDatabase: a.svc.deps.config.database });
    assert.equal(c.token, null);
    assert.equal(c.logs.lines.filter((l) => /setup/i.test(l.msg)).length, 0);
  });

  test('two setups at once with the right token: one admin', async () => {
    const { svc, token } = await start();
    const answers = await Promise.all([0, 1, 2].map((i) => svc.anonymous.post('/api/setup', { ...FIRST, email: `admin${i}@example.com`, token })));
    assert.deepEqual(answers.map((r) => r.status).sort(), [201, 409, 409]);
    assert.equal(await svc.deps.store.users.countActiveAdmins(), 1);
  });
});

test('with ADMIN_EMAIL set, no link is logged and setup is done', async () => {
  const { svc, token, logs } = await start({ env: { ADMIN_EMAIL: 'boot@example.com', ADMIN_PASSWORD: 'boot-admin-pass' } });
  assert.equal(token, null);
  assert.ok(!logs.text.some((l) => l.includes('/setup#')));
  assert.deepEqual((await svc.anonymous.get('/api/setup')).body, { needed: false });
  assert.equal((await svc.anonymous.post('/api/setup', { ...FIRST, token: 'a'.repeat(43) })).status, 409);
});
