/**
 * PostgreSQL going away under a running service (a restart, a failover, a cut link), made with a
 * TCP proxy in front of TEST_DATABASE_URL so the shared server is never touched. The pool holds
 * connections (idle and busy) when the link is cut: the process must survive, answer in JSON, and
 * recover by itself once PostgreSQL is reachable again. PostgreSQL only: SQLite has no connection.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { eventually } from './helpers/eventually.js';
import { type TestService, startTestService, testDialect } from './helpers/service.js';
import { type TcpProxy, startTcpProxy } from './helpers/tcp-proxy.js';

const PG_URL = process.env.TEST_DATABASE_URL;
const skip = testDialect !== 'postgres' ? 'PostgreSQL only (runs in the PostgreSQL pass)' : false;

describe('PostgreSQL cut off while the pool holds connections', { skip }, () => {
  let proxy: TcpProxy;
  let svc: TestService;
  let admin: Awaited<ReturnType<TestService['signIn']>>['client'];

  before(async () => {
    const target = new URL(PG_URL!);
    proxy = await startTcpProxy({ host: target.hostname, port: Number(target.port || 5432) });
    const through = new URL(PG_URL!);
    through.hostname = '127.0.0.1';
    through.port = String(proxy.port);
    svc = await startTestService({ postgresUrl: through.toString(), env: { DATABASE_POOL_SIZE: '6' } });
    admin = (await svc.signIn('ADMIN')).client;
  });
  after(async () => {
    proxy.restore();
    await svc?.close();
    await proxy?.close();
  });

  /** Many requests at once, so the pool opens several connections (they stay idle in it afterwards). */
  const burst = (n = 12) => Promise.all(Array.from({ length: n }, () => admin.get('/api/projects?limit=5')));

  for (const when of ['idle', 'busy'] as const) {
    test(`a cut with ${when} connections in the pool: the process lives, answers JSON 500/503, and recovers`, { timeout: 60_000 }, async () => {
      for (const res of await burst()) assert.equal(res.status, 200);
      assert.ok(proxy.open >= 2, `the pool should hold several connections, holds ${proxy.open}`);

      let inFlight: Promise<{ status: number; body: unknown }[]> | undefined;
      if (when === 'busy') inFlight = burst(20);
      proxy.cut();
      // Every request that was running answers (error or not) rather than hanging or crashing the process.
      for (const res of (await inFlight) ?? []) {
        assert.ok([200, 500].includes(res.status), `unexpected ${res.status}`);
        if (res.status === 500) assert.deepEqual(res.body, { error: 'Internal server error' });
      }
      // Give the pool's idle clients time to notice (the crash came within 50 ms).
      await new Promise((r) => setTimeout(r, 300));
      const health = await svc.anonymous.get('/healthz');
      assert.equal(health.status, 200);
      const ready = await svc.anonymous.get('/readyz');
      assert.equal(ready.status, 503);
      assert.match(ready.body.error, /^Not ready: database \(/);
      const failed = await admin.get('/api/projects');
      assert.equal(failed.status, 500);
      assert.deepEqual(failed.body, { error: 'Internal server error' });

      proxy.restore();
      await eventually('the service answers from PostgreSQL again', async () => (await admin.get('/api/projects')).status === 200, 20_000);
      assert.equal((await svc.anonymous.get('/readyz')).status, 200);
      for (const res of await burst()) assert.equal(res.status, 200);
    });
  }
});

describe('PostgreSQL silent (a partition: the link stays open, nothing comes back)', { skip }, () => {
  test('requests in flight answer a JSON 500 within DATABASE_QUERY_TIMEOUT_MS instead of hanging; then it recovers', { timeout: 60_000 }, async () => {
    const target = new URL(PG_URL!);
    const proxy = await startTcpProxy({ host: target.hostname, port: Number(target.port || 5432) });
    const through = new URL(PG_URL!);
    through.hostname = '127.0.0.1';
    through.port = String(proxy.port);
    const svc = await startTestService({ postgresUrl: through.toString(), env: { DATABASE_POOL_SIZE: '4', DATABASE_QUERY_TIMEOUT_MS: '1000' } });
    try {
      const admin = (await svc.signIn('ADMIN')).client;
      assert.equal((await admin.get('/api/projects')).status, 200);
      proxy.stall();
      const started = Date.now();
      const answers = await Promise.all(Array.from({ length: 4 }, () => admin.get('/api/projects')));
      for (const res of answers) {
        assert.equal(res.status, 500, res.text);
        assert.deepEqual(res.body, { error: 'Internal server error' });
      }
      assert.ok(Date.now() - started < 8000, `answered after ${Date.now() - started} ms`);
      proxy.restore();
      await eventually('the service answers from PostgreSQL again', async () => (await admin.get('/api/projects')).status === 200, 20_000);
    } finally {
      proxy.restore();
      await svc.close();
      await proxy.close();
    }
  });
});
