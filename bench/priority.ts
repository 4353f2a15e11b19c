/**
 * The sort=priority phase of `npm run bench` (issue 35): 100,000 projects seeded in bulk (multi-row
 * INSERTs of 1,000 in one transaction), then GET /api/projects?sort=priority as an ADMIN, the first
 * page and each next page by its cursor down to the 20th (then from the first again), one request
 * after another with GET /healthz in turn. Goal: p99 under 50 ms on both databases.
 */
import { openDatabase } from '../src/db/index.js';
import { newId } from '../src/ids.js';
import { silentLog } from '../src/logger.js';
import { latencyRow, measurePaired, timedJson } from './board.js';
import type { BenchContext } from './phase.js';

const PROJECTS = 100_000;
const BATCH = 1000;
const PAGES = 20;
const GOAL_MS = 50;
const STATUSES = ['DELIVERED', 'DELIVERED', 'DELIVERED', 'CANCELLED', 'REQUESTED', 'APPROVED', 'PRINTING', 'DISPATCHED'] as const;

export async function priorityPhase(ctx: BenchContext): Promise<void> {
  const { port } = ctx;
  const cookie = ctx.admin.cookie;
  ctx.step(`priority: seeding ${PROJECTS} projects`);
  const started = performance.now();
  const database = await openDatabase(ctx.config.database, silentLog);
  try {
    const admin = await database.db.selectFrom('users').select('id').where('role', '=', 'ADMIN').executeTakeFirstOrThrow();
    const now = Date.now();
    await database.db.transaction().execute(async (trx) => {
      for (let from = 0; from < PROJECTS; from += BATCH) {
        const rows = Array.from({ length: Math.min(BATCH, PROJECTS - from) }, (_, k) => {
          const i = from + k;
          const at = new Date(now - i * 30_000).toISOString();
          const held = i % 37 === 0;
          // A shop's history: a few % rush, a few held (with their reason), two thirds with a due date over two years.
          return {
            id: newId(),
            name: `Priority bench ${i}`,
            description: null,
            poc_id: admin.id,
            status: STATUSES[i % STATUSES.length]!,
            pi_status: i % 2 ? 'VERIFIED' : 'PENDING',
            created_at: at,
            updated_at: at,
            due_date: i % 3 === 0 ? null : new Date(now - (i % 730) * 86_400_000 + 30 * 86_400_000).toISOString().slice(0, 10),
            number: 7_000_000 + i,
            rush: i % 23 === 0,
            held,
            hold_reason: held ? 'Awaiting artwork' : null,
            hold_since: held ? at : null,
            hold_by_id: held ? admin.id : null,
          };
        });
        await trx.insertInto('projects').values(rows).execute();
      }
    });
  } finally {
    await database.destroy();
  }
  ctx.step(`priority: seeded in ${((performance.now() - started) / 1000).toFixed(1)} s`);

  const healthz = async () => (await timedJson(port, '/healthz', cookie, false)).ms;
  let page = 0;
  let cursor: string | null | undefined;
  const pages = await measurePaired(ctx, 'GET /api/projects?sort=priority', healthz, async () => {
    const path = `/api/projects?sort=priority${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`;
    const { ms, body } = await timedJson(port, path, cookie);
    page = body.nextCursor && page < PAGES - 1 ? page + 1 : 0;
    cursor = page ? body.nextCursor : null;
    return ms;
  });
  ctx.report(latencyRow('priority', `GET /api/projects?sort=priority (${PROJECTS.toLocaleString('en')} projects, pages 1–${PAGES} of 50) p99`, pages, GOAL_MS));
}
