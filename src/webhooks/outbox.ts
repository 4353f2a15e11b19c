import type { Store } from '../db/store.js';
import type { ActivityAction } from '../domain/activity.js';
import type { FileUploadWithNames, Payment, ProjectWithNames } from '../domain/model.js';
import { TEST_EVENT_TYPE, WEBHOOK_EVENT_OF, subscribesTo } from '../domain/webhooks.js';
import { newId } from '../ids.js';

/**
 * What a change may add to its event besides the project: the document concerned (by id, among
 * the project's documents), and data of its own, already presented (a comment, a payment).
 */
export interface Concerned {
  fileId?: string;
  data?: Record<string, unknown>;
}

/**
 * The stored data of a project event: the rows the change's transaction wrote or read, except the
 * project's documents. Those are read when the event is sent, as they stood at the event's time
 * (domain/webhooks.ts, documentsAsOf), so a change's cost does not grow with the project's documents.
 */
export interface ProjectEventPayload {
  action: string;
  /** null: nobody signed in (a proof answered through a link). */
  actorId: string | null;
  details: Record<string, unknown>;
  project: ProjectWithNames;
  /** Only in events queued before migration 022: the documents as the change saw them, sent as they are. */
  files?: FileUploadWithNames[];
  /** Absent in deliveries queued before payments existed. */
  payments?: Payment[];
  fileId?: string;
  data?: Record<string, unknown>;
}

/** The stored data of a test event. */
export interface TestEventPayload {
  test: true;
  webhookId: string;
}

/**
 * Writes the change's event once, naming every active endpoint listening, in the caller's
 * transaction (actions/record-activity.ts calls it with the activity entry): an event exists
 * exactly when its change does. Its deliveries are made behind it, by the dispatcher (fanOut), so a
 * change writes one row whatever the number of endpoints. Nothing is read when no endpoint listens.
 */
export async function queueWebhookEvent(
  store: Store,
  change: { actorId: string | null; projectId: string; action: ActivityAction; details: Record<string, unknown>; at: string; concerned?: Concerned; seq: number },
): Promise<void> {
  const type = WEBHOOK_EVENT_OF[change.action];
  if (type === null) return;
  const endpoints = (await store.webhooks.listening()).filter((w) => subscribesTo(w.events, type));
  if (!endpoints.length) return;
  // Under the event log's lock (the caller's), so it is never older than an earlier event's; a batch's units share it (db/store.ts).
  const read = await store.projects.forEvent(change.projectId);
  if (!read) return;
  const payload: ProjectEventPayload = {
    action: change.action,
    actorId: change.actorId,
    details: change.details,
    project: read.project,
    payments: read.payments,
    ...(change.concerned?.fileId ? { fileId: change.concerned.fileId } : {}),
    ...(change.concerned?.data ? { data: change.concerned.data } : {}),
  };
  await store.webhookDeliveries.queueEvent(
    { id: newId(), type, payload, createdAt: change.at },
    endpoints.map((w) => w.id),
    change.seq,
  );
}

/** POST /api/webhooks/:id/test: one `webhook.test` event for that endpoint alone. */
export async function queueTestEvent(store: Store, webhookId: string, at: string): Promise<string> {
  const id = newId();
  const payload: TestEventPayload = { test: true, webhookId };
  await store.webhookDeliveries.queue({ id: newId(), type: TEST_EVENT_TYPE, payload, createdAt: at }, [{ id, webhookId }]);
  return id;
}
