import type { ProjectStatus } from './model.js';

/*
 * Due dates (interface.md, "The job itself"): a project's dueDate is a calendar date in the shop's
 * time zone (TIMEZONE), so "today" is the date there, never UTC's or the machine's. Dates are
 * YYYY-MM-DD strings throughout: they compare and sort as text, in SQL too.
 */

/** A project's work is over: not overdue, and not counted among what is due. */
export const CLOSED_STATUSES = ['DELIVERED', 'CANCELLED'] as const satisfies readonly ProjectStatus[];

export const DUE_FILTERS = ['overdue', 'today', 'week'] as const;
export type DueFilter = (typeof DUE_FILTERS)[number];

/** How long "week" reaches: today and the next 6 days. */
export const WEEK_DAYS = 7;

const formatters = new Map<string, Intl.DateTimeFormat>();

/** The calendar date (YYYY-MM-DD) at this instant in this IANA time zone. */
export function todayIn(timeZone: string, at: Date): string {
  let format = formatters.get(timeZone);
  if (!format) {
    format = new Intl.DateTimeFormat('en-US', { timeZone, year: 'numeric', month: '2-digit', day: '2-digit', calendar: 'gregory', numberingSystem: 'latn' });
    formatters.set(timeZone, format);
  }
  const part = (type: Intl.DateTimeFormatPartTypes) => format.formatToParts(at).find((p) => p.type === type)!.value;
  return `${part('year').padStart(4, '0')}-${part('month')}-${part('day')}`;
}

const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;

/** A real calendar date written YYYY-MM-DD (2026-02-28 yes; 2026-02-30, 2026-2-3 and 2026-02-28T00:00 no). */
export function isCalendarDate(value: unknown): value is string {
  const m = typeof value === 'string' ? DATE.exec(value) : null;
  if (!m) return false;
  const [year, month, day] = [Number(m[1]), Number(m[2]), Number(m[3])];
  const d = utcDate(year, month, day);
  return d.getUTCFullYear() === year && d.getUTCMonth() === month - 1 && d.getUTCDate() === day;
}

/** The date `days` calendar days after `date` (both YYYY-MM-DD); no time zone is involved. */
export function addDays(date: string, days: number): string {
  const [year, month, day] = date.split('-').map(Number) as [number, number, number];
  return utcDate(year, month, day + days).toISOString().slice(0, 10);
}

/** Midnight UTC of that day, overflowing days carried into months and years (setUTCFullYear: Date.UTC would read years 0–99 as 1900–1999). */
function utcDate(year: number, month: number, day: number): Date {
  const d = new Date(0);
  d.setUTCFullYear(year, month - 1, day);
  return d;
}

const isClosed = (status: ProjectStatus) => (CLOSED_STATUSES as readonly ProjectStatus[]).includes(status);

/** Overdue: due before today, and neither delivered nor cancelled. */
export const isOverdue = (p: { dueDate: string | null; status: ProjectStatus }, today: string): boolean =>
  p.dueDate !== null && p.dueDate < today && !isClosed(p.status);

/**
 * The dueDate range a filter selects, among projects still open (not DELIVERED or CANCELLED):
 * overdue before today; today exactly today; week from today through today + 6 (overdue excluded).
 * `before` is exclusive, `from` and `through` inclusive.
 */
export function dueRange(filter: DueFilter, today: string): { before?: string; from?: string; through?: string } {
  switch (filter) {
    case 'overdue':
      return { before: today };
    case 'today':
      return { from: today, through: today };
    case 'week':
      return { from: today, through: addDays(today, WEEK_DAYS - 1) };
  }
}

/** Which due filters a project falls under today (week includes today). */
export function dueFiltersOf(p: { dueDate: string | null; status: ProjectStatus }, today: string): DueFilter[] {
  if (p.dueDate === null || isClosed(p.status)) return [];
  return DUE_FILTERS.filter((f) => {
    const r = dueRange(f, today);
    return (r.before === undefined || p.dueDate! < r.before) && (r.from === undefined || p.dueDate! >= r.from) && (r.through === undefined || p.dueDate! <= r.through);
  });
}
