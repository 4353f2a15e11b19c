/**
 * npm run bench:scale-out: two instances of the built service as child processes on one PostgreSQL
 * schema, one S3 store (s3rver, started here) and one Redis. Measures S3 upload throughput and
 * memory, uploads/s spread over both instances, and how long a notification takes to reach an SSE
 * client on the other instance. BENCH_DATABASE_URL (default the machine's postgres://…/test) and
 * REDIS_URL (default redis://127.0.0.1:6379) choose the servers.
 */
import { randomBytes } from 'node:crypto';
import http from 'node:http';
import os from 'node:os';
import { BUILT, RssSampler, type ServiceProcess, memoryOf, spawnService } from '../test/helpers/child-service.js';
import { startS3Server } from '../test/helpers/s3-server.js';
import { testConfig } from '../test/helpers/service.js';
import { HOST, type HttpResult, contentBlock, jsonRequest, sessionCookie, streamUpload } from './http.js';
import { KiB, MiB, fmtBytes, fmtMs, percentile, printTable, runLoad } from './load.js';

const BIG = 100 * MiB;
const SMALL_UPLOAD = { size: 10 * KiB, clients: 8, maxCount: 2000, durationMs: 10_000 };
const NOTIFY_ROUNDS = 200;
/** Issue 39's goal for the cross-instance event (upload on A → event on B). */
const CROSS_P99_GOAL_MS = 30;

const step = (msg: string) => console.error(`[bench] ${msg}`);
const rows: string[][] = [];

async function main(): Promise<void> {
  const pgUrl = process.env.BENCH_DATABASE_URL?.trim() || 'postgres://postgres@127.0.0.1:5432/test';
  const redisUrl = process.env.REDIS_URL?.trim() || 'redis://127.0.0.1:6379';
  const admin = { email: 'bench-admin@example.com', password: `bench-${randomBytes(9).toString('base64url')}` };
  const s3 = await startS3Server('bench-documents');
  const shared = {
    LOG_LEVEL: 'warn',
    MAX_UPLOAD_BYTES: String(BIG + MiB),
    ADMIN_EMAIL: admin.email,
    ADMIN_PASSWORD: admin.password,
    REALTIME_DRIVER: 'redis',
    REDIS_URL: redisUrl,
    REDIS_CHANNEL_PREFIX: `bench-${randomBytes(6).toString('hex')}`,
    ...s3.env(),
  };
  const a = await testConfig({ postgresUrl: pgUrl, env: shared });
  const b = await testConfig({ sharedDatabase: a.config.database, env: shared });
  const servers: ServiceProcess[] = [];
  try {
    console.log('print-order service scale-out benchmark');
    console.log(`  node ${process.version}, ${os.cpus().length} cores (${os.cpus()[0]?.model.trim() ?? 'unknown CPU'}), ${fmtBytes(os.totalmem())} RAM`);
    console.log(`  two instances of dist/src/main.js on PostgreSQL schema ${a.env.DATABASE_SCHEMA}, s3rver at ${s3.endpoint}, Redis at ${redisUrl}`);
    console.log('  client, both instances, s3rver, PostgreSQL and Redis share the same machine (and its cores)\n');

    // Together, as a rollout would start them: the migration runs once under its advisory lock.
    const [A, B] = await Promise.all([spawnService(a.env, { entry: BUILT }), spawnService(b.env, { entry: BUILT })]);
    servers.push(A!, B!);
    const ports = [a.config.port, b.config.port];
    const cookieA = sessionCookie((await jsonRequest(ports[0]!, 'POST', '/api/auth/login', admin, 200)).res);
    // The session made on A is used on B as it is: sessions live in the shared database.
    const cookie = cookieA;
    const { body: project } = await jsonRequest<{ id: string }>(ports[0]!, 'POST', '/api/projects', { name: 'Scale-out benchmark' }, 201, cookie);
    await jsonRequest(ports[1]!, 'POST', `/api/projects/${project.id}/approve`, undefined, 200, cookie);
    const fields: [string, string][] = [
      ['projectId', project.id],
      ['fileType', 'PO'],
    ];

    // 1. One 100 MiB upload into S3 through instance A, its memory sampled meanwhile.
    {
      step(`uploading ${fmtBytes(BIG)} to S3 through instance A`);
      const before = memoryOf(A!.pid);
      const sampler = new RssSampler(A!.pid, 20).start();
      let res: HttpResult;
      try {
        res = await streamUpload({ port: ports[0]!, cookie, fields, filename: 'big.pdf', contentType: 'application/pdf', size: BIG, block: contentBlock(MiB), timeoutMs: 300_000 });
      } finally {
        sampler.stop();
      }
      checkedUpload(res, BIG);
      rows.push(['s3', `throughput, ${fmtBytes(BIG)} file`, `${(BIG / MiB / (res.ms / 1000)).toFixed(1)} MiB/s`, `${fmtMs(res.ms)}; lib-storage multipart into s3rver`]);
      rows.push(['', 'instance RSS before → peak during it', `${before ? fmtBytes(before.rss) : 'n/a'} → ${fmtBytes(sampler.peak)}`, `${sampler.samples} samples every 20 ms`]);
    }

    // 2. Notification latency: upload on A, wait for its project-updated on an SSE stream of B (and of A).
    {
      step(`${NOTIFY_ROUNDS} uploads on A, each awaited on SSE streams of B and A`);
      const onB = await openStream(ports[1]!, cookie);
      const onA = await openStream(ports[0]!, cookie);
      const cross: number[] = [];
      const local: number[] = [];
      const hop: number[] = [];
      const block = contentBlock(KiB);
      try {
        for (let i = 0; i < NOTIFY_ROUNDS; i++) {
          const started = performance.now();
          const seenB = onB.nextProjectUpdate().then(() => performance.now() - started);
          const seenA = onA.nextProjectUpdate().then(() => performance.now() - started);
          checkedUpload(await streamUpload({ port: ports[0]!, cookie, fields, filename: `n-${i}.pdf`, contentType: 'application/pdf', size: KiB, block, timeoutMs: 30_000 }), KiB);
          cross.push(await seenB);
          local.push(await seenA);
          hop.push(cross.at(-1)! - local.at(-1)!);
        }
      } finally {
        onA.close();
        onB.close();
      }
      cross.sort((x, y) => x - y);
      local.sort((x, y) => x - y);
      hop.sort((x, y) => x - y);
      const goal = percentile(cross, 99) <= CROSS_P99_GOAL_MS ? '✓' : '✗';
      rows.push(['realtime', 'upload start → project-updated on instance B, p50 / p99', `${fmtMs(percentile(cross, 50))} / ${fmtMs(percentile(cross, 99))}`, `${goal} p99 ≤ ${CROSS_P99_GOAL_MS} ms; ${NOTIFY_ROUNDS} 1 KiB uploads on A, one at a time, through Redis; B's p99 / A's ${(percentile(cross, 99) / percentile(local, 99)).toFixed(2)}×`]);
      rows.push(['', 'upload start → project-updated on instance A (reference), p50 / p99', `${fmtMs(percentile(local, 50))} / ${fmtMs(percentile(local, 99))}`, 'the same events on the uploading instance: the upload and its commit, without the hop']);
      // What the second instance adds to each event: the Redis hop and B's delivery, apart from the upload's own time (which a busy machine stretches).
      rows.push(['', 'B − A for the same event, p50 / p99 / max', `${fmtMs(percentile(hop, 50))} / ${fmtMs(percentile(hop, 99))} / ${fmtMs(hop.at(-1)!)}`, 'per upload: B seen minus A seen']);
    }

    // 3. Small uploads from 8 clients spread over both instances.
    {
      step(`small uploads: ${SMALL_UPLOAD.clients} clients over two instances`);
      const agents = ports.map(() => new http.Agent({ keepAlive: true, maxSockets: SMALL_UPLOAD.clients }));
      const small = contentBlock(SMALL_UPLOAD.size);
      try {
        const load = await runLoad(SMALL_UPLOAD.clients, SMALL_UPLOAD.maxCount, SMALL_UPLOAD.durationMs, async (n) => {
          const i = n % 2;
          const res = await streamUpload({ port: ports[i]!, cookie, agent: agents[i], fields, filename: `s-${n}.pdf`, contentType: 'application/pdf', size: SMALL_UPLOAD.size, block: small, timeoutMs: 30_000 });
          checkedUpload(res, SMALL_UPLOAD.size);
          return res.ms;
        });
        rows.push(['small uploads', `${fmtBytes(SMALL_UPLOAD.size)} uploads/s, ${SMALL_UPLOAD.clients} clients, 2 instances`, `${(load.count / (load.elapsedMs / 1000)).toFixed(1)} /s`, `${load.count} uploads in ${fmtMs(load.elapsedMs)}, all 201 into S3`]);
        rows.push(['', 'latency p50 / p99', `${fmtMs(percentile(load.latencies, 50))} / ${fmtMs(percentile(load.latencies, 99))}`, '']);
      } finally {
        for (const agent of agents) agent.destroy();
      }
    }
  } finally {
    await Promise.all(servers.map((s) => s.stop()));
    await b.cleanup().catch(() => {});
    await a.cleanup().catch((err: unknown) => step(`could not clean up: ${String(err)}`));
    await s3.close();
  }
  console.log('');
  printTable(['section', 'metric', 'value', 'detail'], rows);
}

function checkedUpload(res: HttpResult, size: number): void {
  const text = res.body.toString('utf8');
  if (res.status !== 201) throw new Error(`upload of ${size} bytes: ${res.status} ${text.slice(0, 300)}`);
  if ((JSON.parse(text) as { size?: unknown }).size !== size) throw new Error(`upload of ${size} bytes answered another size`);
}

/** GET /api/realtime?channels=projects, resolving each `project-updated` as it arrives. */
function openStream(port: number, cookie: string): Promise<{ nextProjectUpdate(): Promise<void>; close(): void }> {
  return new Promise((resolve, reject) => {
    const waiting: (() => void)[] = [];
    let buffered = 0;
    const req = http.get({ host: HOST, port, path: '/api/realtime?channels=projects', headers: { cookie, accept: 'text/event-stream' } }, (res) => {
      if (res.statusCode !== 200) return reject(new Error(`GET /api/realtime: ${res.statusCode}`));
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        text += chunk;
        let end: number;
        while ((end = text.indexOf('\n\n')) >= 0) {
          const message = text.slice(0, end);
          text = text.slice(end + 2);
          if (!/^event: project-updated$/m.test(message)) continue;
          const next = waiting.shift();
          if (next) next();
          else buffered++;
        }
      });
      resolve({
        nextProjectUpdate: () =>
          new Promise<void>((done) => {
            if (buffered > 0) {
              buffered--;
              done();
            } else waiting.push(done);
          }),
        close: () => req.destroy(),
      });
    });
    req.on('error', reject);
  });
}

main().catch((err: unknown) => {
  console.error(err);
  process.exitCode = 1;
});
