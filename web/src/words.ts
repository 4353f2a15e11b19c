import { type ActivityAction, isActivityAction } from '../../src/domain/activity.js';
import { PI_LABELS, STATUS_LABELS } from '../../src/domain/labels.js';
import type { DocumentType, Project } from '../../src/domain/model.js';

/** Words on screen that are pure functions: no app imports, so test/web-format.test.ts imports them (format.ts re-exports them). */

const UNITS = ['byte', 'kilobyte', 'megabyte', 'gigabyte'] as const;
/** 2 MB, 512 kB, 12 bytes: in steps of 1024 as the shop's computers count, so the 100 MiB limit reads "100 MB" (as src/domain/units.ts writes it). */
export function formatBytes(bytes: number): string {
  let value = bytes;
  let unit = 0;
  while (value >= 1024 && unit < UNITS.length - 1) {
    value /= 1024;
    unit += 1;
  }
  return new Intl.NumberFormat(undefined, { style: 'unit', unit: UNITS[unit], unitDisplay: unit === 0 ? 'long' : 'short', maximumFractionDigits: unit === 0 ? 0 : 1 }).format(value);
}

/** How an action names its project when the list shows which one ("uploaded a PO to …"); "on" for any other. */
const ON_PROJECT: Partial<Record<ActivityAction, string>> = {
  PO_UPLOADED: 'to',
  CHALLAN_UPLOADED: 'to',
  INVOICE_UPLOADED: 'to',
  PO_VOIDED: 'from',
  CHALLAN_VOIDED: 'from',
  INVOICE_VOIDED: 'from',
  APPROVAL_REQUESTED: 'for',
  PI_SUBMITTED: 'for',
  PI_VERIFIED: 'for',
  PI_REJECTED: 'for',
  PRINTING_STARTED: 'for',
};

/**
 * The words before and after the project's name where a list names it, from the action's label:
 * "created" … ("created Annual report", not "created the project in Annual report"), "marked" …
 * "delivered", "commented on" … .
 */
export function wordsAround(action: string, label: string): [string, string] {
  const at = label.indexOf('the project');
  if (at >= 0) return [label.slice(0, at).trimEnd(), label.slice(at + 'the project'.length).trim()];
  return [`${label} ${(isActivityAction(action) && ON_PROJECT[action]) || 'on'}`, ''];
}

/**
 * The API's refusal of an upload by someone who does not own the project (specification 4.1 check 4,
 * its exact message): not a matter of time, so the upload card is not shown to them at all.
 */
export const isOwnershipRefusal = (reason: string | null): boolean => reason !== null && /^You can only upload files to your own projects/.test(reason);

/**
 * Why a document cannot be uploaded now, naming what actually stands in the way (the API's own
 * message names only the first rule that fails, which for a cancelled project is "after approval").
 * null when nothing does.
 */
export function uploadBlocker(p: Pick<Project, 'status' | 'approval' | 'piStatus'>, type: DocumentType, isAdmin: boolean, apiReason: string | null): string | null {
  if (apiReason === null) return null;
  // Someone who sees the project but does not own it (a customer's person): that is the reason, whatever the project's state.
  if (isOwnershipRefusal(apiReason)) return apiReason;
  if (p.status === 'CANCELLED') return 'The project is cancelled: no documents can be added.';
  if (!isAdmin && p.status === 'REQUESTED') {
    return p.approval?.status === 'REJECTED' ? 'The project was rejected: correct it and ask for approval again.' : 'The project is waiting for an admin’s approval.';
  }
  if (!isAdmin && p.piStatus !== 'VERIFIED') return `The PI must be verified first (now: ${PI_LABELS[p.piStatus].toLowerCase()}).`;
  if (type === 'PO' && p.status === 'REQUESTED') return 'A PO can be added once the project is approved.';
  if (type !== 'PO') return `${type === 'CHALLAN' ? 'A challan' : 'An invoice'} can be added once the project is dispatched (now: ${STATUS_LABELS[p.status].toLowerCase()}).`;
  return apiReason;
}


