/**
 * npm run bench:reports (issue 38): GET /api/reports for a year over 100,000 projects, 300,000
 * activity entries and 50,000 payments, on SQLite, then on PostgreSQL (TEST_DATABASE_URL; skipped
 * with a notice when unset), the built service as its own process. Every project is created, every
 * third has a verified PI, every sixth is delivered (dated by its deliver entry), the rest of the
 * entries are edits; the PIs get 50,000 payments. All of it falls in the year asked for: the
 * report reads every row there is. Goal: p99 under 200 ms. REPORTS_BENCH_PROJECTS and
 * REPORTS_BENCH_REQUESTS change the size and the number of requests.
 */
import http from 'node:http';
import os from 'node:os';
import { sql } from 'kysely';
import { openDatabase } from '../src/db/index.js';
import { createStore } from '../src/db/store.js';
import { newId } from '../src/ids.js';
import { silentLog } from '../src/logger.js';
import { hashPassword } from '../src/passwords.js';
import { BUILT, type ServiceProcess, spawnService } from '../test/helpers/child-service.js';
import { seedProjects } from '../test/helpers/seed-projects.js';
import { testConfig } from '../test/helpers/service.js';
import { jsonRequest, sessionCookie } from './http.js';
import { fmtMs, percentile, printTable } from './load.js';

const PROJECTS = Number(process.env.REPORTS_BENCH_PROJECTS ?? 100_000);
const ENTRIES = PROJECTS * 3;
const PAYMENTS = PROJECTS / 2;
const REQUESTS = Number(process.env.REPORTS_BENCH_REQUESTS ?? 100);
const GOAL_P99_MS = 200;
const PASSWORD = 'reports bench password';
const BATCH = 500;
const step = (msg: string) => console.error(`[bench:reports] ${msg}`);

function timedGet(port: number, path: string, cookie: string): Promise<{ ms: number; status: number; bytes: number }> {
  const started = performance.now();
  return new Promise((resolve, reject) => {
    const req = http.get({ host: '127.0.0.1', port, path, headers: { cookie } }, (res) => {
      let bytes = 0;
      res.on('data', (c: Buffer) => (bytes += c.length));
      res.on('end', () => resolve({ ms: performance.now() - started, status: res.statusCode ?? 0, bytes }));
      res.on('error', reject);
    });
    req.on('error', reject);
  });
}

async function latencies(port: number, path: string, cookie: string) {
  for (let i = 0; i < 5; i++) await timedGet(port, path, cookie);
  const times: number[] = [];
  let bytes = 0;
  for (let i = 0; i < REQUESTS; i++) {
    const r = await timedGet(port, path, cookie);
    if (r.status !== 200) throw new Error(`${path}: ${r.status}`);
    times.push(r.ms);
    bytes = r.bytes;
  }
  times.sort((a, b) => a - b);
  return { p50: percentile(times, 50), p99: percentile(times, 99), bytes };
}

async function run(dialect: 'sqlite' | 'postgres', postgresUrl?: string): Promise<string[][]> {
  const admin = { email: 'reports-admin@example.com', password: PASSWORD };
  const made = await testConfig({ postgresUrl, env: { LOG_LEVEL: 'warn', TIMEZONE: 'Asia/Kolkata', ADMIN_EMAIL: admin.email, ADMIN_PASSWORD: admin.password, ADMIN_NAME: 'Bench Admin' } });
  let service: ServiceProcess | undefined;
  try {
    service = await spawnService(made.env, { entry: BUILT });
    const port = made.config.port;
    const database = await openDatabase(made.config.database, silentLog);
    const started = performance.now();
    try {
      const db = database.db;
      const store = createStore(database);
      const poc = await store.users.insert(newId(), { name: 'Poc', email: 'reports.poc@example.com', passwordHash: await hashPassword(PASSWORD), role: 'POC', phone: null, location: null, branch: null }, new Date().toISOString());
      await seedProjects(database, { projects: PROJECTS, customers: 2_000, pocIds: [poc.id], today: '2025-06-01' });
      // Every PI verified, every sixth project delivered (seedProjects: status by n mod 6, a PI on every third).
      await db.updateTable('projects').set({ pi_status: 'VERIFIED' }).where('pi_amount', 'is not', null).execute();
      const projects = await db.selectFrom('projects').select(['id', 'created_at', 'status', 'pi_amount']).orderBy('created_at').execute();
      let seq = 0;
      let entries: object[] = [];
      const flush = async (force = false) => {
        if (entries.length >= BATCH || (force && entries.length)) {
          await db.insertInto('activity_log').values(entries as never).execute();
          entries = [];
        }
      };
      const entry = (projectId: string, action: string, at: number) =>
        entries.push({ id: newId(), seq: ++seq, user_id: poc.id, action, entity_type: 'project', entity_id: projectId, details: '{}', created_at: new Date(at).toISOString(), internal: false });
      const day = 86_400_000;
      for (const [n, p] of projects.entries()) {
        const at = Date.parse(p.created_at);
        entry(p.id, 'PROJECT_CREATED', at);
        if (p.pi_amount !== null) entry(p.id, 'PI_VERIFIED', at + day);
        if (p.status === 'DELIVERED') entry(p.id, 'PROJECT_DELIVERED', at + (n % 30) * day + 3_600_000);
        await flush();
      }
      // Edits until the log holds ENTRIES.
      for (let n = 0; seq < ENTRIES; n++) {
        entry(projects[n % projects.length]!.id, 'PROJECT_UPDATED', Date.parse(projects[n % projects.length]!.created_at) + 7_200_000);
        await flush();
      }
      await flush(true);
      const withPi = projects.filter((p) => p.pi_amount !== null);
      let payments: object[] = [];
      for (let i = 0; i < PAYMENTS; i++) {
        const p = withPi[i % withPi.length]!;
        const on = new Date(Date.parse(p.created_at) + (2 + (i % 60)) * day).toISOString().slice(0, 10);
        payments.push({ id: newId(), project_id: p.id, amount: Math.max(1, Math.floor(p.pi_amount! / 3)), currency: 'INR', received_on: on, method: null, reference: null, recorded_by_id: poc.id, created_at: new Date().toISOString() });
        if (payments.length === BATCH || i === PAYMENTS - 1) {
          await db.insertInto('payments').values(payments as never).execute();
          payments = [];
        }
      }
      await sql`analyze`.execute(db);
    } finally {
      await database.destroy();
    }
    step(`${dialect}: ${PROJECTS} projects, ${ENTRIES} entries, ${PAYMENTS} payments seeded in ${fmtMs(performance.now() - started)}`);
    const cookie = sessionCookie((await jsonRequest<unknown>(port, 'POST', '/api/auth/login', admin, 200)).res);
    const rows: string[][] = [];
    // The same run's floor: a request through the same service and client that reads nothing.
    const floor = await latencies(port, '/healthz', cookie);
    rows.push([dialect, 'GET /healthz (the reference: the request path alone)', fmtMs(floor.p50), fmtMs(floor.p99), '']);
    for (const [metric, path] of [
      ['GET /api/reports, a year', '/api/reports?from=2025-01-01&to=2025-12-31'],
      ['GET /api/reports, a month', '/api/reports?from=2025-02-01&to=2025-02-28'],
      ['GET /api/reports.csv?report=outstanding, a year', '/api/reports.csv?report=outstanding&from=2025-01-01&to=2025-12-31'],
    ] as const) {
      const { p50, p99, bytes } = await latencies(port, path, cookie);
      rows.push(['', metric, fmtMs(p50), fmtMs(p99), `${p99 < GOAL_P99_MS ? '✓' : '✗'} p99 < ${GOAL_P99_MS} ms (${bytes} B)`]);
    }
    return rows;
  } finally {
    await service?.stop();
    await made.cleanup();
  }
}

console.log('reports benchmark (issue 38)');
console.log(`  node ${process.version}, ${os.cpus().length} cores, load average ${os.loadavg().map((l) => l.toFixed(2)).join(' ')}; ${REQUESTS} sequential requests a figure`);
const rows = await run('sqlite');
const pgUrl = process.env.TEST_DATABASE_URL?.trim();
if (pgUrl) rows.push(...(await run('postgres', pgUrl)));
else console.log('  NOTICE: TEST_DATABASE_URL is not set: the PostgreSQL half is skipped');
console.log('');
printTable(['database', 'metric', 'p50', 'p99', 'goal'], rows);
