/**
 * The board and calendar phase of `npm run bench` (issue 36): with 2,000 open projects seeded (500
 * of them due in one month), GET /api/board as an ADMIN (every card, in one answer) and a calendar
 * month as the web app reads it (GET /api/projects?dueFrom&dueTo&sort=due, every page), each timed
 * sequentially. Goals: the board p99 under 100 ms, the month p99 under 50 ms.
 */
import http from 'node:http';
import { openDatabase } from '../src/db/index.js';
import { newId } from '../src/ids.js';
import { silentLog } from '../src/logger.js';
import { fmtMs, percentile } from './load.js';
import type { BenchContext } from './phase.js';

const OPEN = 2000;
const DUE_IN_MONTH = 500;
const MONTH = { from: '2031-01-01', to: '2031-01-31' };
const GOALS = { board: 100, month: 50 };
const STATUSES = ['REQUESTED', 'APPROVED', 'PRINTING', 'DISPATCHED'] as const;

/** One GET with the session, its JSON and time in ms; a status but 200 fails it. */
export function timedJson(port: number, path: string, cookie: string, parse = true): Promise<{ ms: number; body: { items: { dueDate: string | null }[]; nextCursor?: string | null } }> {
  const started = performance.now();
  return new Promise((resolve, reject) => {
    const req = http.get({ host: '127.0.0.1', port, path, agent: false, headers: { cookie } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () =>
        res.statusCode === 200 ? resolve({ ms: performance.now() - started, body: parse ? JSON.parse(Buffer.concat(chunks).toString()) : { items: [] } }) : reject(new Error(`GET ${path} answered ${res.statusCode}`)),
      );
      res.on('error', reject);
    });
    req.on('error', reject);
  });
}

/** A figure's and its /healthz reference's latencies, each sorted. */
export interface Paired {
  ours: number[];
  floor: number[];
}

/**
 * Times `once` and GET /healthz in turn (one of each per round, after 5 warm-up rounds) for the
 * phase's load time and at least 100 rounds: the same run's floor of the request path (the same
 * service and client, a request that reads nothing), measured while the machine is as loaded as for
 * the figure beside it.
 */
export async function measurePaired(ctx: BenchContext, what: string, healthz: () => Promise<number>, once: () => Promise<number>): Promise<Paired> {
  for (let i = 0; i < 5; i++) {
    await healthz();
    await once();
  }
  const ours: number[] = [];
  const floor: number[] = [];
  const until = performance.now() + ctx.loadMs;
  while (performance.now() < until || ours.length < 100) {
    floor.push(await healthz());
    ours.push(await once());
  }
  ours.sort((a, b) => a - b);
  floor.sort((a, b) => a - b);
  ctx.step(`board: ${what} ${ours.length} times, /healthz in turn`);
  return { ours, floor };
}

/** A report row: the p99 beside /healthz's p99 in the same run, and their ratio (how many times the floor). */
export function latencyRow(section: string, metric: string, { ours, floor }: Paired, goalMs: number) {
  const p99 = percentile(ours, 99);
  const floorP99 = percentile(floor, 99);
  return {
    section,
    metric,
    value: fmtMs(p99),
    reference: `${fmtMs(floorP99)} (/healthz p99)`,
    goal: { text: `p99 < ${goalMs} ms`, met: p99 < goalMs },
    detail: `${(p99 / floorP99).toFixed(1)}× /healthz's p99; p50 ${fmtMs(percentile(ours, 50))} (/healthz ${fmtMs(percentile(floor, 50))}), ${ours.length} requests`,
  };
}

export async function boardPhase(ctx: BenchContext): Promise<void> {
  const { port } = ctx;
  const cookie = ctx.admin.cookie;
  ctx.step(`board: seeding ${OPEN} open projects, ${DUE_IN_MONTH} due in ${MONTH.from.slice(0, 7)}`);
  const database = await openDatabase(ctx.config.database, silentLog);
  try {
    const admin = await database.db.selectFrom('users').select('id').where('role', '=', 'ADMIN').executeTakeFirstOrThrow();
    const now = Date.now();
    const rows = Array.from({ length: OPEN }, (_, i) => {
      const at = new Date(now - i * 60_000).toISOString();
      const due = i < DUE_IN_MONTH ? `2031-01-${String((i % 31) + 1).padStart(2, '0')}` : i % 3 === 0 ? null : `2031-0${3 + (i % 6)}-1${i % 9}`;
      return {
        id: newId(),
        name: `Board bench ${i}`,
        description: null,
        poc_id: admin.id,
        status: STATUSES[i % STATUSES.length]!,
        pi_status: i % 2 ? 'VERIFIED' : 'PENDING',
        created_at: at,
        updated_at: at,
        due_date: due,
        number: 5_000_000 + i,
        rush: i % 17 === 0,
      };
    });
    for (let i = 0; i < rows.length; i += 200) await database.db.insertInto('projects').values(rows.slice(i, i + 200)).execute();
  } finally {
    await database.destroy();
  }

  const healthz = async () => (await timedJson(port, '/healthz', cookie, false)).ms;
  let cards = 0;
  const board = await measurePaired(ctx, 'GET /api/board', healthz, async () => {
    const { ms, body } = await timedJson(port, '/api/board', cookie);
    cards = body.items.length;
    return ms;
  });
  ctx.report(latencyRow('board', `board data (GET /api/board, ${cards} cards) p99`, board, GOALS.board));

  let jobs = 0;
  const month = await measurePaired(ctx, 'a calendar month', healthz, async () => {
    // As web/src/scenes/calendar/api.ts reads it: every page up to the month's end.
    let ms = 0;
    let cursor: string | null | undefined;
    jobs = 0;
    for (;;) {
      const path = `/api/projects?dueFrom=${MONTH.from}&dueTo=${MONTH.to}&sort=due&limit=200${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`;
      const page = await timedJson(port, path, cookie);
      ms += page.ms;
      const inMonth = page.body.items.filter((p) => p.dueDate !== null && p.dueDate >= MONTH.from && p.dueDate <= MONTH.to);
      jobs += inMonth.length;
      if (inMonth.length < page.body.items.length || !page.body.nextCursor) return ms;
      cursor = page.body.nextCursor;
    }
  });
  ctx.report(latencyRow('board', `calendar month (${jobs} due jobs, every page) p99`, month, GOALS.month));
}
