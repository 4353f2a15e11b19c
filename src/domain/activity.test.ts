import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ACTIVITY_ACTIONS, type ActivityAction, isActivityAction, uploadedAction, voidedAction } from './activity.js';
import { DOCUMENT_TYPES, type DocumentType } from './model.js';
import { LIFECYCLE, PROJECT_ACTIONS, type ProjectAction } from './project-lifecycle.js';

/*
 * The list of activity actions against what writes them. Restated here rather than read from the
 * list, so a rename has to be made twice on purpose; the records keyed by the list (lifecycle, email
 * rules, web labels) are checked by the compiler.
 */

test('an upload writes <FILETYPE>_UPLOADED (specification part 2)', () => {
  const table: [DocumentType, ActivityAction][] = [
    ['PO', 'PO_UPLOADED'],
    ['CHALLAN', 'CHALLAN_UPLOADED'],
    ['INVOICE', 'INVOICE_UPLOADED'],
  ];
  assert.deepEqual(table.map(([type]) => type), [...DOCUMENT_TYPES]);
  for (const [type, action] of table) assert.equal(uploadedAction(type), action);
});

test('a withdrawn document writes <FILETYPE>_VOIDED (interface.md, "Withdrawing a wrong document")', () => {
  const table: [DocumentType, ActivityAction][] = [
    ['PO', 'PO_VOIDED'],
    ['CHALLAN', 'CHALLAN_VOIDED'],
    ['INVOICE', 'INVOICE_VOIDED'],
  ];
  assert.deepEqual(table.map(([type]) => type), [...DOCUMENT_TYPES]);
  for (const [type, action] of table) assert.equal(voidedAction(type), action);
});

test('each lifecycle action writes its own entry', () => {
  const table: Record<ProjectAction, ActivityAction> = {
    approve: 'PROJECT_APPROVED',
    reject: 'PROJECT_REJECTED',
    resubmit: 'APPROVAL_REQUESTED',
    'submit-pi': 'PI_SUBMITTED',
    'verify-pi': 'PI_VERIFIED',
    'reject-pi': 'PI_REJECTED',
    'start-printing': 'PRINTING_STARTED',
    dispatch: 'PROJECT_DISPATCHED',
    deliver: 'PROJECT_DELIVERED',
    cancel: 'PROJECT_CANCELLED',
  };
  for (const action of PROJECT_ACTIONS) assert.equal(LIFECYCLE[action].activity, table[action], action);
});

test('every action in the list is written by something, once', () => {
  const written = [
    'PROJECT_CREATED', // POST /api/projects
    'PROJECT_UPDATED', // PATCH /api/projects/:id and /details
    'PAYMENT_RECORDED', // POST /api/projects/:id/payments
    ...PROJECT_ACTIONS.map((a) => LIFECYCLE[a].activity),
    ...DOCUMENT_TYPES.map(uploadedAction),
    'CUSTOMER_CREATED', // POST /api/customers
    'CUSTOMER_UPDATED', // PATCH /api/customers/:id
    ...DOCUMENT_TYPES.map(voidedAction), // POST /api/projects/:id/files/:fileId/void
    'COMMENT_ADDED', // POST /api/projects/:id/comments
    'PROJECT_HELD', // POST /api/projects/:id/hold
    'PROJECT_RELEASED', // POST /api/projects/:id/release
    'PROOF_POSTED', // POST /api/projects/:id/proofs
    'PROOF_APPROVED', // .../proofs/:proofId/approve, and through a link
    'PROOF_CHANGES_REQUESTED', // .../proofs/:proofId/request-changes, and through a link
  ];
  assert.equal(new Set(written).size, written.length, 'no two writers share an action');
  assert.deepEqual([...written].sort(), [...ACTIVITY_ACTIONS].sort());
});

test('a stored name is an action only when the service writes it', () => {
  for (const action of ACTIVITY_ACTIONS) assert.ok(isActivityAction(action), action);
  for (const other of ['USER_NOTED', 'project_created', 'PO_UPLOADED ', '', 'constructor', null, 42]) assert.equal(isActivityAction(other), false, String(other));
});
