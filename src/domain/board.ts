import type { ProjectStatus } from './model.js';

/**
 * The board's columns (issue 36): the open statuses in lifecycle order, then DELIVERED, which
 * shows only the projects delivered in the last DELIVERED_DAYS days so the column stays short.
 * CANCELLED has no column: a cancelled card leaves the board.
 */
export const BOARD_COLUMNS = ['REQUESTED', 'APPROVED', 'PRINTING', 'DISPATCHED', 'DELIVERED'] as const satisfies readonly ProjectStatus[];
export type BoardColumn = (typeof BOARD_COLUMNS)[number];
export const DELIVERED_DAYS = 14;

/** What the priority order reads of a project. */
export interface Prioritised {
  id: string;
  createdAt: string;
  rush: boolean;
  dueDate: string | null;
  hold: unknown;
}

/**
 * sort=priority of interface.md ("Holds, rush, reorders"): held last; then rush first; then the
 * earliest due date, none last; then newest (ties by id, newest first, as the list's cursor does).
 */
export function byPriority(a: Prioritised, b: Prioritised): number {
  const held = Number(a.hold !== null) - Number(b.hold !== null);
  if (held) return held;
  const rush = Number(b.rush) - Number(a.rush);
  if (rush) return rush;
  if (a.dueDate !== b.dueDate) {
    if (a.dueDate === null) return 1;
    if (b.dueDate === null) return -1;
    return a.dueDate < b.dueDate ? -1 : 1;
  }
  if (a.createdAt !== b.createdAt) return a.createdAt < b.createdAt ? 1 : -1;
  return a.id < b.id ? 1 : a.id > b.id ? -1 : 0;
}

/** The instant from which a DELIVERED project is still on the board: DELIVERED_DAYS before now. */
export const deliveredSince = (now: string): string => new Date(Date.parse(now) - DELIVERED_DAYS * 86_400_000).toISOString();
