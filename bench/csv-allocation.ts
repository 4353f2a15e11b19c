/**
 * Issue 39: what GET /api/projects.csv allocates per line, in process (no HTTP), on SQLite and on
 * PostgreSQL (TEST_DATABASE_URL): the export as it is (projectsCsv: one lean statement a page, rows
 * as arrays) beside, in the same run, the path it replaced (the list's pages of project objects,
 * each through projectCsvValues). Allocation is counted from V8's own GC records (v8.GCProfiler:
 * the heap used before each collection minus after the previous one), so no flag and no forced GC.
 * CSV_ALLOC_PROJECTS (default 20,000) projects, seeded as bench:search seeds them.
 */
import v8 from 'node:v8';
import { projectsCsv } from '../src/actions/projects-csv.js';
import { csvLine } from '../src/domain/csv.js';
import { projectCsvValues } from '../src/presenters/projects-csv.js';
import { seedProjects } from '../test/helpers/seed-projects.js';
import { startTestService } from '../test/helpers/service.js';
import { fmtBytes, printTable } from './load.js';

const PROJECTS = Number(process.env.CSV_ALLOC_PROJECTS ?? 20_000);
const TODAY = new Date().toISOString().slice(0, 10);

/** Bytes allocated on V8's heap while `work` runs, from the GC profiler's records. */
async function allocated(work: () => Promise<number>): Promise<{ bytes: number; lines: number }> {
  const profiler = new v8.GCProfiler();
  const start = v8.getHeapStatistics().used_heap_size;
  profiler.start();
  const lines = await work();
  const end = v8.getHeapStatistics().used_heap_size;
  const { statistics } = profiler.stop();
  let bytes = 0;
  let after = start;
  for (const gc of statistics) {
    bytes += gc.beforeGC.heapStatistics.usedHeapSize - after;
    after = gc.afterGC.heapStatistics.usedHeapSize;
  }
  return { bytes: bytes + end - after, lines };
}

async function run(label: string, postgresUrl?: string): Promise<string[][]> {
  const svc = await startTestService({ postgresUrl });
  try {
    const admin = await svc.createUser({ role: 'ADMIN' });
    await seedProjects(svc.deps.database, { projects: PROJECTS, customers: 5_000, pocIds: [admin.user.id], today: TODAY });
    const actor = admin.user;
    const { currency, timeZone } = svc.deps.config;
    const lean = () =>
      allocated(async () => {
        let lines = 0;
        for await (const text of projectsCsv(svc.deps, actor, {})) lines += text.split('\r\n').length - 1;
        return lines - 1;
      });
    const objects = () =>
      allocated(async () => {
        let lines = 0;
        let cursor: string | undefined;
        do {
          const page = await svc.deps.store.projects.list(actor, { limit: 500, cursor });
          const text = page.items.map((p) => csvLine(projectCsvValues(p, TODAY, currency, timeZone))).join('');
          lines += text.split('\r\n').length - 1;
          cursor = page.nextCursor ?? undefined;
        } while (cursor);
        return lines;
      });
    // Each twice, alternating; the second of each is the figure (statements prepared, code optimised).
    await objects();
    await lean();
    const before = await objects();
    const now = await lean();
    const per = (r: { bytes: number; lines: number }) => r.bytes / r.lines;
    return [
      [label, `the list's objects (before), ${before.lines} lines`, fmtBytes(before.bytes), `${fmtBytes(per(before))} a line`, ''],
      ['', `lean rows as arrays (now), ${now.lines} lines`, fmtBytes(now.bytes), `${fmtBytes(per(now))} a line`, `${(per(now) / per(before)).toFixed(2)}× before`],
    ];
  } finally {
    await svc.close();
  }
}

const rows = await run('sqlite');
const pgUrl = process.env.TEST_DATABASE_URL?.trim();
if (pgUrl) rows.push(...(await run('postgres', pgUrl)));
else console.log('  NOTICE: TEST_DATABASE_URL is not set: the PostgreSQL half is skipped');
printTable(['database', 'export', 'allocated', 'per line', 'ratio'], rows);
