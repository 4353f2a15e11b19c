import type { DocumentType, ProjectAction, ProjectStatus, Role } from './api';
import { type ActivityAction, isActivityAction } from '../../src/domain/activity';
import type { Stage } from '../../src/domain/labels';
import { wordsAround } from './words';

/** Dates and numbers in the reader's own locale (the browser's, never a fixed one). */
const dateTime = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'short' });
const date = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium' });
const number = new Intl.NumberFormat(undefined);

export const formatDateTime = (iso: string) => dateTime.format(new Date(iso));
export const formatDate = (iso: string) => date.format(new Date(iso));
export const formatNumber = (n: number) => number.format(n);

// Pure words with no app imports live in words.ts, so the Node tests import them too.
export { formatBytes, isOwnershipRefusal, uploadBlocker } from './words';

// Shared with the emails (src/mail/templates.ts), so both name a project's state alike.
export { PI_LABELS, STAGES, STAGE_LABELS, STATUS_LABELS, type Stage, stageOf } from '../../src/domain/labels';
/** The list filter of each stage (GET /api/projects). */
export const STAGE_FILTERS: Record<Stage, { status: ProjectStatus; approval?: 'PENDING' | 'REJECTED' }> = {
  REQUESTED: { status: 'REQUESTED', approval: 'PENDING' },
  REJECTED: { status: 'REQUESTED', approval: 'REJECTED' },
  APPROVED: { status: 'APPROVED' },
  PRINTING: { status: 'PRINTING' },
  DISPATCHED: { status: 'DISPATCHED' },
  DELIVERED: { status: 'DELIVERED' },
  CANCELLED: { status: 'CANCELLED' },
};

export const DOCUMENT_LABELS: Record<DocumentType, string> = {
  PO: 'Purchase order (PO)',
  CHALLAN: 'Delivery note (challan)',
  INVOICE: 'Invoice',
};

/** "uploaded as a purchase order". */
export const DOCUMENT_AS: Record<DocumentType, string> = { PO: 'a purchase order (PO)', CHALLAN: 'a delivery note (challan)', INVOICE: 'an invoice' };

/** The short names, where space is tight (the dashboard's tiles). */
export const DOCUMENT_SHORT_LABELS: Record<DocumentType, string> = { PO: 'PO', CHALLAN: 'Challan', INVOICE: 'Invoice' };

export const ROLE_LABELS: Record<Role, string> = { ADMIN: 'Admin', POC: 'POC', CLIENT: 'Client' };
/** The roles as a form offers them. */
export const ROLE_CHOICES: Record<Role, string> = { ADMIN: 'Admin', POC: 'POC (point of contact)', CLIENT: 'Client' };

export const ACTION_LABELS: Record<ProjectAction, string> = {
  approve: 'Approve',
  reject: 'Reject',
  resubmit: 'Ask for approval again',
  'submit-pi': 'Submit PI',
  'verify-pi': 'Verify PI',
  'reject-pi': 'Reject PI',
  'start-printing': 'Start printing',
  dispatch: 'Mark dispatched',
  deliver: 'Mark delivered',
  cancel: 'Cancel project',
};

/** Keyed by the service's list of actions (src/domain/activity.ts): one added there does not compile until it is named here. */
const ACTIVITY_LABELS: Record<ActivityAction, string> = {
  PROJECT_CREATED: 'created the project',
  PROJECT_UPDATED: 'corrected the project',
  PROJECT_APPROVED: 'approved the project',
  PROJECT_REJECTED: 'rejected the project',
  APPROVAL_REQUESTED: 'asked for approval again',
  PI_SUBMITTED: 'submitted the PI',
  PI_VERIFIED: 'verified the PI',
  PI_REJECTED: 'rejected the PI',
  PAYMENT_RECORDED: 'recorded a payment',
  PRINTING_STARTED: 'started printing',
  PROJECT_DISPATCHED: 'dispatched the project',
  PROJECT_DELIVERED: 'marked the project delivered',
  PROJECT_CANCELLED: 'cancelled the project',
  PO_UPLOADED: 'uploaded a PO',
  CHALLAN_UPLOADED: 'uploaded a challan',
  INVOICE_UPLOADED: 'uploaded an invoice',
  CUSTOMER_CREATED: 'added a customer',
  CUSTOMER_UPDATED: 'changed a customer',
  PO_VOIDED: 'withdrew a PO',
  CHALLAN_VOIDED: 'withdrew a challan',
  INVOICE_VOIDED: 'withdrew an invoice',
  COMMENT_ADDED: 'commented',
  PROOF_POSTED: 'posted a proof',
  PROOF_APPROVED: 'approved a proof',
  PROOF_CHANGES_REQUESTED: 'asked for changes to a proof',
  PROJECT_HELD: 'put the project on hold',
  PROJECT_RELEASED: 'released the project from hold',
};

/**
 * Who a record names: "You" for the signed-in user, else the name the API sent with the record
 * (null when it has none). Every user may read these names; only admins may read the team.
 */
export const personName = (id: string | null, name: string | null, me: { id: string }): string | null => (id !== null && id === me.id ? 'You' : name);

/** "approved the project", or the action's own name for one the service no longer writes (an older entry's). */
export const activityLabel = (action: string) => (isActivityAction(action) ? ACTIVITY_LABELS[action] : action.toLowerCase().replace(/_/g, ' '));

/** The words before and after the project's name where a list names it ("created" … , "commented on" …): see words.ts. */
export const activityAround = (action: string): [string, string] => wordsAround(action, activityLabel(action));

// Money and calendar days live apart (no app imports), so the Node tests import them too.
export { formatMoney, todayIso } from './money';

/** A calendar date (YYYY-MM-DD) as the reader's locale writes it, without a time zone shift. */
export const formatDay = (day: string) => date.format(new Date(`${day}T12:00:00`));
