import type { ActivityAction } from './activity.js';

/** The events an endpoint may subscribe to (interface.md, "Webhooks"); `"*"` stands for all of them. */
export const WEBHOOK_EVENT_TYPES = ['project.created', 'project.updated', 'document.uploaded', 'document.voided', 'comment.added', 'payment.recorded', 'proof.posted', 'proof.approved', 'proof.changes_requested'] as const;
export type WebhookEventType = (typeof WEBHOOK_EVENT_TYPES)[number];
/** Sent only by POST /api/webhooks/:id/test, to that endpoint, whatever it subscribed to. */
export const TEST_EVENT_TYPE = 'webhook.test';

/**
 * Which event each activity action is: the one table a new action must fill in (it does not
 * compile otherwise); null: none. Every project change that is not one of the others is `project.updated`,
 * with the action in its data.
 */
export const WEBHOOK_EVENT_OF: Record<ActivityAction, WebhookEventType | null> = {
  PROJECT_CREATED: 'project.created',
  PROJECT_UPDATED: 'project.updated',
  APPROVAL_REQUESTED: 'project.updated',
  PROJECT_APPROVED: 'project.updated',
  PROJECT_REJECTED: 'project.updated',
  PI_SUBMITTED: 'project.updated',
  PI_VERIFIED: 'project.updated',
  PI_REJECTED: 'project.updated',
  PRINTING_STARTED: 'project.updated',
  PROJECT_DISPATCHED: 'project.updated',
  PROJECT_DELIVERED: 'project.updated',
  PROJECT_CANCELLED: 'project.updated',
  PO_UPLOADED: 'document.uploaded',
  CHALLAN_UPLOADED: 'document.uploaded',
  INVOICE_UPLOADED: 'document.uploaded',
  PO_VOIDED: 'document.voided',
  CHALLAN_VOIDED: 'document.voided',
  INVOICE_VOIDED: 'document.voided',
  // Internal notes too: webhooks are the shop's own (interface.md, Webhooks).
  COMMENT_ADDED: 'comment.added',
  PAYMENT_RECORDED: 'payment.recorded',
  PROJECT_HELD: 'project.updated',
  PROJECT_RELEASED: 'project.updated',
  // About a customer, not a project: no event (interface.md lists none).
  CUSTOMER_CREATED: null,
  CUSTOMER_UPDATED: null,
  PROOF_POSTED: 'proof.posted',
  PROOF_APPROVED: 'proof.approved',
  PROOF_CHANGES_REQUESTED: 'proof.changes_requested',
};

/** Whether an endpoint subscribed to `events` gets an event of `type`. */
export const subscribesTo = (events: readonly string[], type: string): boolean => events.includes('*') || events.includes(type);
