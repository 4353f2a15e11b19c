import type { ActivityAction } from './activity.js';
import type { Viewer } from './visibility.js';

/**
 * The shop's own notes (interface.md, "… whose notes a customer reads"): the notes of approve,
 * reject, verify-pi and reject-pi are the shop's decisions, never read by a CLIENT (the approval's
 * note, these activity entries' notes, their emails). Every other action's note (dispatch's tracking
 * number, a hold's release) is shared with the customer. Webhooks, being the shop's, keep them.
 */
export const SHOP_NOTE_ACTIONS: readonly ActivityAction[] = ['PROJECT_APPROVED', 'PROJECT_REJECTED', 'PI_VERIFIED', 'PI_REJECTED'];

/** Whether this viewer reads the shop's own notes. */
export const readsShopNotes = (viewer: Pick<Viewer, 'role'>): boolean => viewer.role !== 'CLIENT';

/** An entry's details as this viewer reads them: without the note of a shop's decision for a CLIENT. */
export function detailsFor(viewer: Pick<Viewer, 'role'>, action: string, details: Record<string, unknown>): Record<string, unknown> {
  if (readsShopNotes(viewer) || !(SHOP_NOTE_ACTIONS as readonly string[]).includes(action) || !('note' in details)) return details;
  const { note: _note, ...rest } = details;
  return rest;
}
