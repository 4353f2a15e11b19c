/**
 * REALTIME_DRIVER=redis against the Redis at REDIS_URL (CI: redis://127.0.0.1:6379): start-up,
 * an outage during an upload (specification 4.1: 500 with the failure message, earlier steps kept)
 * and the recovery after it, made with a TCP proxy so the shared Redis server is never touched;
 * then two instances on one PostgreSQL schema (TEST_DATABASE_URL): notifications, sessions and
 * login throttling across them, and both starting at once. Each test has its own channel prefix,
 * so test files running at the same time never see each other's notifications.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import pg from 'pg';
import { migrationNames } from '../src/db/index.js';
import type { User } from '../src/domain/model.js';
import { newId } from '../src/ids.js';
import { type RunningService, startService } from '../src/service.js';
import { eventually, eventuallyPasses } from './helpers/eventually.js';
import { captureLogs } from './helpers/logs.js';
import { assertAnswer } from './helpers/team.js';
import { activityOf, changeEvents, withoutIds } from './helpers/projects.js';
import { Client, type TestService, openEventStream, startTestService, testConfig } from './helpers/service.js';
import { type TcpProxy, startTcpProxy } from './helpers/tcp-proxy.js';
import { multipart, streamRequest } from './helpers/upload.js';

const REDIS_URL = process.env.REDIS_URL;
const PG_URL = process.env.TEST_DATABASE_URL;

const noRedis = REDIS_URL ? false : 'REDIS_URL not set (CI sets redis://127.0.0.1:6379)';
const noPair = noRedis || (PG_URL ? false : 'TEST_DATABASE_URL not set: two instances share one PostgreSQL schema');
if (noRedis) console.log(`NOTICE: ${noRedis}, so the redis realtime tests are skipped.`);
else if (noPair) console.log(`NOTICE: ${noPair}, so the two-instance redis tests are skipped.`);

const pdf = { data: Buffer.from('%PDF-1.4\n% redis test\n%%EOF\n'), filename: 'order.pdf', type: 'application/pdf' };

/** The service settings for REALTIME_DRIVER=redis, on a channel prefix of this test's own. */
const redisEnv = (url = REDIS_URL!) => ({ REALTIME_DRIVER: 'redis', REDIS_URL: url, REDIS_CHANNEL_PREFIX: `test-${newId()}` });

/** A proxy to the Redis of REDIS_URL, and REDIS_URL rewritten to go through it. */
async function redisProxy(): Promise<{ proxy: TcpProxy; url: string }> {
  const target = new URL(REDIS_URL!);
  const proxy = await startTcpProxy({ host: target.hostname, port: Number(target.port || 6379) });
  const through = new URL(REDIS_URL!);
  through.hostname = '127.0.0.1';
  through.port = String(proxy.port);
  return { proxy, url: through.toString() };
}

describe('REALTIME_DRIVER=redis, one instance', { skip: noRedis }, () => {
  for (const outage of ['cut', 'stall'] as const) {
    test(`start-up fails with a clear error when Redis cannot be reached (connections ${outage === 'cut' ? 'refused' : 'unanswered'})`, { timeout: 60_000 }, async () => {
      const { proxy, url } = await redisProxy();
      proxy[outage]();
      const made = await testConfig({ env: redisEnv(url) });
      let running: RunningService | undefined;
      try {
        await assert.rejects(
          (async () => {
            running = await startService(made.config);
          })(),
          (err: Error) => {
            assert.match(err.message, new RegExp(`^Could not connect to Redis at rediss?://127\\.0\\.0\\.1:${proxy.port}(/\\d+)?: .+`));
            return true;
          },
        );
      } finally {
        await running?.close();
        await made.cleanup();
        await proxy.close();
      }
    });
  }

  test('the publisher and the subscriber connect, and close() quits both', async () => {
    const { proxy, url } = await redisProxy();
    let svc: TestService | undefined;
    try {
      svc = await startTestService({ env: redisEnv(url) });
      assert.equal(svc.deps.realtime.driver, 'redis');
      assert.equal(proxy.open, 2, 'one connection publishes, one subscribes');
      const ready = await svc.anonymous.get('/readyz');
      assert.deepEqual(ready.body, { status: 'ready', checks: { database: 'ok', storage: 'ok', realtime: 'ok' } });
      await svc.close();
      svc = undefined;
      await eventually('both connections closed', async () => proxy.open === 0, 5000);
    } finally {
      await svc?.close();
      await proxy.close();
    }
  });

  describe('Redis cut off during an upload, then back', () => {
    let proxy: TcpProxy;
    let svc: TestService;
    let admin: { user: User; client: Client };
    const log = captureLogs('info');

    before(async () => {
      const made = await redisProxy();
      proxy = made.proxy;
      svc = await startTestService({ env: redisEnv(made.url), logger: log.logger });
      admin = await svc.signIn('ADMIN');
    });
    after(async () => {
      await svc?.close();
      await proxy?.close();
    });

    test('500 with the failure message, record and activity kept, /readyz 503 naming realtime; after the outage SSE gets the next notifications', async () => {
      const p = await svc.createProject(admin.user.id, { status: 'APPROVED', piStatus: 'VERIFIED' });
      const stream = await openEventStream(admin.client);
      try {
        // Half of the body, then Redis goes away, then the rest.
        const { body, contentType } = multipart([
          { name: 'projectId', value: p.id },
          { name: 'fileType', value: 'PO' },
          { name: 'file', ...pdf },
        ]);
        const half = Math.floor(body.length / 2);
        const res = await streamRequest(`${svc.url}/api/upload`, {
          headers: { 'content-type': contentType, cookie: admin.client.cookie! },
          body: (function* () {
            yield body.subarray(0, half);
            proxy.cut();
            yield body.subarray(half);
          })(),
        });
        assert.equal(res.status, 500, res.text);
        assert.deepEqual(Object.keys(res.body as object), ['error']);
        assert.match((res.body as { error: string }).error, /^Redis is unavailable: project-updated was not published \(.+\)$/);

        // Steps 9 and 10 are not undone.
        const detail = await admin.client.get(`/api/projects/${p.id}`);
        assert.equal(detail.status, 200, detail.text);
        assert.deepEqual(detail.body.files.map((f: { type: string; filename: string; size: number }) => [f.type, f.filename, f.size]), [['PO', 'order.pdf', pdf.data.length]]);
        const activity = await activityOf(admin.client, p.id);
        assert.deepEqual(activity.map((a) => [a.action, a.details]), [['PO_UPLOADED', { filename: 'order.pdf', size: pdf.data.length }]]);

        // Not ready, but alive.
        const ready = await svc.anonymous.get('/readyz');
        assert.equal(ready.status, 503, ready.text);
        assert.match(ready.body.error, /^Not ready: realtime \(Redis is unavailable: .+\)$/);
        assert.deepEqual((await svc.anonymous.get('/healthz')).body, { status: 'ok' });
        // A project change (whose failed notification is only logged) still answers, rather than waiting for Redis.
        const renamed = await admin.client.patch(`/api/projects/${p.id}`, { name: 'During the outage' });
        assert.equal(renamed.status, 200, renamed.text);

        // Redis is back: both connections reconnect, the subscriber subscribes again.
        proxy.restore();
        await eventually('/readyz 200 after the outage', async () => (await svc.anonymous.get('/readyz')).status === 200, 30_000);
        const again = await admin.client.upload([['projectId', p.id], ['fileType', 'PO'], ['file', pdf]]);
        assert.equal(again.status, 201, again.text);
        // The stream opened before the outage receives exactly this upload's notifications (the failed ones sent none).
        assert.deepEqual(withoutIds(await stream.next(2)), changeEvents(p.id));
      } finally {
        stream.close();
      }

      // The failed requests were logged as errors; the outage as a warning once per connection, and its end.
      const failures = log.lines.filter((l) => l.level === 50 && l.msg === 'request failed');
      assert.ok(failures.some((l) => /^Redis is unavailable: project-updated/.test(l.err?.message ?? '')), 'the 500 was logged');
      const unsent = log.lines.filter((l) => l.level === 50 && l.msg === 'realtime notification failed');
      assert.ok(unsent.some((l) => /^Redis is unavailable: project-updated/.test(l.err?.message ?? '')), 'the rename\'s failed notification was logged');
      const lost = log.lines.filter((l) => l.level === 40 && /^Redis (publisher|subscriber) connection lost/.test(l.msg)).map((l) => l.msg);
      assert.deepEqual(lost.sort(), ['Redis publisher connection lost; reconnecting', 'Redis subscriber connection lost; reconnecting']);
      const restored = log.lines.filter((l) => l.level === 30 && /^Redis (publisher|subscriber) connection restored$/.test(l.msg));
      assert.equal(restored.length, 2);
    });
  });
  describe('Redis cut off while a stream is open', () => {
    let proxy: TcpProxy;
    let svc: TestService;

    before(async () => {
      const made = await redisProxy();
      proxy = made.proxy;
      // The sweep that ends lost sessions' streams is far away: only the signal itself can end the stream in time.
      svc = await startTestService({ env: { ...redisEnv(made.url), REALTIME_SESSION_SWEEP_MS: '600000' } });
    });
    after(async () => {
      await svc?.close();
      await proxy?.close();
    });

    test("a sign-out on this instance ends the session's open stream at once, though Redis cannot carry the signal", async () => {
      const { email, password } = await svc.createUser({ role: 'POC' });
      const tab = await svc.login(email, password);
      const stream = await openEventStream(tab);
      try {
        proxy.cut();
        assert.equal((await tab.post('/api/auth/logout')).status, 204);
        assert.deepEqual((await stream.end(2000)).at(-1), { id: '', event: 'session-ended', data: { reason: 'signed-out' } });
      } finally {
        stream.close();
        proxy.restore();
      }
    });
  });

  describe('Redis silent (a network partition), then back', () => {
    let proxy: TcpProxy;
    let svc: TestService;
    let admin: { user: User; client: Client };

    before(async () => {
      const made = await redisProxy();
      proxy = made.proxy;
      svc = await startTestService({ env: redisEnv(made.url) });
      admin = await svc.signIn('ADMIN');
    });
    after(async () => {
      await svc?.close();
      await proxy?.close();
    });

    // A hang would end in this test's timeout rather than in an answer.
    test('an upload answers 500 instead of waiting for Redis; /readyz 503; afterwards SSE gets the next notifications', { timeout: 60_000 }, async () => {
      const p = await svc.createProject(admin.user.id, { status: 'APPROVED', piStatus: 'VERIFIED' });
      const stream = await openEventStream(admin.client);
      try {
        proxy.stall();
        const res = await admin.client.upload([['projectId', p.id], ['fileType', 'PO'], ['file', pdf]]);
        assert.equal(res.status, 500, res.text);
        assert.match(res.body.error, /^Redis is unavailable: project-updated was not published \(.+\)$/);
        const ready = await svc.anonymous.get('/readyz');
        assert.equal(ready.status, 503, ready.text);
        assert.match(ready.body.error, /^Not ready: realtime \(Redis is unavailable: .+\)$/);
        assert.equal((await admin.client.get(`/api/projects/${p.id}`)).body.files.length, 1, 'the record is kept');

        proxy.restore();
        await eventually('/readyz 200 after the partition', async () => (await svc.anonymous.get('/readyz')).status === 200, 30_000);
        const again = await admin.client.upload([['projectId', p.id], ['fileType', 'PO'], ['file', pdf]]);
        assert.equal(again.status, 201, again.text);
        assert.deepEqual(withoutIds(await stream.next(2)), changeEvents(p.id));
      } finally {
        stream.close();
      }
    });
  });
});

describe('REALTIME_DRIVER=redis, two instances on one database', { skip: noPair }, () => {
  /** Instances A and B: one PostgreSQL schema, one Redis channel prefix. */
  async function startPair(env: Record<string, string> = {}): Promise<{ a: TestService; b: TestService; close(): Promise<void> }> {
    const shared = { ...redisEnv(), ...env };
    const a = await startTestService({ env: shared, postgresUrl: PG_URL });
    let b: TestService;
    try {
      b = await startTestService({ env: shared, sharedDatabase: a.deps.config.database });
    } catch (err) {
      await a.close();
      throw err;
    }
    return {
      a,
      b,
      async close() {
        await b.close();
        await a.close(); // drops the schema
      },
    };
  }

  let pair: Awaited<ReturnType<typeof startPair>>;
  before(async () => {
    pair = await startPair({ LOGIN_MAX_FAILURES_PER_EMAIL: '3' });
  });
  after(() => pair?.close());

  test('an SSE client on B receives an upload on A: project-updated {id}, then stats-updated; A\'s own client gets each once', async () => {
    const { a, b } = pair;
    const admin = await a.signIn('ADMIN');
    const onB = await b.login(admin.user.email, admin.password);
    const p = await a.createProject(admin.user.id, { status: 'APPROVED', piStatus: 'VERIFIED' });
    const streamB = await openEventStream(onB);
    const streamA = await openEventStream(admin.client);
    try {
      const res = await admin.client.upload([['projectId', p.id], ['fileType', 'PO'], ['file', pdf]]);
      assert.equal(res.status, 201, res.text);
      const seenOnB = await streamB.next(2);
      assert.deepEqual(withoutIds(seenOnB), changeEvents(p.id));

      // A change made on B comes next everywhere; a duplicate on A would come before it.
      const q = await a.createProject(admin.user.id);
      assert.equal((await onB.patch(`/api/projects/${q.id}`, { name: 'Renamed on B' })).status, 200);
      const seenOnA = await streamA.next(4);
      assert.deepEqual(withoutIds(seenOnA), [...changeEvents(p.id), ...changeEvents(q.id)]);
      seenOnB.push(...(await streamB.next(2)));
      assert.deepEqual(withoutIds(seenOnB), withoutIds(seenOnA));
      assert.equal(new Set(seenOnA.map((e) => e.id)).size, 4, 'an id per event');
      assert.deepEqual(seenOnB.map((e) => e.id), seenOnA.map((e) => e.id), 'the same ids on both instances');
    } finally {
      streamA.close();
      streamB.close();
    }
  });

  /** The same person signed in on both instances. */
  async function onBoth(role: 'ADMIN' | 'POC' | 'CLIENT') {
    const { a, b } = pair;
    const { user, email, password } = await a.createUser({ role });
    return { user, onA: await a.login(email, password), onB: await b.login(email, password) };
  }
  const patchOn = async (client: Client, path: string, body: Record<string, unknown>) => {
    const res = await client.patch(path, body);
    assert.equal(res.status, 200, res.text);
  };

  test('scope across instances: only the owner and the admins hear a change, wherever it is made and wherever they listen', async () => {
    const { a } = pair;
    const [admin, owner, otherPoc, client] = await Promise.all([onBoth('ADMIN'), onBoth('POC'), onBoth('POC'), onBoth('CLIENT')]);
    const theirs = await a.createProject(owner.user.id);
    const otherOwn = await a.createProject(otherPoc.user.id);
    const clientOwn = await a.createProject(client.user.id);
    const streams = await Promise.all([openEventStream(owner.onB), openEventStream(admin.onB), openEventStream(otherPoc.onB), openEventStream(client.onA)]);
    const [ownerB, adminB, otherB, clientA] = streams;
    try {
      await patchOn(admin.onA, `/api/projects/${theirs.id}`, { name: 'Changed on A' });
      assert.deepEqual(withoutIds(await ownerB!.next(2)), changeEvents(theirs.id));
      assert.deepEqual(withoutIds(await adminB!.next(2)), changeEvents(theirs.id));
      // Their next events are about their own projects: the POC's change never reached them.
      await patchOn(admin.onB, `/api/projects/${otherOwn.id}`, { name: 'Own, changed on B' });
      await patchOn(admin.onA, `/api/projects/${clientOwn.id}`, { name: 'Own, changed on A' });
      assert.deepEqual(withoutIds(await otherB!.next(2)), changeEvents(otherOwn.id));
      assert.deepEqual(withoutIds(await clientA!.next(2)), changeEvents(clientOwn.id));

      // Reassigned on A: on B the events move from the old POC to the new one.
      await patchOn(admin.onA, `/api/projects/${theirs.id}`, { pocId: otherPoc.user.id });
      assert.deepEqual(withoutIds(await otherB!.next(2)), changeEvents(theirs.id));
      const ownerOwn = await a.createProject(owner.user.id);
      await patchOn(admin.onA, `/api/projects/${theirs.id}`, { name: 'No longer the old POC’s' });
      await patchOn(admin.onA, `/api/projects/${ownerOwn.id}`, { name: 'The old POC’s own' });
      assert.deepEqual(withoutIds(await ownerB!.next(2)), changeEvents(ownerOwn.id));
    } finally {
      for (const st of streams) st.close();
    }
  });

  test('a demotion made on A re-scopes the admin’s open stream on B at once', async () => {
    const { a } = pair;
    const [boss, demoted, poc] = await Promise.all([onBoth('ADMIN'), onBoth('ADMIN'), onBoth('POC')]);
    const others = await a.createProject(poc.user.id);
    const own = await a.createProject(demoted.user.id);
    const stream = await openEventStream(demoted.onB);
    try {
      await patchOn(boss.onA, `/api/team/${demoted.user.id}`, { role: 'POC' });
      await patchOn(boss.onA, `/api/projects/${others.id}`, { name: 'Not for the demoted' });
      await patchOn(boss.onA, `/api/projects/${own.id}`, { name: 'Their own' });
      assert.deepEqual(withoutIds(await stream.next(2)), changeEvents(own.id));
    } finally {
      stream.close();
    }
  });

  test('a session ended on one instance ends its streams on the other within a second, with the reason', async () => {
    const [boss, signingOut, deactivated, newPassword] = await Promise.all([onBoth('ADMIN'), onBoth('POC'), onBoth('POC'), onBoth('CLIENT')]);
    const signingOutB = new Client(pair.b.url);
    signingOutB.cookie = signingOut.onA.cookie;
    const streams = await Promise.all([openEventStream(signingOutB), openEventStream(deactivated.onA), openEventStream(newPassword.onB)]);
    try {
      const cases: [number, string, () => Promise<unknown>][] = [
        [0, 'signed-out', async () => assert.equal((await signingOut.onA.post('/api/auth/logout')).status, 204)],
        [1, 'deactivated', () => patchOn(boss.onB, `/api/team/${deactivated.user.id}`, { active: false })],
        [2, 'password-changed', () => patchOn(boss.onA, `/api/team/${newPassword.user.id}`, { password: 'another-password-1' })],
      ];
      for (const [i, reason, end] of cases) {
        const started = Date.now();
        await end();
        const events = await streams[i]!.end(1500);
        assert.deepEqual(events.at(-1), { id: '', event: 'session-ended', data: { reason } });
        assert.ok(Date.now() - started < 1000, `${reason}: closed ${Date.now() - started} ms after the change`);
      }
    } finally {
      for (const st of streams) st.close();
    }
  });

  test('replay across instances: a client that left A resumes on B and gets what both instances did, in order', async () => {
    const { a } = pair;
    const admin = await onBoth('ADMIN');
    const p = await a.createProject(admin.user.id);
    const first = await openEventStream(admin.onA);
    let last: string;
    try {
      await patchOn(admin.onA, `/api/projects/${p.id}`, { name: 'seen on A' });
      await first.next(2);
      last = first.lastEventId!;
    } finally {
      first.close();
    }
    // The same user's stream on A, open meanwhile: the ids the resumed stream must carry.
    const witness = await openEventStream(admin.onA);
    await patchOn(admin.onA, `/api/projects/${p.id}`, { name: 'missed, made on A' });
    await patchOn(admin.onB, `/api/projects/${p.id}`, { name: 'missed, made on B' });
    const seen = await witness.next(4);
    witness.close();
    const resumed = await openEventStream(admin.onB, '', { 'last-event-id': last });
    try {
      const events = await resumed.next(4);
      assert.deepEqual(withoutIds(events), [...changeEvents(p.id), ...changeEvents(p.id)]);
      assert.deepEqual(events.map((e) => e.id), seen.map((e) => e.id));
    } finally {
      resumed.close();
    }
  });

  test('a session made by login on A works on B; logout on A ends it on B', async () => {
    const { a, b } = pair;
    const { user, client } = await a.signIn('POC');
    const onB = new Client(b.url);
    onB.cookie = client.cookie;
    const session = await onB.get('/api/auth/session');
    assert.equal(session.status, 200, session.text);
    assert.equal(session.body.user.id, user.id);
    assert.equal((await onB.get('/api/projects')).status, 200);

    assert.equal((await client.post('/api/auth/logout')).status, 204);
    const cookie = onB.cookie;
    // B drops its cached session when the sign-out's signal arrives over Redis (a millisecond or two
    // after A answers); the bound is well inside SESSION_CACHE_MS, so only the signal explains the 401.
    await eventuallyPasses(async () => {
      onB.cookie = cookie;
      assertAnswer(await onB.get('/api/auth/session'), 401, { error: 'Unauthorized' });
    }, 500);
    onB.cookie = cookie;
    assertAnswer(await onB.get('/api/projects'), 401, { error: 'Unauthorized' });
  });

  test('login throttling counts failures on both instances: 3 failures split between A and B give 429 on either', async () => {
    const { a, b } = pair;
    const { email, password } = await a.createUser({ email: `split-${newId()}@example.com` });
    const invalid = { error: 'Invalid email or password' };
    assertAnswer(await a.anonymous.post('/api/auth/login', { email, password: 'wrong-1' }), 401, invalid, 'failure 1 on A');
    assertAnswer(await b.anonymous.post('/api/auth/login', { email, password: 'wrong-2' }), 401, invalid, 'failure 2 on B');
    assertAnswer(await a.anonymous.post('/api/auth/login', { email, password: 'wrong-3' }), 401, invalid, 'failure 3 on A');
    const tooMany = { error: 'Too many login attempts, try again later' };
    for (const [name, svc] of [['B', b], ['A', a]] as const) {
      const res = await new Client(svc.url).post('/api/auth/login', { email, password });
      assertAnswer(res, 429, tooMany, `the right password on ${name}`);
      assert.match(res.headers.get('retry-after') ?? '', /^\d+$/);
    }
  });
});

describe('REALTIME_DRIVER=redis, two instances starting at once', { skip: noPair }, () => {
  test('both migrate a fresh schema safely, create the start-up admin once, and serve', async () => {
    const admin = { ADMIN_EMAIL: `admin-${newId()}@example.com`, ADMIN_PASSWORD: 'both-at-once' };
    const env = { ...redisEnv(), ...admin };
    const first = await testConfig({ env, postgresUrl: PG_URL });
    const second = await testConfig({ env, sharedDatabase: first.config.database });
    const started = await Promise.allSettled([startService(first.config), startService(second.config)]);
    try {
      for (const s of started) if (s.status === 'rejected') throw s.reason;
      const [a, b] = started.map((s) => (s as PromiseFulfilledResult<RunningService>).value) as [RunningService, RunningService];
      for (const svc of [a, b]) assert.equal((await new Client(svc.url).get('/readyz')).status, 200);

      // One schema, migrated once, one admin.
      const schema = first.config.database.dialect === 'postgres' ? first.config.database.schema! : '';
      const client = new pg.Client({ connectionString: PG_URL });
      await client.connect();
      try {
        const migrations = await client.query(`select name from "${schema}".kysely_migration`);
        assert.deepEqual(migrations.rows.map((r) => r.name).sort(), migrationNames);
        const admins = await client.query(`select count(*)::int as n from "${schema}".users where email = $1`, [admin.ADMIN_EMAIL]);
        assert.equal(admins.rows[0].n, 1);
      } finally {
        await client.end();
      }

      // And they work together.
      const onA = new Client(a.url);
      assert.equal((await onA.post('/api/auth/login', { email: admin.ADMIN_EMAIL, password: admin.ADMIN_PASSWORD })).status, 200);
      const onB = new Client(b.url);
      onB.cookie = onA.cookie;
      const stream = await openEventStream(onB);
      try {
        const created = await onA.post('/api/projects', { name: 'Started together', pocId: (await onA.get('/api/auth/session')).body.user.id });
        assert.equal(created.status, 201, created.text);
        assert.deepEqual(withoutIds(await stream.next(2)), changeEvents(created.body.id));
      } finally {
        stream.close();
      }
    } finally {
      for (const s of started) if (s.status === 'fulfilled') await s.value.close();
      await second.cleanup();
      await first.cleanup();
    }
  });
});
