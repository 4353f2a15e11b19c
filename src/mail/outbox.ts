import type { OutboxEvent } from '../db/mail.js';
import type { Store } from '../db/store.js';
import type { ActivityAction } from '../domain/activity.js';
import type { Actor, Project } from '../domain/model.js';
import { newId } from '../ids.js';
import { audienceOf } from './rules.js';

/** A project change as its emails see it. */
interface ProjectChange {
  actor: Actor;
  project: Pick<Project, 'id' | 'pocId'> & Partial<Pick<Project, 'customerId'>>;
  action: ActivityAction;
  details: Record<string, unknown>;
  at: string;
}

/**
 * Writes the outbox rows a project change deserves (mail/rules.ts), in the caller's transaction
 * and after the change's activity entry, so an email exists exactly when the change does. Each
 * recipient's email about the project collects the changes of the next `batchSeconds` (0: due now).
 */
export async function queueProjectEmails(store: Store, batchSeconds: number, change: ProjectChange): Promise<void> {
  await queueProjectEmailsTo(store, batchSeconds, change, await projectEmailRecipients(store, change));
}

/** queueProjectEmails's read: who is to be emailed about the change (none: nothing to write). */
export async function projectEmailRecipients(store: Store, change: ProjectChange): Promise<string[]> {
  const audience = audienceOf(change.action, change.actor, change.project, change.details);
  if (!audience) return [];
  return store.outbox.recipients({
    admins: audience.admins,
    poc: audience.poc,
    viewers: audience.viewers,
    shopOnly: audience.shopOnly,
    clients: audience.clients,
    ownerOnly: audience.ownerOnly,
    project: change.project,
    category: audience.category,
    exceptId: change.actor.id,
  });
}

/** queueProjectEmails's writes, to the recipients it read. */
export async function queueProjectEmailsTo(store: Store, batchSeconds: number, change: ProjectChange, recipients: readonly string[]): Promise<void> {
  const dueAt = new Date(Date.parse(change.at) + batchSeconds * 1000).toISOString();
  const event = { action: change.action, actorId: change.actor.id, at: change.at, details: change.details };
  for (const recipientId of recipients) await store.outbox.queue(newId(), recipientId, change.project.id, event, change.at, dueAt);
}

/** The event of a due-date digest's outbox row: the row names no project; the email lists that day's (composed when sent). */
const DUE_DIGEST_EVENT = 'DUE_DIGEST';

/** Writes a person's due-date digest for `day` into the outbox, due at once, in the caller's transaction (beside its claim). */
export async function queueDueDigest(store: Store, digest: { id: string; recipientId: string; day: string; at: string }): Promise<void> {
  const event = { action: DUE_DIGEST_EVENT, actorId: digest.recipientId, at: digest.at, details: { day: digest.day } };
  await store.outbox.add(digest.id, digest.recipientId, null, [event], digest.at, digest.at);
}

/** The day of a due-date digest's row, or null for any other email. */
export function dueDigestDayOf(events: OutboxEvent[]): string | null {
  const [first] = events;
  return events.length === 1 && first?.action === DUE_DIGEST_EVENT && typeof first.details.day === 'string' ? first.details.day : null;
}
