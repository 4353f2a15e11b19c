/**
 * In-process profile of the board's and the calendar month's reads (issue 36): seeds as
 * bench/board.ts does (plus lines, payments, proofs and invoices on some projects), then times each
 * step (rows, withItems, presentation, JSON) and counts statements. Not part of `npm run bench`:
 * `npx tsx bench/profile-board.ts` (BENCH_DATABASE_URL=postgres://… for PostgreSQL; PROFILE_PRIORITY=100000 adds that many projects for sort=priority).
 */
import { CompiledQuery, sql } from 'kysely';
import { openDatabase, migrate } from '../src/db/index.js';
import { createStore } from '../src/db/store.js';
import { newId } from '../src/ids.js';
import { silentLog } from '../src/logger.js';
import { presentProject } from '../src/presenters/index.js';
import { availableActions } from '../src/domain/project-lifecycle.js';
import { byPriority } from '../src/domain/board.js';
import { testConfig } from '../test/helpers/service.js';
import { percentile } from './load.js';

const made = await testConfig({ postgresUrl: process.env.BENCH_DATABASE_URL || undefined });
const database = await openDatabase(made.config.database, silentLog);
let statements = 0;
try {
  if (database.dialect === 'postgres') await sql`create schema if not exists ${sql.id(made.env.DATABASE_SCHEMA!)}`.execute(database.db).catch(() => {});
  await migrate(database);
  const adminId = newId();
  const now = new Date().toISOString();
  await database.db.insertInto('users').values({ id: adminId, email: 'a@example.com', email_key: 'a@example.com', active: true, name: 'Admin', role: 'ADMIN', password_hash: 'x', created_at: now, updated_at: now } as never).execute();
  const STATUSES = ['REQUESTED', 'APPROVED', 'PRINTING', 'DISPATCHED'] as const;
  const rows = Array.from({ length: 2000 }, (_, i) => {
    const at = new Date(Date.now() - i * 60_000).toISOString();
    const due = i < 500 ? `2031-01-${String((i % 31) + 1).padStart(2, '0')}` : i % 3 === 0 ? null : `2031-0${3 + (i % 6)}-1${i % 9}`;
    return { id: newId(), name: `Board bench ${i}`, description: null, poc_id: adminId, status: STATUSES[i % 4]!, pi_status: i % 2 ? 'VERIFIED' : 'PENDING', created_at: at, updated_at: at, due_date: due, number: 5_000_000 + i, rush: i % 17 === 0 };
  });
  for (let i = 0; i < rows.length; i += 200) await database.db.insertInto('projects').values(rows.slice(i, i + 200) as never).execute();
  const extra = Number(process.env.PROFILE_PRIORITY ?? 0);
  for (let i = 0; i < extra; i += 1000) {
    const batch = Array.from({ length: Math.min(1000, extra - i) }, (_, j) => {
      const n = i + j;
      const at = new Date(Date.now() - (n + 30_000) * 60_000).toISOString();
      return { id: newId(), name: `Priority ${n}`, description: null, poc_id: adminId, status: 'DELIVERED', pi_status: 'VERIFIED', created_at: at, updated_at: at, due_date: n % 2 ? `2030-${String((n % 12) + 1).padStart(2, '0')}-10` : null, number: 6_000_000 + n, rush: n % 13 === 0, held: n % 29 === 0 };
    });
    await database.db.insertInto('projects').values(batch as never).execute();
  }
  if (database.dialect === 'postgres') await sql`analyze`.execute(database.db);
  else await sql`analyze`.execute(database.db);

  let capture = false;
  const captured: CompiledQuery[] = [];
  const counted = database.db.withPlugin({
    transformQuery: (a) => {
      statements++;
      if (capture) captured.push(database.db.getExecutor().compileQuery(a.node, a.queryId));
      return a.node;
    },
    transformResult: async (a) => a.result,
  });
  const store = createStore({ ...database, db: counted });
  const admin = { id: adminId, role: 'ADMIN' as const, customerId: null };
  const time = async <T>(what: string, n: number, fn: () => Promise<T>) => {
    const ts: number[] = [];
    let last!: T;
    statements = 0;
    for (let i = 0; i < n; i++) {
      const t = performance.now();
      last = await fn();
      ts.push(performance.now() - t);
    }
    ts.sort((a, b) => a - b);
    console.log(`${what}: p50 ${percentile(ts, 50).toFixed(1)} ms, p99 ${percentile(ts, 99).toFixed(1)} ms, ${(statements / n).toFixed(1)} statements each`);
    return last;
  };
  const since = new Date(Date.now() - 14 * 86400_000).toISOString();
  const projects = await time('store.projects.board', 20, () => store.projects.board(admin as never, { deliveredSince: since }));
  await time('sort + allowedActions', 20, async () => [...projects].sort(byPriority).map((p) => availableActions(admin as never, p)));
  const presented = await time('presentProject', 20, async () => projects.map((p) => presentProject(p, '2026-11-27', admin as never, 'INR')));
  await time('JSON.stringify', 20, async () => JSON.stringify(presented));
  await time('month page (dueFrom/dueTo, sort=due, limit 200)', 20, () => store.projects.list(admin as never, { dueFrom: '2031-01-01', dueTo: '2031-01-31', sort: 'due', limit: 200 }));
  await time('month (limit 500)', 20, () => store.projects.list(admin as never, { dueFrom: '2031-01-01', dueTo: '2031-01-31', sort: 'due', limit: 500 }));
  await time('sort=priority page 50', 20, () => store.projects.list(admin as never, { sort: 'priority', limit: 50 }));
  const explain = async (what: string, fn: () => Promise<unknown>) => {
    captured.length = 0;
    capture = true;
    await fn();
    capture = false;
    console.log(`\n== ${what}`);
    for (const q of [...captured]) {
      const ts: number[] = [];
      for (let i = 0; i < 10; i++) {
        const t = performance.now();
        await database.db.executeQuery(q);
        ts.push(performance.now() - t);
      }
      ts.sort((a, b) => a - b);
      console.log(`-- ${percentile(ts, 50).toFixed(1)} ms: ${q.sql.slice(0, process.env.PROFILE_SQL ? 100000 : 160)}`);
      if (process.env.PROFILE_EXPLAIN) {
        const plan = await database.db.executeQuery(CompiledQuery.raw(`${database.dialect === 'sqlite' ? 'explain query plan' : 'explain analyze'} ${q.sql}`, [...q.parameters]));
        for (const r of plan.rows as Record<string, unknown>[]) console.log('   ', database.dialect === 'sqlite' ? `${r.id}/${r.parent} ${r.detail}` : r['QUERY PLAN']);
      }
    }
  };
  if (process.env.PROFILE_VARIANTS) {
    const variants: Record<string, string> = {
      'all columns, no joins': `select * from projects where status in ('REQUESTED','APPROVED','PRINTING','DISPATCHED')`,
      'id only': `select id from projects where status in ('REQUESTED','APPROVED','PRINTING','DISPATCHED')`,
      'all + poc join': `select projects.*, poc.name as poc_name from projects left join users poc on poc.id = projects.poc_id where projects.status in ('REQUESTED','APPROVED','PRINTING','DISPATCHED')`,
      'all + 6 joins': `select projects.*, poc.name, d.name, c.name, s.name, h.name, o.name from projects left join users poc on poc.id = projects.poc_id left join users d on d.id = projects.approval_decided_by_id left join customers c on c.id = projects.customer_id left join users s on s.id = projects.pi_submitted_by_id left join users h on h.id = projects.hold_by_id left join projects o on o.id = projects.repeat_of_id where projects.status in ('REQUESTED','APPROVED','PRINTING','DISPATCHED')`,
    };
    for (const [name, text] of Object.entries(variants)) {
      const ts: number[] = [];
      for (let i = 0; i < 15; i++) {
        const t = performance.now();
        await database.db.executeQuery(CompiledQuery.raw(text));
        ts.push(performance.now() - t);
      }
      ts.sort((a, b) => a - b);
      console.log(`variant ${name}: ${percentile(ts, 50).toFixed(1)} ms`);
    }
  }
  await explain('board', () => store.projects.board(admin as never, { deliveredSince: since }));
  await explain('month page', () => store.projects.list(admin as never, { dueFrom: '2031-01-01', dueTo: '2031-01-31', sort: 'due', limit: 200 }));
  await explain('priority page', () => store.projects.list(admin as never, { sort: 'priority', limit: 50 }));
} finally {
  await database.destroy();
  await made.cleanup();
}
