import type { ActivityAction } from '../domain/activity.js';
import type { Actor, FileUpload } from '../domain/model.js';
import type { Store } from '../db/store.js';
import { newId } from '../ids.js';
import { type Concerned, queueWebhookEvent } from '../webhooks/outbox.js';

/** Writes one activity-log entry about something other than a project (a customer): no realtime event reads it. */
export async function recordActivity(
  store: Store,
  actor: Actor,
  entity: { type: 'customer'; id: string },
  action: ActivityAction,
  details: Record<string, unknown>,
  now: string,
): Promise<number> {
  return store.activity.insert({ id: newId(), userId: actor.id, action, entityType: entity.type, entityId: entity.id, details, createdAt: now });
}

/**
 * Writes one activity-log entry about a project, and the webhook deliveries its event calls for
 * (domain/webhooks.ts, WEBHOOK_EVENT_OF) in the same transaction; returns its position in the
 * event log (realtime/streams.ts reads it). `concerned` names the document (or gives the comment,
 * the payment) the event carries besides the project.
 */
export async function recordProjectActivity(
  store: Store,
  /** id null: nobody signed in (an answer given through a proof link). */
  actor: { id: string | null },
  projectId: string,
  action: ActivityAction,
  details: Record<string, unknown>,
  now: string,
  /** An internal note's entry (never shown to a CLIENT); what the webhook event carries besides the project; an upload's record, written with the entry (db/activity.ts). */
  extra: { internal?: boolean; concerned?: Concerned; file?: FileUpload } = {},
): Promise<number> {
  const entry = { id: newId(), userId: actor.id, action, entityType: 'project', entityId: projectId, details, createdAt: now, internal: extra.internal ?? false };
  const position = await store.activity.insert(entry, { file: extra.file });
  // In the entry's transaction, under the event log's lock: the event commits at its position (db/webhook-deliveries.ts, fanOut).
  await queueWebhookEvent(store, { actorId: actor.id, projectId, action, details, at: now, concerned: extra.concerned, seq: position });
  return position;
}
