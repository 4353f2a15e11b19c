import type { ApprovalStatus, PiStatus, ProjectStatus } from './model.js';

/** How the fields are named in messages meant for people. */
export const FIELD_LABELS: Record<string, string> = {
  name: 'Name',
  description: 'Description',
  note: 'Note',
  email: 'Email',
  phone: 'Phone',
  location: 'Location',
  branch: 'Branch',
  password: 'Password',
  role: 'Role',
  active: 'Active',
  status: 'Status',
  piStatus: 'PI status',
  pocId: 'Point of contact',
  'approval.status': 'Approval status',
  'approval.note': 'Note',
  reference: 'Reference',
  dueDate: 'Due date',
  deliveryAddress: 'Delivery address',
  items: 'Items',
  number: 'PI number',
  amount: 'Amount',
  currency: 'Currency',
  validUntil: 'Valid until',
  receivedOn: 'Received on',
  method: 'Method',
  customerId: 'Customer',
  gstin: 'GSTIN',
  billingAddress: 'Billing address',
  reason: 'Reason',
  body: 'Comment',
};

/** A field, or a job line's field by its place in `items` ("items.2.quantity" is "Line 3 quantity"). */
export const labelOf = (field: string): string => {
  const line = /^items\.(\d+)(?:\.(.+))?$/.exec(field);
  if (line) return `Line ${Number(line[1]) + 1}${line[2] ? ` ${line[2]}` : ''}`;
  return FIELD_LABELS[field] ?? field;
};

/** How the web app and the emails name a project's state. */
export const STATUS_LABELS: Record<ProjectStatus, string> = {
  REQUESTED: 'Requested',
  APPROVED: 'Approved',
  PRINTING: 'Printing',
  DISPATCHED: 'Dispatched',
  DELIVERED: 'Delivered',
  CANCELLED: 'Cancelled',
};

/** A project's stage as people follow it: its status, with a rejected request told apart from one awaiting a decision. */
export type Stage = ProjectStatus | 'REJECTED';
export const STAGES: Stage[] = ['REQUESTED', 'REJECTED', 'APPROVED', 'PRINTING', 'DISPATCHED', 'DELIVERED', 'CANCELLED'];
export const stageOf = (p: { status: ProjectStatus; approval: { status: ApprovalStatus } | null }): Stage =>
  p.status === 'REQUESTED' && p.approval?.status === 'REJECTED' ? 'REJECTED' : p.status;
export const STAGE_LABELS: Record<Stage, string> = { ...STATUS_LABELS, REQUESTED: 'Awaiting approval', REJECTED: 'Rejected' };

export const PI_LABELS: Record<PiStatus, string> = {
  PENDING: 'Not submitted',
  SUBMITTED: 'Submitted, awaiting verification',
  VERIFIED: 'Verified',
  REJECTED: 'Rejected',
};

/** A project as people name it: "#1042 Brochures" (the name alone where no number is known). The emails, the ticket and the web app all write it so. */
export const jobName = (p: { name: string; number?: number }) => (p.number ? `#${p.number} ${p.name}` : p.name);
