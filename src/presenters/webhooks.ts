import type { DocumentAccess } from '../domain/documents.js';
import { todayIn } from '../domain/due.js';
import type { Webhook, WebhookDelivery } from '../domain/webhooks.js';
import type { ProjectEventPayload, TestEventPayload } from '../webhooks/outbox.js';
import { presentFiles, presentPayment, presentProject } from './index.js';

/** An endpoint as GET /api/webhooks lists it: never its secrets. */
export const presentWebhook = (w: Webhook) => ({
  id: w.id,
  url: w.url,
  events: w.events,
  description: w.description,
  active: w.active,
  failingSince: w.failingSince,
  secretRotatesUntil: w.previousSecretExpiresAt,
  createdAt: w.createdAt,
  updatedAt: w.updatedAt,
});

/** An endpoint with its secret: only in the answer that made the secret (POST, PATCH rotateSecret). */
export const presentWebhookWithSecret = (w: Webhook) => ({ ...presentWebhook(w), secret: w.secret });

/** A delivery in the log (interface.md's fields, and the answer's excerpt). */
export const presentDelivery = (d: WebhookDelivery) => ({
  id: d.id,
  event: d.eventType,
  eventId: d.eventId,
  status: d.status,
  attempts: d.attempts,
  lastStatusCode: d.lastStatusCode,
  lastError: d.lastError,
  responseExcerpt: d.responseExcerpt,
  createdAt: d.createdAt,
  deliveredAt: d.deliveredAt,
});

/**
 * The body a delivery sends: `{id, type, createdAt, data}`. A project event's data: the activity
 * action and details, and the project as GET /api/projects/:id shows it to an ADMIN (with its
 * documents; `overdue` as of the change's date in the shop's time zone), and the document concerned.
 */
export function webhookBody(d: Pick<WebhookDelivery, 'eventId' | 'eventType' | 'payload' | 'createdAt'>, timeZone: string, access: DocumentAccess): string {
  const payload = d.payload as ProjectEventPayload | TestEventPayload;
  let data: Record<string, unknown>;
  if ('test' in payload) {
    data = { webhookId: payload.webhookId, message: 'A test event sent from the Webhooks page' };
  } else {
    const files = presentFiles(payload.files, access);
    data = {
      action: payload.action,
      actorId: payload.actorId,
      details: payload.details,
      project: { ...presentProject(payload.project, todayIn(timeZone, new Date(d.createdAt))), files, payments: (payload.payments ?? []).map(presentPayment) },
      ...(payload.fileId ? { document: files.find((f) => f.id === payload.fileId) ?? null } : {}),
      ...payload.data,
    };
  }
  return JSON.stringify({ id: d.eventId, type: d.eventType, createdAt: d.createdAt, data });
}
