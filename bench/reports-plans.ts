/**
 * The reports' queries one by one (issue 38), for profiling: each reportsRepo read behind a year's
 * GET /api/reports, its plan (SQLite: EXPLAIN QUERY PLAN; PostgreSQL: EXPLAIN ANALYZE) and its
 * median time over REPORTS_PLANS_RUNS runs, straight against the database (no HTTP). The data is
 * bench/reports-seed.ts's, made once and kept: SQLite in REPORTS_PLANS_FILE (default
 * /tmp/reports-plans.db), PostgreSQL (with TEST_DATABASE_URL) in the schema reports_plans.
 * REPORTS_PLANS_RESET=1 seeds again. `tsx bench/reports-plans.ts`.
 */
import fs from 'node:fs';
import SQLite from 'better-sqlite3';
import { CompiledQuery, Kysely, PostgresDialect, SqliteDialect } from 'kysely';
import pg from 'pg';
import { shopReportArgs } from '../src/actions/reports.js';
import { type Database, PreparedStatements, migrate } from '../src/db/index.js';
import { reportsRepo } from '../src/db/reports.js';
import { agingStarts } from '../src/domain/reports.js';
import type { Tables } from '../src/db/schema.js';
import { createStore } from '../src/db/store.js';
import { newId } from '../src/ids.js';
import { seedReportData } from './reports-seed.js';

const PROJECTS = Number(process.env.REPORTS_BENCH_PROJECTS ?? 100_000);
const RUNS = Number(process.env.REPORTS_PLANS_RUNS ?? 10);
const FILE = process.env.REPORTS_PLANS_FILE ?? '/tmp/reports-plans.db';
const SCHEMA = 'reports_plans';
const pgUrl = process.env.TEST_DATABASE_URL?.trim();
const reset = process.env.REPORTS_PLANS_RESET === '1';

const captured: CompiledQuery[] = [];
const log = (e: { level: string; query: CompiledQuery }) => void captured.push(e.query);

let database: Database;
if (pgUrl) {
  const admin = new pg.Client({ connectionString: pgUrl });
  await admin.connect();
  if (reset) await admin.query(`drop schema if exists ${SCHEMA} cascade`);
  await admin.query(`create schema if not exists ${SCHEMA}`);
  await admin.end();
  const pool = new pg.Pool({ connectionString: pgUrl, options: `-c search_path=${SCHEMA}`, max: 6 });
  const db = new Kysely<Tables>({ dialect: new PostgresDialect({ pool }), log });
  database = { db, dialect: 'postgres', destroy: () => db.destroy() };
} else {
  if (reset) for (const f of [FILE, `${FILE}-wal`, `${FILE}-shm`]) fs.rmSync(f, { force: true });
  const sqlite = new SQLite(FILE);
  sqlite.pragma('journal_mode = WAL');
  sqlite.pragma('synchronous = NORMAL');
  const db = new Kysely<Tables>({ dialect: new SqliteDialect({ database: new PreparedStatements(sqlite) }), log });
  database = { db, dialect: 'sqlite', destroy: () => db.destroy() };
}
const db = database.db;
await migrate(database);
if (!(await db.selectFrom('projects').select('id').limit(1).executeTakeFirst())) {
  const started = performance.now();
  const poc = await createStore(database).users.insert(newId(), { name: 'Poc', email: 'plans.poc@example.com', passwordHash: 'x', role: 'POC', phone: null, location: null, branch: null }, new Date().toISOString());
  await seedReportData(database, { projects: PROJECTS, pocId: poc.id });
  console.log(`seeded ${PROJECTS} projects in ${((performance.now() - started) / 1000).toFixed(1)} s`);
}
captured.length = 0;

const args = shopReportArgs({ timeZone: 'Asia/Kolkata' }, '2025-01-01', '2025-12-31');
const repo = reportsRepo(db);
const scope = { all: true } as const;
const reads: [string, () => Promise<unknown>][] = [
  ['deliveries', () => repo.deliveries(scope, args.start, args.end)],
  ['createdIn', () => repo.createdIn(scope, args.bounds)],
  ['receivedByMonth', () => repo.receivedByMonth(args.from, args.to, 'INR')],
  ['invoicedByMonth', () => repo.invoicedByMonth(args.from, args.to, 'INR')],
  ['openBalances', () => repo.openBalances(scope, args.to, args.end, 'INR', agingStarts(args.to, args.days))],
  ['otherCurrencyPayments', () => repo.otherCurrencyPayments(args.from, args.to, 'INR')],
];
for (const [name, read] of reads) {
  captured.length = 0;
  await read();
  const queries = [...captured];
  const times: number[] = [];
  const cpu: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    const t = performance.now();
    const c = process.cpuUsage();
    await read();
    const used = process.cpuUsage(c);
    cpu.push((used.user + used.system) / 1000);
    times.push(performance.now() - t);
  }
  const median = (xs: number[]) => xs.sort((a, b) => a - b)[xs.length >> 1]!.toFixed(1);
  // This process's CPU time: on SQLite the query's whole cost (in process), less disturbed by a loaded machine than the wall time.
  console.log(`\n=== ${name}: median ${median(times)} ms wall, ${median(cpu)} ms CPU in this process (${RUNS} runs, ${database.dialect})`);
  for (const q of queries) {
    console.log(q.sql.replace(/\s+/g, ' ').slice(0, 600));
    const explain = database.dialect === 'postgres' ? 'explain (analyze, buffers) ' : 'explain query plan ';
    const plan = await db.executeQuery(CompiledQuery.raw(explain + q.sql, [...q.parameters]));
    for (const r of plan.rows as Record<string, unknown>[]) console.log('  ', database.dialect === 'postgres' ? r['QUERY PLAN'] : `${r.id}/${r.parent} ${r.detail}`);
  }
}
await database.destroy();
