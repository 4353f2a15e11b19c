/**
 * npm run bench:reports (issue 38): GET /api/reports for a year over 100,000 projects, 300,000
 * activity entries and 50,000 payments, on SQLite, then on PostgreSQL (TEST_DATABASE_URL; skipped
 * with a notice when unset), the built service as its own process. The data is
 * bench/reports-seed.ts's (every PI verified, every sixth project delivered, the rest of the
 * entries edits, the PIs' payments), one transaction of multi-row INSERTs. All of it falls in the
 * year asked for: the report reads every row there is. Goal: p99 under 200 ms.
 *
 * The machine may be loaded: each figure is printed beside the same run's GET /healthz through the
 * same service and client (the request path's floor) as a ratio, with the service's CPU time per
 * request (its own work, whatever else the machine does; on PostgreSQL the database's is not in it).
 * The CSV's memory: the service's peak RSS during it beside its RSS at rest.
 * REPORTS_BENCH_PROJECTS and REPORTS_BENCH_REQUESTS change the size and the number of requests.
 */
import http from 'node:http';
import os from 'node:os';
import { migrate, openDatabase } from '../src/db/index.js';
import { createStore } from '../src/db/store.js';
import { newId } from '../src/ids.js';
import { silentLog } from '../src/logger.js';
import { hashPassword } from '../src/passwords.js';
import { BUILT, RssSampler, type ServiceProcess, settledRss, spawnService } from '../test/helpers/child-service.js';
import { testConfig } from '../test/helpers/service.js';
import { jsonRequest, sessionCookie } from './http.js';
import { fmtBytes, fmtMs, percentile, printTable } from './load.js';
import { cpuMsOf } from './phase.js';
import { seedReportData } from './reports-seed.js';

const PROJECTS = Number(process.env.REPORTS_BENCH_PROJECTS ?? 100_000);
const REQUESTS = Number(process.env.REPORTS_BENCH_REQUESTS ?? 100);
const GOAL_P99_MS = 200;
const PASSWORD = 'reports bench password';
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

/** p50/p99 of REQUESTS sequential GETs after 5 to warm up, and the service's CPU time per request. */
async function latencies(pid: number, port: number, path: string, cookie: string) {
  for (let i = 0; i < 5; i++) await timedGet(port, path, cookie);
  const times: number[] = [];
  let bytes = 0;
  const cpuBefore = cpuMsOf(pid);
  for (let i = 0; i < REQUESTS; i++) {
    const r = await timedGet(port, path, cookie);
    if (r.status !== 200) throw new Error(`${path}: ${r.status}`);
    times.push(r.ms);
    bytes = r.bytes;
  }
  const cpu = (cpuMsOf(pid) - cpuBefore) / REQUESTS;
  times.sort((a, b) => a - b);
  return { p50: percentile(times, 50), p99: percentile(times, 99), cpu, bytes };
}

async function run(dialect: 'sqlite' | 'postgres', postgresUrl?: string): Promise<string[][]> {
  const admin = { email: 'reports-admin@example.com', password: PASSWORD };
  const made = await testConfig({ postgresUrl, env: { LOG_LEVEL: 'warn', TIMEZONE: 'Asia/Kolkata', ADMIN_EMAIL: admin.email, ADMIN_PASSWORD: admin.password, ADMIN_NAME: 'Bench Admin' } });
  let service: ServiceProcess | undefined;
  try {
    // Migrated and seeded before the service starts: its jobs would wait on the seeding transaction's lock (SQLite).
    // Seeding's statements are long on a loaded machine: no query timeout for them.
    const config = made.config.database;
    const database = await openDatabase(config.dialect === 'postgres' ? { ...config, queryTimeoutMs: 600_000 } : config, silentLog);
    const started = performance.now();
    try {
      await migrate(database);
      const store = createStore(database);
      const poc = await store.users.insert(newId(), { name: 'Poc', email: 'reports.poc@example.com', passwordHash: await hashPassword(PASSWORD), role: 'POC', phone: null, location: null, branch: null }, new Date().toISOString());
      await seedReportData(database, { projects: PROJECTS, pocId: poc.id });
    } finally {
      await database.destroy();
    }
    step(`${dialect}: ${PROJECTS} projects, ${PROJECTS * 3} entries, ${PROJECTS / 2} payments seeded in ${fmtMs(performance.now() - started)}`);
    service = await spawnService(made.env, { entry: BUILT });
    const port = made.config.port;
    const cookie = sessionCookie((await jsonRequest<unknown>(port, 'POST', '/api/auth/login', admin, 200)).res);
    const rows: string[][] = [];
    // The same run's floor: a request through the same service and client that reads nothing.
    const floor = await latencies(service.pid, port, '/healthz', cookie);
    rows.push([dialect, 'GET /healthz (the reference: the request path alone)', fmtMs(floor.p50), fmtMs(floor.p99), '1', fmtMs(floor.cpu), '']);
    for (const [metric, path] of [
      ['GET /api/reports, a year', '/api/reports?from=2025-01-01&to=2025-12-31'],
      ['GET /api/reports, a month', '/api/reports?from=2025-02-01&to=2025-02-28'],
      ['GET /api/reports.csv?report=outstanding, a year', '/api/reports.csv?report=outstanding&from=2025-01-01&to=2025-12-31'],
    ] as const) {
      const { p50, p99, cpu, bytes } = await latencies(service.pid, port, path, cookie);
      rows.push(['', metric, fmtMs(p50), fmtMs(p99), `${(p99 / floor.p99).toFixed(1)}×`, fmtMs(cpu), `${p99 < GOAL_P99_MS ? '✓' : '✗'} p99 < ${GOAL_P99_MS} ms (${bytes} B)`]);
    }
    // The CSV's memory: the service's peak RSS while it answers, beside its RSS at rest.
    const rest = await settledRss(service.pid);
    const sampler = new RssSampler(service.pid).start();
    const csv = await timedGet(port, '/api/reports.csv?report=outstanding&from=2025-01-01&to=2025-12-31', cookie);
    sampler.stop();
    if (csv.status !== 200) throw new Error(`reports.csv: ${csv.status}`);
    rows.push(['', `GET /api/reports.csv, RSS at rest → peak (${fmtBytes(csv.bytes)})`, fmtMs(csv.ms), '', '', '', `${fmtBytes(rest)} → ${fmtBytes(sampler.peak)} (${sampler.peak >= rest ? '+' : '−'}${fmtBytes(Math.abs(sampler.peak - rest))}; a peak under the RSS at rest: the collector gave memory back meanwhile)`]);
    return rows;
  } finally {
    await service?.stop();
    await made.cleanup();
  }
}

console.log('reports benchmark (issue 38)');
console.log(`  node ${process.version}, ${os.cpus().length} cores, load average ${os.loadavg().map((l) => l.toFixed(2)).join(' ')}; ${REQUESTS} sequential requests a figure`);
const HEAD = ['database', 'metric', 'p50', 'p99', 'p99 / healthz p99', 'service CPU / request', 'goal'];
const rows = await run('sqlite');
const pgUrl = process.env.TEST_DATABASE_URL?.trim();
if (pgUrl) {
  // SQLite's figures first, in case the PostgreSQL half fails.
  console.log('');
  printTable(HEAD, rows);
  rows.push(...(await run('postgres', pgUrl)));
} else console.log('  NOTICE: TEST_DATABASE_URL is not set: the PostgreSQL half is skipped');
console.log('');
printTable(HEAD, rows);
