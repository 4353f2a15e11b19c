/**
 * npm run bench: starts the service as a child process on a temporary data dir and measures
 * upload throughput and memory, small-upload rate and GET /api/team with 10,000 users.
 * SQLite by default; BENCH_DATABASE_URL=postgres://… runs it on a fresh schema there (dropped after).
 */
import { randomBytes } from 'node:crypto';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { loadConfig } from '../src/config.js';
import { openDatabase } from '../src/db/index.js';
import { createStore } from '../src/db/store.js';
import type { Role } from '../src/domain/model.js';
import { newId } from '../src/ids.js';
import { hashPassword } from '../src/passwords.js';
import { testConfig } from '../test/helpers/service.js';
import { type HttpResult, contentBlock, jsonRequest, request, sessionCookie, streamUpload } from './http.js';
import { KiB, MiB, fmtBytes, fmtMs, percentile, printTable, runLoad } from './load.js';
import { BUILT, RssSampler, type ServiceProcess, memoryOf, spawnService } from '../test/helpers/child-service.js';

const GiB = 1024 * MiB;

const UPLOAD_SIZES = [MiB, 100 * MiB, GiB];
const SMALL_UPLOAD = { size: 10 * KiB, clients: 8, maxCount: 2000, durationMs: 10_000 };
const TEAM = { users: 10_000, batch: 500, clients: 8, maxCount: 100_000, durationMs: 10_000 };

interface Row {
  section: string;
  metric: string;
  value: string;
  detail: string;
}
const rows: Row[] = [];
const report = (section: string, metric: string, value: string, detail = '') => rows.push({ section, metric, value, detail });

const step = (msg: string) => console.error(`[bench] ${msg}`);

let cleanup: () => Promise<void> = async () => {};

async function main(): Promise<void> {
  const pgUrl = process.env.BENCH_DATABASE_URL?.trim() || undefined;
  const admin = { email: 'bench-admin@example.com', password: `bench-${randomBytes(9).toString('base64url')}` };
  const made = await testConfig({
    postgresUrl: pgUrl,
    env: {
      LOG_LEVEL: 'warn',
      MAX_UPLOAD_BYTES: String(GiB + 64 * MiB),
      ADMIN_EMAIL: admin.email,
      ADMIN_PASSWORD: admin.password,
      ADMIN_NAME: 'Bench Admin',
      SHUTDOWN_GRACE_MS: '5000',
    },
  });
  const { config } = made;
  const port = config.port;
  const running: { server?: ServiceProcess } = {};
  let cleaning: Promise<void> | undefined;
  cleanup = () =>
    (cleaning ??= (async () => {
      if (running.server) {
        step(`stopping the service (pid ${running.server.pid})`);
        await running.server.stop();
      }
      await made.cleanup().catch((err: unknown) => step(`could not clean up: ${String(err)}`));
    })());

  const where = config.database.dialect === 'sqlite' ? config.database.file : `schema ${made.env.DATABASE_SCHEMA}`;
  console.log('print-order service benchmark');
  console.log(`  node ${process.version}, ${os.cpus().length} cores (${os.cpus()[0]?.model.trim() ?? 'unknown CPU'}), ${fmtBytes(os.totalmem())} RAM, ${os.platform()} ${os.release()}`);
  console.log(`  database: ${config.database.dialect} (${where})`);
  console.log(`  service: child process \`${path.basename(process.execPath)} dist/src/main.js\` on 127.0.0.1:${port}, data dir ${config.dataDir}`);
  console.log('  client and server share the same machine (and its cores)\n');

  const { pid } = (running.server = await spawnService(made.env, { entry: BUILT }));
  step(`service up (pid ${pid})`);

  const login = await jsonRequest<unknown>(port, 'POST', '/api/auth/login', admin, 200);
  const cookie = sessionCookie(login.res);
  const { body: project } = await jsonRequest<{ id: string }>(port, 'POST', '/api/projects', { name: 'Benchmark project' }, 201, cookie);
  const { body: approved } = await jsonRequest<{ status: string }>(port, 'POST', `/api/projects/${project.id}/approve`, undefined, 200, cookie);
  if (approved.status !== 'APPROVED') throw new Error(`approve left the project in ${approved.status}`);
  const fields: [string, string][] = [
    ['projectId', project.id],
    ['fileType', 'PO'],
  ];

  // 1 + 2. Large uploads, one at a time, with the server's memory sampled meanwhile.
  const block = contentBlock(MiB);
  await checkedUpload(await streamUpload({ port, cookie, fields, filename: 'warmup.pdf', contentType: 'application/pdf', size: 64 * KiB, block, timeoutMs: 30_000 }), 64 * KiB);
  for (const size of UPLOAD_SIZES) {
    step(`uploading ${fmtBytes(size)}`);
    const before = memoryOf(pid);
    const sampler = new RssSampler(pid, 20).start();
    let res: HttpResult;
    try {
      res = await streamUpload({ port, cookie, fields, filename: `bench-${size}.pdf`, contentType: 'application/pdf', size, block, timeoutMs: 60_000 + (size / MiB) * 1000 });
    } finally {
      sampler.stop();
    }
    await checkedUpload(res, size);
    const after = memoryOf(pid);
    const label = fmtBytes(size);
    report('upload', `throughput, ${label} file`, `${(size / MiB / (res.ms / 1000)).toFixed(1)} MiB/s`, `${fmtMs(res.ms)} for the request; 201, size = ${size} checked`);
    const rssLine = `RSS before ${before ? fmtBytes(before.rss) : 'n/a'}; ${sampler.samples} samples every 20 ms, longest gap ${fmtMs(sampler.maxGapMs)}`;
    if (size === GiB) {
      report('memory', `server RSS before the ${label} upload`, before ? fmtBytes(before.rss) : 'n/a');
      report('memory', `server peak RSS during the ${label} upload`, fmtBytes(sampler.peak), `VmRSS sampled: ${sampler.samples} samples every 20 ms, longest gap ${fmtMs(sampler.maxGapMs)}`);
      report('memory', 'server VmHWM (lifetime peak) after it', after ? fmtBytes(after.hwm) : 'n/a', `VmHWM before it: ${before ? fmtBytes(before.hwm) : 'n/a'}`);
    } else {
      report('memory', `server peak RSS during the ${label} upload`, fmtBytes(sampler.peak), rssLine);
    }
  }

  // 3. Many small uploads from 8 keep-alive clients.
  {
    step(`small uploads: ${SMALL_UPLOAD.clients} clients, ${fmtBytes(SMALL_UPLOAD.size)} each, up to ${SMALL_UPLOAD.maxCount} or ${SMALL_UPLOAD.durationMs / 1000} s`);
    const agent = new http.Agent({ keepAlive: true, maxSockets: SMALL_UPLOAD.clients });
    const small = contentBlock(SMALL_UPLOAD.size);
    const sampler = new RssSampler(pid, 20).start();
    try {
      const load = await runLoad(SMALL_UPLOAD.clients, SMALL_UPLOAD.maxCount, SMALL_UPLOAD.durationMs, async (n) => {
        const res = await streamUpload({ port, cookie, agent, fields, filename: `small-${n}.pdf`, contentType: 'application/pdf', size: SMALL_UPLOAD.size, block: small, timeoutMs: 30_000 });
        await checkedUpload(res, SMALL_UPLOAD.size);
        return res.ms;
      });
      sampler.stop();
      report('small uploads', `${fmtBytes(SMALL_UPLOAD.size)} uploads/s, ${SMALL_UPLOAD.clients} clients`, `${(load.count / (load.elapsedMs / 1000)).toFixed(1)} /s`, `${load.count} uploads in ${fmtMs(load.elapsedMs)}, all 201 with size checked`);
      report('small uploads', 'latency p50 / p99', `${fmtMs(percentile(load.latencies, 50))} / ${fmtMs(percentile(load.latencies, 99))}`, `max ${fmtMs(load.latencies.at(-1) ?? NaN)}; server peak RSS ${fmtBytes(sampler.peak)}`);
    } finally {
      sampler.stop();
      agent.destroy();
    }
  }

  // 4. GET /api/team with 10,000 users seeded straight into the database.
  {
    step(`seeding ${TEAM.users} users into the database`);
    const seeded = await seedUsers(config.database, TEAM.users, TEAM.batch);
    report('team', `seed ${TEAM.users} users (one shared bcrypt hash)`, fmtMs(seeded.ms), `batches of ${TEAM.batch} in transactions, through src/db/store.ts`);

    const first = await request({ port, method: 'GET', path: '/api/team', headers: { cookie }, timeoutMs: 30_000 });
    if (first.status !== 200) throw new Error(`GET /api/team: ${first.status} ${first.body.toString('utf8').slice(0, 300)}`);
    const team = JSON.parse(first.body.toString('utf8')) as { createdAt: string; password?: unknown }[];
    if (team.length !== TEAM.users + 1) throw new Error(`GET /api/team listed ${team.length} users, expected ${TEAM.users + 1}`);
    if (team.some((u, i) => 'password' in u || (i > 0 && u.createdAt > team[i - 1]!.createdAt))) throw new Error('GET /api/team: a password field or an order other than createdAt descending');
    const size = first.body.length;

    step(`GET /api/team: ${TEAM.clients} keep-alive clients for ${TEAM.durationMs / 1000} s`);
    const agent = new http.Agent({ keepAlive: true, maxSockets: TEAM.clients });
    const sampler = new RssSampler(pid, 20).start();
    try {
      const load = await runLoad(TEAM.clients, TEAM.maxCount, TEAM.durationMs, async () => {
        const res = await request({ port, method: 'GET', path: '/api/team', headers: { cookie }, agent, timeoutMs: 30_000 });
        if (res.status !== 200 || res.body.length !== size) throw new Error(`GET /api/team: ${res.status}, ${res.body.length} bytes (expected 200, ${size})`);
        return res.ms;
      });
      sampler.stop();
      const rps = load.count / (load.elapsedMs / 1000);
      report('team', `GET /api/team req/s, ${TEAM.clients} clients`, `${rps.toFixed(1)} /s`, `${load.count} requests in ${fmtMs(load.elapsedMs)}, all 200; ${(rps * size / MiB).toFixed(1)} MiB/s of JSON`);
      report('team', 'latency p50 / p99', `${fmtMs(percentile(load.latencies, 50))} / ${fmtMs(percentile(load.latencies, 99))}`, `max ${fmtMs(load.latencies.at(-1) ?? NaN)}; first (cold) request ${fmtMs(first.ms)}`);
      report('team', 'response size', fmtBytes(size), `${size} bytes, ${team.length} users (${(size / team.length).toFixed(0)} B each); server peak RSS ${fmtBytes(sampler.peak)}`);
    } finally {
      sampler.stop();
      agent.destroy();
    }
  }

  console.log('');
  const order = [...new Set(rows.map((r) => r.section))];
  const grouped = order.flatMap((s) => rows.filter((r) => r.section === s));
  let section = '';
  printTable(
    ['section', 'metric', 'value', 'detail'],
    grouped.map((r) => {
      const cells = [r.section === section ? '' : r.section, r.metric, r.value, r.detail];
      section = r.section;
      return cells;
    }),
  );
}

/** A 201 whose `size` is exactly the number of bytes sent. */
async function checkedUpload(res: HttpResult, size: number): Promise<void> {
  const text = res.body.toString('utf8');
  if (res.status !== 201) throw new Error(`upload of ${size} bytes: ${res.status} ${text.slice(0, 300)}`);
  const body = JSON.parse(text) as { size?: unknown };
  if (body.size !== size) throw new Error(`upload of ${size} bytes answered size ${String(body.size)}`);
}

/** Inserts users with the project's own data layer, all sharing one bcrypt hash (so seeding takes seconds, not minutes). */
async function seedUsers(databaseConfig: ReturnType<typeof loadConfig>['database'], count: number, batch: number): Promise<{ ms: number }> {
  const started = performance.now();
  const database = await openDatabase(databaseConfig);
  try {
    const store = createStore(database);
    const passwordHash = await hashPassword('bench user password');
    const roles: Role[] = ['POC', 'POC', 'POC', 'CLIENT'];
    const base = Date.now() - count * 1000;
    for (let from = 0; from < count; from += batch) {
      await store.transaction(async (trx) => {
        for (let i = from; i < Math.min(count, from + batch); i++) {
          const n = String(i + 1).padStart(5, '0');
          await trx.users.insert(
            newId(),
            {
              name: `Bench User ${n}`,
              email: `bench.user.${n}@example.com`,
              passwordHash,
              role: roles[i % roles.length]!,
              phone: i % 3 === 0 ? null : `+91 98${String(10_000_000 + i).slice(-8)}`,
              location: i % 2 === 0 ? 'Mumbai' : 'Bengaluru',
              branch: i % 5 === 0 ? null : `Branch ${i % 40}`,
            },
            new Date(base + i * 1000).toISOString(),
          );
        }
      });
    }
  } finally {
    await database.destroy();
  }
  return { ms: performance.now() - started };
}

let interrupted = false;
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    interrupted = true;
    step(`${signal}: cleaning up`);
    void cleanup().finally(() => process.exit(130));
  });
}

try {
  await main();
} catch (err) {
  process.exitCode = 1;
  if (!interrupted) console.error('\nbenchmark failed:', err instanceof Error ? (err.stack ?? err.message) : err);
} finally {
  await cleanup();
}
