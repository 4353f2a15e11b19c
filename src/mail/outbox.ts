import type { Store } from '../db/store.js';
import type { ActivityAction } from '../domain/activity.js';
import type { Actor, Project } from '../domain/model.js';
import { newId } from '../ids.js';
import { audienceOf } from './rules.js';

/**
 * Writes the outbox rows a project change deserves (mail/rules.ts), in the caller's transaction
 * and after the change's activity entry, so an email exists exactly when the change does. Each
 * recipient's email about the project collects the changes of the next `batchSeconds` (0: due now).
 */
export async function queueProjectEmails(
  store: Store,
  batchSeconds: number,
  change: { actor: Actor; project: Pick<Project, 'id' | 'pocId'>; action: ActivityAction; details: Record<string, unknown>; at: string },
): Promise<void> {
  const audience = audienceOf(change.action, change.actor, change.project, change.details);
  if (!audience) return;
  const recipients = await store.outbox.recipients({
    admins: audience.admins,
    poc: audience.poc,
    viewers: audience.viewers,
    shopOnly: audience.shopOnly,
    project: change.project,
    category: audience.category,
    exceptId: change.actor.id,
  });
  const dueAt = new Date(Date.parse(change.at) + batchSeconds * 1000).toISOString();
  const event = { action: change.action, actorId: change.actor.id, at: change.at, details: change.details };
  for (const recipientId of recipients) await store.outbox.queue(newId(), recipientId, change.project.id, event, change.at, dueAt);
}
