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
function timedJson(port: number, path: string, cookie: string, parse = true): Promise<{ ms: number; body: { items: { dueDate: string | null }[]; nextCursor?: string | null } }> {
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

  const measure = async (what: string, once: () => Promise<number>) => {
    for (let i = 0; i < 5; i++) await once();
    const times: number[] = [];
    const until = performance.now() + ctx.loadMs;
    while (performance.now() < until || times.length < 100) times.push(await once());
    times.sort((a, b) => a - b);
    ctx.step(`board: ${what} ${times.length} times`);
    return times;
  };

  // The same run's floor: a request through the same service and client that reads nothing (GET /healthz).
  const floor = percentile(await measure('GET /healthz', async () => (await timedJson(port, '/healthz', cookie, false)).ms), 99);
  let cards = 0;
  const board = await measure('GET /api/board', async () => {
    const { ms, body } = await timedJson(port, '/api/board', cookie);
    cards = body.items.length;
    return ms;
  });
  const p99 = percentile(board, 99);
  ctx.report({
    section: 'board',
    metric: `board data (GET /api/board, ${cards} cards) p99`,
    value: fmtMs(p99),
    reference: `${fmtMs(floor)} (/healthz)`,
    goal: { text: `p99 < ${GOALS.board} ms`, met: p99 < GOALS.board },
    detail: `p50 ${fmtMs(percentile(board, 50))}, ${board.length} requests`,
  });

  let jobs = 0;
  const month = await measure('a calendar month', async () => {
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
  const monthP99 = percentile(month, 99);
  ctx.report({
    section: 'board',
    metric: `calendar month (${jobs} due jobs, every page) p99`,
    value: fmtMs(monthP99),
    reference: `${fmtMs(floor)} (/healthz)`,
    goal: { text: `p99 < ${GOALS.month} ms`, met: monthP99 < GOALS.month },
    detail: `p50 ${fmtMs(percentile(month, 50))}, ${month.length} months read`,
  });
}
