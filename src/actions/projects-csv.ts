import type { Deps } from '../deps.js';
import { todayOf } from '../deps.js';
import type { ProjectFilter } from '../db/projects.js';
import { csvHeader } from '../domain/csv.js';
import { type DueFilter, dueRange } from '../domain/due.js';
import type { Actor } from '../domain/model.js';
import { PROJECT_CSV_COLUMNS, projectCsvLine } from '../presenters/projects-csv.js';

/** How many projects one read takes: each page is one keyset query of the CSV's columns (db/projects-csv.ts). */
export const CSV_PAGE = 500;

export type ProjectsCsvFilter = Omit<ProjectFilter, 'dueRange' | 'limit' | 'cursor'> & { due?: DueFilter };

/**
 * GET /api/projects.csv: the projects the actor may see (the list's filters and visibility rule,
 * through the same repository query), as CSV text in pieces of one page each. A page is read only
 * when the consumer asks for the next piece, so memory stays flat whatever the count and a client
 * that goes away (the generator returned) stops the reads. Today is read once: every page agrees
 * on what is overdue and on the due filters.
 */
export async function* projectsCsv(deps: Pick<Deps, 'store' | 'config' | 'clock'>, actor: Actor, { due, ...filter }: ProjectsCsvFilter): AsyncGenerator<string> {
  const today = todayOf(deps);
  yield csvHeader(PROJECT_CSV_COLUMNS);
  let cursor: string | undefined;
  do {
    const page = await deps.store.projects.csvPage(actor, { ...filter, dueRange: due && dueRange(due, today), limit: CSV_PAGE, cursor });
    let text = '';
    for (const row of page.rows) text += projectCsvLine(row, today, deps.config.currency, deps.config.timeZone);
    cursor = page.nextCursor ?? undefined;
    if (text) yield text;
  } while (cursor);
}

/** The file name the download is offered under: the date it was made, in the shop's time zone. */
export const projectsCsvFilename = (deps: Pick<Deps, 'clock' | 'config'>) => `projects-${todayOf(deps)}.csv`;
