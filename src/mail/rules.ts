import { type ActivityAction, isActivityAction } from '../domain/activity.js';
import type { Actor, Project } from '../domain/model.js';
import { isCurrencyCode } from '../domain/money.js';
import { formatMoney, formatShopDate } from '../domain/shop-format.js';

/**
 * Who gets an email about which project change (issue 12, "Who gets what"), as one table keyed by
 * the change's activity action (domain/activity.ts): every action has its rule, or says it sends
 * none, so an action added there does not compile until it is decided here. The person who made the change and inactive users never get one;
 * that, and each user's switched-off categories, is applied where recipients are read (db/mail.ts).
 */

/** The categories a user can switch off on their account page (dueDigest: the morning due-date digest, actions/due-digest.ts). */
export const EMAIL_CATEGORIES = ['approvals', 'pi', 'progress', 'documents', 'dueDigest', 'comments', 'proofs'] as const;
export type EmailCategory = (typeof EMAIL_CATEGORIES)[number];

/** Who hears of a change: every active ADMIN, the project's POC, or both; or everyone who may see the project (`viewers`), only the shop's people among them when `shopOnly`. */
export interface Audience extends To {
  category: EmailCategory;
}

export interface To {
  admins: boolean;
  poc: boolean;
  viewers?: boolean;
  /** Only those who see internal notes (domain/visibility.ts, seesInternal): an internal comment. */
  shopOnly?: boolean;
  /** The CLIENT users of the project's customer (a proof posted for them to answer). */
  clients?: boolean;
  /** With `admins`: the project's owner alone, not the customer's CLIENTs (an answer to a proof, which they gave). */
  ownerOnly?: boolean;
}

export interface Rule {
  category: EmailCategory;
  /** The audience, given whether the project's POC made the change, and the change's details. */
  to: (byPoc: boolean, details: Record<string, unknown>) => To;
  /**
   * The line that says what happened, with the actor's name: in the past tense only, since the
   * email may go out after later changes (its closing line says where the project stands then).
   * Its note, if any, follows it (mail/templates.ts), whatever the change.
   */
  describe: (e: { actorName: string; details: Record<string, unknown> }) => string;
  /** A subject's first words when the email carries this one change. */
  label: string;
}

const admins = () => ({ admins: true, poc: false });
const poc = () => ({ admins: false, poc: true });
const uploaded = (type: string): Rule => ({
  category: 'documents',
  // The POC hears of documents others add; the admins hear of the POC's.
  to: (byPoc) => ({ admins: byPoc, poc: !byPoc }),
  describe: ({ actorName, details }) => `${type} uploaded by ${actorName}: ${String(details.filename ?? '')}`,
  label: `${type} uploaded`,
});

/** "₹1,25,000.00" from an entry's details (amount in minor units), as the web app shows it; '' when they carry none (an older entry). */
const moneyOf = (details: Record<string, unknown>): string =>
  Number.isSafeInteger(details.amount) && isCurrencyCode(details.currency) ? formatMoney(details.amount as number, details.currency) : '';
const voided = (type: string): Rule => ({
  category: 'documents',
  // Told like an upload: whoever heard of the document hears that it was withdrawn.
  to: (byPoc) => ({ admins: byPoc, poc: !byPoc }),
  describe: ({ actorName, details }) => `${type} withdrawn by ${actorName}: ${String(details.filename ?? '')}. Reason: ${String(details.reason ?? '')}`,
  label: `${type} withdrawn`,
});

export const EMAIL_RULES: Record<ActivityAction, Rule | null> = {
  PROJECT_CREATED: {
    category: 'approvals',
    // An order placed by a customer's person: their account manager (its owner) hears of it as the admins do.
    to: (_byPoc, details) => ({ admins: true, poc: typeof details.accountManagerId === 'string' }),
    label: 'New project',
    describe: ({ actorName }) => `New project requested by ${actorName}.`,
  },
  // Corrections (an admin's PATCH) and edits of the details send no email.
  PROJECT_UPDATED: null,
  APPROVAL_REQUESTED: { category: 'approvals', to: admins, label: 'Approval requested again', describe: ({ actorName }) => `${actorName} asked for approval again.` },
  PROJECT_APPROVED: { category: 'approvals', to: poc, label: 'Approved', describe: ({ actorName }) => `Approved by ${actorName}.` },
  PROJECT_REJECTED: { category: 'approvals', to: poc, label: 'Rejected', describe: ({ actorName }) => `Rejected by ${actorName}.` },
  PI_SUBMITTED: {
    category: 'pi',
    to: admins,
    label: 'PI submitted',
    describe: ({ actorName, details }) =>
      typeof details.number === 'string' && moneyOf(details) ? `PI ${details.number} for ${moneyOf(details)} submitted by ${actorName}.` : `PI submitted by ${actorName}.`,
  },
  PI_VERIFIED: { category: 'pi', to: poc, label: 'PI verified', describe: ({ actorName }) => `PI verified by ${actorName}.` },
  PI_REJECTED: { category: 'pi', to: poc, label: 'PI rejected', describe: ({ actorName }) => `PI rejected by ${actorName}.` },
  PRINTING_STARTED: { category: 'progress', to: poc, label: 'Printing started', describe: ({ actorName }) => `Printing started (${actorName}).` },
  PROJECT_DISPATCHED: { category: 'progress', to: poc, label: 'Dispatched', describe: ({ actorName }) => `Dispatched (${actorName}).` },
  PROJECT_DELIVERED: { category: 'progress', to: poc, label: 'Delivered', describe: ({ actorName }) => `Delivered (${actorName}).` },
  PROJECT_CANCELLED: {
    category: 'progress',
    // When the POC calls it off, the shop must know too.
    to: (byPoc) => ({ admins: byPoc, poc: true }),
    label: 'Cancelled',
    describe: ({ actorName }) => `Cancelled by ${actorName}.`,
  },
  // The POC hears of the money received for their project; it is the admins' own record.
  PAYMENT_RECORDED: {
    category: 'pi',
    to: poc,
    label: 'Payment recorded',
    describe: ({ actorName, details }) => `Payment of ${moneyOf(details) || 'an amount'} received on ${formatShopDate(String(details.receivedOn ?? ''))} recorded by ${actorName}.`,
  },
  PO_UPLOADED: uploaded('PO'),
  CHALLAN_UPLOADED: uploaded('Challan'),
  INVOICE_UPLOADED: uploaded('Invoice'),
  // About a customer, not a project: no email.
  CUSTOMER_CREATED: null,
  CUSTOMER_UPDATED: null,
  PO_VOIDED: voided('PO'),
  CHALLAN_VOIDED: voided('Challan'),
  INVOICE_VOIDED: voided('Invoice'),
  // Everyone else who may see the project; an internal note only the shop's people. The text is the outbox's copy, never the activity entry's.
  COMMENT_ADDED: {
    category: 'comments',
    to: (_byPoc, details) => ({ admins: false, poc: false, viewers: true, shopOnly: details.internal === true }),
    label: 'New comment',
    describe: ({ actorName, details }) => `${details.internal === true ? 'Internal note' : 'Comment'} by ${actorName}: ${String(details.body ?? '')}`,
  },
  // interface.md, Proofs: a posted version to the customer's CLIENT users, who answer it; an answer to the owner and the admins.
  PROOF_POSTED: {
    category: 'proofs',
    to: () => ({ admins: false, poc: false, clients: true }),
    label: 'Proof to approve',
    describe: ({ actorName, details }) => `Proof v${String(details.version ?? '')} posted by ${actorName} for your approval: ${String(details.filename ?? '')}`,
  },
  // Named by the details' byName: an answer through a link has no signed-in actor.
  PROOF_APPROVED: {
    category: 'proofs',
    to: () => ({ admins: true, poc: true, ownerOnly: true }),
    label: 'Proof approved',
    describe: ({ details }) => `Proof v${String(details.version ?? '')} approved by ${String(details.byName ?? 'the customer')}${details.via === 'link' ? ' (through an approval link)' : ''}.`,
  },
  PROOF_CHANGES_REQUESTED: {
    category: 'proofs',
    to: () => ({ admins: true, poc: true, ownerOnly: true }),
    label: 'Proof changes requested',
    describe: ({ details }) =>
      `Changes to proof v${String(details.version ?? '')} requested by ${String(details.byName ?? 'the customer')}${details.via === 'link' ? ' (through an approval link)' : ''}.`,
  },
  // The owner, the admins and the customer's people: everyone who may see the project (interface.md, "Holds, rush, reorders").
  PROJECT_HELD: {
    category: 'progress',
    to: () => ({ admins: true, poc: true, viewers: true }),
    label: 'On hold',
    describe: ({ actorName, details }) => `Put on hold by ${actorName}. Reason: ${String(details.reason ?? '')}`,
  },
  PROJECT_RELEASED: { category: 'progress', to: () => ({ admins: true, poc: true, viewers: true }), label: 'Released', describe: ({ actorName }) => `Released from hold by ${actorName}.` },
};

/** The rule of an action as stored (an outbox row's), or null when it sends no email or is no longer written. */
export const emailRuleOf = (action: string): Rule | null => (isActivityAction(action) ? EMAIL_RULES[action] : null);

/** Who is told of this change, or null when it sends no email (e.g. an admin's PATCH correction). */
export function audienceOf(action: ActivityAction, actor: Actor, project: Pick<Project, 'pocId'>, details: Record<string, unknown> = {}): Audience | null {
  const rule = EMAIL_RULES[action];
  if (!rule) return null;
  return { category: rule.category, ...rule.to(actor.id === project.pocId, details) };
}
