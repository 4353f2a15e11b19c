import type { ActivityAction } from '../domain/activity.js';
import type { Actor } from '../domain/model.js';
import type { Store } from '../db/store.js';
import { newId } from '../ids.js';
import { type Concerned, queueWebhookEvent } from '../webhooks/outbox.js';

/**
 * Writes one activity-log entry about a project, and the webhook deliveries its event calls for
 * (domain/webhooks.ts, WEBHOOK_EVENT_OF) in the same transaction; returns its position in the
 * event log (realtime/streams.ts reads it). `concerned` names the document (or gives the comment,
 * the payment) the event carries besides the project.
 */
export async function recordProjectActivity(
  store: Store,
  actor: Actor,
  projectId: string,
  action: ActivityAction,
  details: Record<string, unknown>,
  now: string,
  concerned?: Concerned,
): Promise<number> {
  const position = await store.activity.insert({ id: newId(), userId: actor.id, action, entityType: 'project', entityId: projectId, details, createdAt: now });
  await queueWebhookEvent(store, { actorId: actor.id, projectId, action, details, at: now, concerned });
  return position;
}
