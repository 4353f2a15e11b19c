/**
 * npm run bench, search and CSV (issue 22): 100,000 projects and 5,000 customers on SQLite, then on
 * PostgreSQL (TEST_DATABASE_URL; skipped with a notice when unset), the built service as its own
 * process. Measures p50/p99 of GET /api/projects?due=overdue&sort=due, ?q=<a customer name
 * fragment> and ?q=<a reference fragment>, as an ADMIN and as a POC, beside two references taken in
 * the same run (GET /healthz and the unfiltered first page); then the CSV of all 100,000 projects:
 * its time, and the service's peak RSS beside its RSS at rest, for the first export on a freshly started
 * service and for a second (warm), of all projects and of one POC's (1/20th): flat memory shows as a
 * growth that does not follow the size. Goals: p99 under 50 ms; an export's growth ≤ +16 MiB (issue 39).
 * SEARCH_BENCH_PROJECTS / SEARCH_BENCH_REQUESTS change the size and the number of requests.
 */
import http from 'node:http';
import os from 'node:os';
import { openDatabase } from '../src/db/index.js';
import { createStore } from '../src/db/store.js';
import { newId } from '../src/ids.js';
import { silentLog } from '../src/logger.js';
import { hashPassword } from '../src/passwords.js';
import { BUILT, RssSampler, type ServiceProcess, settledRss, spawnService } from '../test/helpers/child-service.js';
import { seedProjects, seededCustomerName, seededReference } from '../test/helpers/seed-projects.js';
import { testConfig } from '../test/helpers/service.js';
import { jsonRequest, sessionCookie } from './http.js';
import { fmtBytes, fmtMs, percentile, printTable } from './load.js';

const PROJECTS = Number(process.env.SEARCH_BENCH_PROJECTS ?? 100_000);
const CUSTOMERS = 5_000;
const POCS = 20;
const REQUESTS = Number(process.env.SEARCH_BENCH_REQUESTS ?? 300);
const GOAL_P99_MS = 50;
/** Issue 39: an export's peak RSS over rest, whatever its size. */
const GOAL_CSV_GROWTH = 16 * 1024 * 1024;
const TODAY = new Date().toISOString().slice(0, 10);
const PASSWORD = 'search bench password';
const step = (msg: string) => console.error(`[bench:search] ${msg}`);

/** One GET, its time in ms; the body read and dropped. */
function timedGet(port: number, path: string, cookie?: string): Promise<{ ms: number; status: number; bytes: number }> {
  const started = performance.now();
  return new Promise((resolve, reject) => {
    const req = http.get({ host: '127.0.0.1', port, path, headers: cookie ? { cookie } : {} }, (res) => {
      let bytes = 0;
      res.on('data', (c: Buffer) => (bytes += c.length));
      res.on('end', () => resolve({ ms: performance.now() - started, status: res.statusCode ?? 0, bytes }));
      res.on('error', reject);
    });
    req.on('error', reject);
  });
}

/** p50 and p99 of REQUESTS sequential GETs after a few to warm up. */
async function latencies(port: number, path: string, cookie?: string): Promise<{ p50: number; p99: number }> {
  for (let i = 0; i < 5; i++) await timedGet(port, path, cookie);
  const times: number[] = [];
  for (let i = 0; i < REQUESTS; i++) {
    const { ms, status } = await timedGet(port, path, cookie);
    if (status !== 200) throw new Error(`${path}: ${status}`);
    times.push(ms);
  }
  times.sort((a, b) => a - b);
  return { p50: percentile(times, 50), p99: percentile(times, 99) };
}

async function run(dialect: 'sqlite' | 'postgres', postgresUrl?: string): Promise<string[][]> {
  const admin = { email: 'search-admin@example.com', password: PASSWORD };
  const made = await testConfig({ postgresUrl, env: { LOG_LEVEL: 'warn', ADMIN_EMAIL: admin.email, ADMIN_PASSWORD: admin.password, ADMIN_NAME: 'Bench Admin' } });
  let service: ServiceProcess | undefined;
  try {
    service = await spawnService(made.env, { entry: BUILT });
    const port = made.config.port;
    const database = await openDatabase(made.config.database, silentLog);
    const pocs: { id: string; email: string }[] = [];
    const started = performance.now();
    try {
      const store = createStore(database);
      const passwordHash = await hashPassword(PASSWORD);
      for (let i = 0; i < POCS; i++) {
        const email = `search.poc.${i}@example.com`;
        const user = await store.users.insert(newId(), { name: `Poc Person ${i}`, email, passwordHash, role: 'POC', phone: null, location: null, branch: null }, new Date().toISOString());
        pocs.push({ id: user.id, email });
      }
      await seedProjects(database, { projects: PROJECTS, customers: CUSTOMERS, pocIds: pocs.map((p) => p.id), today: TODAY });
    } finally {
      await database.destroy();
    }
    step(`${dialect}: ${PROJECTS} projects, ${CUSTOMERS} customers seeded in ${fmtMs(performance.now() - started)}`);
    const login = async (email: string) => sessionCookie((await jsonRequest<unknown>(port, 'POST', '/api/auth/login', { email, password: PASSWORD }, 200)).res);
    const adminCookie = await login(admin.email);

    // Fragments with few matches (the hard case: nothing to stop a walk early). Customer k's projects are n ≡ k (mod 5,000), all one POC's (n mod 20).
    const customerK = 1234;
    const customerFragment = seededCustomerName(customerK).toLowerCase().slice(9, 18); // "01234 lab"
    const referenceN = 4217;
    const referenceFragment = seededReference(referenceN).toLowerCase(); // "po-004217"
    const pocOf = async (n: number) => login(pocs[n % POCS]!.email);
    const cases: { metric: string; path: string; cookie: string }[] = [
      { metric: 'due=overdue&sort=due, ADMIN', path: '/api/projects?due=overdue&sort=due', cookie: adminCookie },
      { metric: 'due=overdue&sort=due, POC', path: '/api/projects?due=overdue&sort=due', cookie: await pocOf(0) },
      { metric: `q=${customerFragment} (customer), ADMIN`, path: `/api/projects?q=${encodeURIComponent(customerFragment)}`, cookie: adminCookie },
      { metric: `q=${customerFragment} (customer), POC`, path: `/api/projects?q=${encodeURIComponent(customerFragment)}`, cookie: await pocOf(customerK) },
      { metric: `q=${referenceFragment} (reference), ADMIN`, path: `/api/projects?q=${encodeURIComponent(referenceFragment)}`, cookie: adminCookie },
      { metric: `q=${referenceFragment} (reference), POC`, path: `/api/projects?q=${encodeURIComponent(referenceFragment)}`, cookie: await pocOf(referenceN) },
    ];
    const health = await latencies(port, '/healthz');
    const firstPage = await latencies(port, '/api/projects', adminCookie);
    const rows: string[][] = [
      [dialect, 'GET /healthz (reference)', fmtMs(health.p50), fmtMs(health.p99), '', ''],
      ['', 'GET /api/projects, first page (reference)', fmtMs(firstPage.p50), fmtMs(firstPage.p99), `${(firstPage.p99 / health.p99).toFixed(1)}× healthz`, ''],
    ];
    for (const c of cases) {
      const check = await timedGet(port, c.path, c.cookie);
      const { p50, p99 } = await latencies(port, c.path, c.cookie);
      rows.push(['', c.metric, fmtMs(p50), fmtMs(p99), `${(p99 / firstPage.p99).toFixed(2)}× first page`, `${p99 < GOAL_P99_MS ? '✓' : '✗'} p99 < ${GOAL_P99_MS} ms (${check.bytes} B)`]);
    }

    // The CSV's memory: each export's peak RSS over the RSS at rest just before it, on a freshly
    // started service (the first export: V8 grows its young generation from its startup size) and
    // then again on the same process (warm); of the whole list and of one POC's projects (PROJECTS / POCS).
    // The service runs as `npm start` runs it (no V8 flags), and nothing forces a collection.
    const pocFilter = `?pocId=${pocs[0]!.id}`;
    for (const [label, path, count] of [
      ['all', '/api/projects.csv', PROJECTS],
      [`one POC's (pocId=)`, `/api/projects.csv${pocFilter}`, PROJECTS / POCS],
    ] as const) {
      await service.stop();
      service = await spawnService(made.env, { entry: BUILT });
      const cookie = await login(admin.email);
      await new Promise((r) => setTimeout(r, 1000));
      const started = await settledRss(service.pid);
      for (const run of ['first export, fresh service', 'second export (warm)']) {
        const rest = await settledRss(service.pid);
        const sampler = new RssSampler(service.pid).start();
        const csv = await timedGet(port, path, cookie);
        sampler.stop();
        if (csv.status !== 200) throw new Error(`projects.csv: ${csv.status}`);
        const growth = sampler.peak - rest;
        rows.push([
          '',
          `GET /api/projects.csv, ${label}: ${count} projects (${fmtBytes(csv.bytes)}), ${run}`,
          fmtMs(csv.ms),
          '',
          `${fmtBytes(sampler.peak)} peak RSS / ${fmtBytes(rest)} at rest (${fmtBytes(started)} after start) = ${(sampler.peak / rest).toFixed(2)}×`,
          `${growth <= GOAL_CSV_GROWTH ? '✓' : '✗'} +${fmtBytes(growth)} (goal ≤ +${fmtBytes(GOAL_CSV_GROWTH)})`,
        ]);
      }
    }
    return rows;
  } finally {
    await service?.stop();
    await made.cleanup();
  }
}

console.log('search and CSV benchmark (issue 22)');
console.log(`  node ${process.version}, ${os.cpus().length} cores, load average ${os.loadavg().map((l) => l.toFixed(2)).join(' ')}; ${REQUESTS} sequential requests a figure`);
const rows = await run('sqlite');
const pgUrl = process.env.TEST_DATABASE_URL?.trim();
if (pgUrl) rows.push(...(await run('postgres', pgUrl)));
else console.log('  NOTICE: TEST_DATABASE_URL is not set: the PostgreSQL half is skipped');
console.log('');
printTable(['database', 'metric', 'p50 / time', 'p99', 'ratio', 'goal'], rows);
