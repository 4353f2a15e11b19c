import type { ActivityAction } from '../domain/activity.js';
import type { Actor } from '../domain/model.js';
import type { Store } from '../db/store.js';
import { newId } from '../ids.js';

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

/** Writes one activity-log entry about a project; returns its position in the event log (realtime/streams.ts reads it). */
export async function recordProjectActivity(
  store: Store,
  actor: Actor,
  projectId: string,
  action: ActivityAction,
  details: Record<string, unknown>,
  now: string,
  /** An internal note's entry: never shown to a CLIENT. */
  internal = false,
): Promise<number> {
  return store.activity.insert({ id: newId(), userId: actor.id, action, entityType: 'project', entityId: projectId, details, createdAt: now, internal });
}
