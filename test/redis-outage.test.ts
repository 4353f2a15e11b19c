/**
 * Redis going away under a running service (REALTIME_DRIVER=redis), made with a TCP proxy so the
 * shared Redis is never touched (issue 39 item 2). Only the upload needs Redis to answer (its
 * notification is step 11 of specification 4.1), and the specification fixes that failure's 500
 * with the failure message (test/realtime-redis.test.ts). Every other route goes on answering: the
 * session cache falls back to the database, and a change's notification or session signal that
 * Redis cannot carry is logged (warn) instead of failing the change; no route answers 503 for Redis.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { newId } from '../src/ids.js';
import { eventually } from './helpers/eventually.js';
import { captureLogs } from './helpers/logs.js';
import { type TestService, startTestService } from './helpers/service.js';
import { type TcpProxy, startTcpProxy } from './helpers/tcp-proxy.js';

const REDIS_URL = process.env.REDIS_URL;
const skip = REDIS_URL ? false : 'REDIS_URL not set (CI sets redis://127.0.0.1:6379)';

describe('Redis cut off or silent: the routes other than the upload do not depend on it', { skip }, () => {
  let proxy: TcpProxy;
  let svc: TestService;
  const log = captureLogs('warn');

  before(async () => {
    const target = new URL(REDIS_URL!);
    proxy = await startTcpProxy({ host: target.hostname, port: Number(target.port || 6379) });
    const through = new URL(REDIS_URL!);
    through.hostname = '127.0.0.1';
    through.port = String(proxy.port);
    svc = await startTestService({
      env: { REALTIME_DRIVER: 'redis', REDIS_URL: through.toString(), REDIS_CHANNEL_PREFIX: `test-${newId()}` },
      logger: log.logger,
    });
  });
  after(async () => {
    proxy?.restore();
    await svc?.close();
    await proxy?.close();
  });

  for (const outage of ['cut', 'stall'] as const) {
    test(`Redis ${outage === 'cut' ? 'refusing connections' : 'silent (a partition)'}: a deactivation (whose signal Redis cannot carry), a comment, reads and a sign-in answer as usual`, { timeout: 30_000 }, async () => {
      const admin = await svc.signIn('ADMIN');
      const { user } = await svc.createUser({ role: 'POC' });
      const other = await svc.createUser({ role: 'POC' });
      const { email, password } = other;
      const p = await svc.createProject(admin.user.id, {});
      proxy[outage]();
      try {
        const res = await admin.client.patch(`/api/team/${user.id}`, { active: false });
        assert.equal(res.status, 200, res.text);
        assert.equal(res.body.active, false);
        const reqId = res.headers.get('x-request-id');
        const lines = log.lines.filter((l) => l.reqId === reqId && l.level >= 40);
        assert.deepEqual(lines.map((l) => [l.level, l.msg]), [[40, 'the change of this user was not announced to their streams']]);
        assert.match(lines[0]!.err?.message ?? '', /^Redis is unavailable: session-ended was not published/);

        assert.equal((await admin.client.get(`/api/projects/${p.id}`)).status, 200);
        assert.equal((await admin.client.patch(`/api/projects/${p.id}`, { name: `During the ${outage}` })).status, 200);
        assert.equal((await admin.client.post(`/api/projects/${p.id}/comments`, { body: 'Redis is away' })).status, 201);
        assert.equal((await svc.login(email, password)).cookie !== undefined, true);
        const ready = await svc.anonymous.get('/readyz');
        assert.equal(ready.status, 503, ready.text);
      } finally {
        proxy.restore();
      }
      await eventually('/readyz 200 after the outage', async () => (await svc.anonymous.get('/readyz')).status === 200, 20_000);
    });
  }
});
