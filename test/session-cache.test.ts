/**
 * The session cache (SESSION_CACHE_MS) spares a burst's session reads, and revocation still takes
 * effect at once on every instance: two instances on one database and one Redis channel prefix, a
 * session used on B (so B keeps it), then ended or changed on A, and B's very next answer follows.
 * Other changes of a user (a new name) show at once on the instance that made them.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { hashToken } from '../src/actions/auth.js';
import { newId } from '../src/ids.js';
import { type Client, type TestService, startTestService } from './helpers/service.js';

const REDIS_URL = process.env.REDIS_URL;
const skip = !REDIS_URL ? 'REDIS_URL not set' : false;
if (skip) console.log(`NOTICE: ${skip}, so the two-instance session cache tests are skipped.`);

const tokenOf = (client: Client) => decodeURIComponent(client.cookie!.slice('session='.length));

describe('the session cache across two instances (REALTIME_DRIVER=redis)', { skip }, () => {
  let a: TestService;
  let b: TestService;
  let adminOnA: Client;

  before(async () => {
    // A bound long enough that only a signal can explain an answer that follows a change at once.
    const env = { REALTIME_DRIVER: 'redis', REDIS_URL: REDIS_URL!, REDIS_CHANNEL_PREFIX: `test-${newId()}`, SESSION_CACHE_MS: '60000' };
    a = await startTestService({ env });
    b = await startTestService({ env, sharedDatabase: a.deps.config.database });
    adminOnA = (await a.signIn('ADMIN')).client;
  });
  after(async () => {
    await b?.close();
    await a?.close();
  });

  /** The same session used on both instances: a client of A and one of B carrying one cookie. */
  const sessionOnBoth = async (role: 'ADMIN' | 'POC' = 'POC') => {
    const { user, email, password } = await a.createUser({ role });
    const onA = await a.login(email, password);
    const onB = new (onA.constructor as typeof Client)(b.url);
    onB.cookie = onA.cookie;
    const seen = await onB.get('/api/auth/session');
    assert.equal(seen.status, 200, seen.text); // B keeps it from here
    return { user, email, password, onA, onB };
  };

  test('B keeps a session: a row removed behind its back (no signal) still answers within the bound', async () => {
    const { onB } = await sessionOnBoth();
    await b.deps.store.sessions.delete(hashToken(tokenOf(onB)));
    assert.equal((await onB.get('/api/auth/session')).status, 200);
    // A's cache never saw it: A reads the database and refuses.
    const onA = new (onB.constructor as typeof Client)(a.url);
    onA.cookie = onB.cookie;
    assert.equal((await onA.get('/api/auth/session')).status, 401);
  });

  test('signed out on A: B refuses the cookie at once', async () => {
    const { onA, onB } = await sessionOnBoth();
    assert.equal((await onA.post('/api/auth/logout')).status, 204);
    await eventuallyNot(() => onB.get('/api/auth/session'), 200);
  });

  test('deactivated on A: B refuses the user at once', async () => {
    const { user, onB } = await sessionOnBoth();
    assert.equal((await adminOnA.patch(`/api/team/${user.id}`, { active: false })).status, 200);
    await eventuallyNot(() => onB.get('/api/auth/session'), 200);
  });

  test('password changed on A: the other sessions end on B at once, the one that changed it stays', async () => {
    const { email, password, onB } = await sessionOnBoth();
    const changer = await a.login(email, password);
    const changerOnB = new (changer.constructor as typeof Client)(b.url);
    changerOnB.cookie = changer.cookie;
    assert.equal((await changerOnB.get('/api/auth/session')).status, 200);
    const res = await changer.post('/api/account/password', { currentPassword: password, newPassword: 'a new password 123' });
    assert.equal(res.status, 204, res.text);
    await eventuallyNot(() => onB.get('/api/auth/session'), 200);
    assert.equal((await changerOnB.get('/api/auth/session')).status, 200);
  });

  test('an admin demoted on A loses the team endpoints on B at once', async () => {
    const { user, onB } = await sessionOnBoth('ADMIN');
    assert.equal((await onB.get('/api/team')).status, 200);
    assert.equal((await adminOnA.patch(`/api/team/${user.id}`, { role: 'POC' })).status, 200);
    await eventuallyNot(() => onB.get('/api/team'), 200);
  });

  test('a name changed on an instance shows there at once (My account, and an admin on the team page)', async () => {
    const { user, onA } = await sessionOnBoth();
    const nameOnA = async () => ((await onA.get('/api/auth/session')).body as { user: { name: string } }).user.name;
    assert.equal((await onA.patch('/api/account', { name: 'Renamed by themselves' })).status, 200);
    assert.equal(await nameOnA(), 'Renamed by themselves');
    assert.equal((await adminOnA.patch(`/api/team/${user.id}`, { name: 'Renamed by an admin' })).status, 200);
    assert.equal(await nameOnA(), 'Renamed by an admin');
  });
});

/**
 * The answer on B no longer has `stale` within the signal's delivery (Redis on this machine: a few
 * milliseconds; 1 s allowed), far within the 60 s bound the cache would otherwise keep it for.
 */
async function eventuallyNot<T>(ask: () => Promise<{ status: T }>, stale: T): Promise<void> {
  const deadline = Date.now() + 1000;
  for (;;) {
    const { status } = await ask();
    if (status !== stale) return;
    assert.ok(Date.now() < deadline, `still ${String(stale)} after 1 s: the signal did not reach B's cache`);
    await new Promise((r) => setTimeout(r, 10));
  }
}
