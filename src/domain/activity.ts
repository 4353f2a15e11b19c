import { type DocumentType, isOneOf } from './model.js';

/**
 * Every action the service writes to the activity log, as one list. The lifecycle table
 * (project-lifecycle.ts), the emails (mail/rules.ts) and the web app's labels (web/src/format.ts)
 * are records keyed by it: an action added or renamed here does not compile until each of them
 * says what it does with it.
 */
export const ACTIVITY_ACTIONS = [
  'PROJECT_CREATED',
  // An admin's correction (PATCH /api/projects/:id) and an edit of the details.
  'PROJECT_UPDATED',
  'APPROVAL_REQUESTED',
  'PROJECT_APPROVED',
  'PROJECT_REJECTED',
  'PI_SUBMITTED',
  'PI_VERIFIED',
  'PI_REJECTED',
  'PRINTING_STARTED',
  'PROJECT_DISPATCHED',
  'PROJECT_DELIVERED',
  'PROJECT_CANCELLED',
  // An admin recorded a payment received (interface.md, "The PI and payments").
  'PAYMENT_RECORDED',
  // Specification part 2: <FILETYPE>_UPLOADED.
  'PO_UPLOADED',
  'CHALLAN_UPLOADED',
  'INVOICE_UPLOADED',
  // Customers (entityType `customer`): seen only by those who see everything (visibility.ts, maySeeEntry).
  'CUSTOMER_CREATED',
  'CUSTOMER_UPDATED',
  // A wrong document withdrawn (interface.md, "Withdrawing a wrong document"): <FILETYPE>_VOIDED.
  'PO_VOIDED',
  'CHALLAN_VOIDED',
  'INVOICE_VOIDED',
  // interface.md, Comments: details {commentId, internal}, never the text.
  'COMMENT_ADDED',
  // interface.md, Proofs: {proofId, version, filename}; an answer {proofId, version, via, byName, note} (+ email through a link).
  'PROOF_POSTED',
  'PROOF_APPROVED',
  'PROOF_CHANGES_REQUESTED',
  // interface.md, "Holds, rush, reorders": details {reason} and {note}.
  'PROJECT_HELD',
  'PROJECT_RELEASED',
] as const;
export type ActivityAction = (typeof ACTIVITY_ACTIONS)[number];

/** Entries read back may carry a name the service no longer writes (an older version's): those are strings, not actions. */
export const isActivityAction = (v: unknown): v is ActivityAction => isOneOf(ACTIVITY_ACTIONS, v);

/** Specification part 2: an upload's action. A document type without its action in the list above does not compile. */
export const uploadedAction = (type: DocumentType): ActivityAction => `${type}_UPLOADED`;

/** A withdrawn document's action. A document type without its action in the list above does not compile. */
export const voidedAction = (type: DocumentType): ActivityAction => `${type}_VOIDED`;
