import { dueFiltersOf, isOverdue, todayIn } from './due.js';
import type { JobDetails, Project, Role } from './model.js';

/*
 * The morning due-date digest (issue 22): once a day, from DUE_DIGEST_HOUR in the shop's time zone,
 * each active POC and ADMIN gets one email listing the open projects that are overdue or due that
 * day (an ADMIN every such project, a POC their own), unless they switched it off. Who may see
 * which project stays the one rule of visibility.ts; this file only says who gets a digest and what
 * it lists, and when its day has come.
 */

/** Whose projects a person's digest lists: every project (ADMIN), their own (POC), or none (no digest). */
export type DigestReach = 'all' | 'own' | null;

export const digestReachOf = (role: Role): DigestReach => (role === 'ADMIN' ? 'all' : role === 'POC' ? 'own' : null);

/** The roles that get a digest. */
export const DIGEST_ROLES = ['ADMIN', 'POC'] as const satisfies readonly Role[];

const hourFormatters = new Map<string, Intl.DateTimeFormat>();

/** The hour of the day (0–23) at this instant in this IANA time zone. */
export function hourIn(timeZone: string, at: Date): number {
  let format = hourFormatters.get(timeZone);
  if (!format) {
    format = new Intl.DateTimeFormat('en-US', { timeZone, hour: '2-digit', hourCycle: 'h23', numberingSystem: 'latn' });
    hourFormatters.set(timeZone, format);
  }
  return Number(format.formatToParts(at).find((p) => p.type === 'hour')!.value) % 24;
}

/**
 * The day whose digest is due at this instant: today in the zone once its hour has come, else null.
 * Never a past day: a day missed while no instance ran is not sent later.
 */
export const digestDayAt = (timeZone: string, hour: number, at: Date): string | null => (hourIn(timeZone, at) >= hour ? todayIn(timeZone, at) : null);

/** What a digest reads of a project. */
export type DigestProject = Pick<Project, 'id' | 'name' | 'status' | 'piStatus' | 'approval'> & Partial<Pick<Project, 'number'>> & Pick<JobDetails, 'reference' | 'dueDate'>;

export interface Digest<P extends DigestProject = DigestProject> {
  /** Due before the day and still open, the longest overdue first. */
  overdue: P[];
  /** Due that day and still open. */
  today: P[];
}

const byDueThenName = (a: DigestProject, b: DigestProject) => (a.dueDate! < b.dueDate! ? -1 : a.dueDate! > b.dueDate! ? 1 : a.name.localeCompare(b.name) || (a.id < b.id ? -1 : 1));

/** What a digest on `day` lists of these projects: the overdue ones and those due that day; delivered, cancelled, undated and later ones left out. */
export function digestOf<P extends DigestProject>(projects: P[], day: string): Digest<P> {
  const overdue = projects.filter((p) => isOverdue(p, day)).sort(byDueThenName);
  const today = projects.filter((p) => dueFiltersOf(p, day).includes('today')).sort(byDueThenName);
  return { overdue, today };
}

export const isEmptyDigest = (d: Digest): boolean => d.overdue.length === 0 && d.today.length === 0;

/** Whole days from `dueDate` to `day` (both YYYY-MM-DD), as "1 day overdue" says it. */
export function daysLate(dueDate: string, day: string): number {
  return Math.round((Date.parse(`${day}T00:00:00Z`) - Date.parse(`${dueDate}T00:00:00Z`)) / 86_400_000);
}
