import { randomUUID } from 'node:crypto';
import type { DocumentAccess } from '../domain/documents.js';
import { todayIn } from '../domain/due.js';
import type { FileUploadWithNames } from '../domain/model.js';
import type { Webhook, WebhookDelivery, WebhookEvent } from '../domain/webhooks.js';
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

/** Whether an event's body needs the project's documents read (events queued before migration 022 carry theirs). */
export const needsDocuments = (payload: unknown): payload is ProjectEventPayload & { files?: undefined } =>
  typeof payload === 'object' && payload !== null && 'project' in payload && !('files' in payload);

/** Stands for the documents' JSON in a body being made (webhookBodyWith): random, so no stored text can be mistaken for it. */
const MARK = `\u0000${randomUUID()}`;
const FILES_MARK = JSON.stringify(`${MARK}files`);
const DOCUMENT_MARK = JSON.stringify(`${MARK}document`);

/**
 * The body a delivery sends: `{id, type, createdAt, data}`. A project event's data: the activity
 * action and details, and the project as GET /api/projects/:id shows it to an ADMIN (with its
 * documents as they stood at the event's time, `documents`: domain/webhooks.ts documentsAsOf;
 * `overdue` as of the change's date in the shop's time zone), and the document concerned.
 */
export function webhookBody(event: WebhookEvent, documents: FileUploadWithNames[] | null, timeZone: string, access: DocumentAccess): string {
  const payload = event.payload as ProjectEventPayload | TestEventPayload;
  if ('test' in payload) return webhookBodyWith(event, '[]', () => 'null', timeZone);
  const files = presentFiles(payload.files ?? documents ?? [], access);
  return webhookBodyWith(event, JSON.stringify(files), (id) => JSON.stringify(files.find((f) => f.id === id) ?? null), timeZone);
}

/**
 * webhookBody with the documents already presented as JSON (`filesJson`, and `documentJson` of the
 * one concerned, `null` when it is not listed): the same bytes, made without presenting and encoding
 * a project's documents again for each event (webhooks/body.ts).
 */
export function webhookBodyWith(event: WebhookEvent, filesJson: string, documentJson: (id: string) => string, timeZone: string): string {
  const payload = event.payload as ProjectEventPayload | TestEventPayload;
  let data: Record<string, unknown>;
  if ('test' in payload) {
    data = { webhookId: payload.webhookId, message: 'A test event sent from the Webhooks page' };
    return JSON.stringify({ id: event.id, type: event.type, createdAt: event.createdAt, data });
  }
  data = {
    action: payload.action,
    actorId: payload.actorId,
    details: payload.details,
    project: { ...presentProject(payload.project, todayIn(timeZone, new Date(event.createdAt))), files: `${MARK}files`, payments: (payload.payments ?? []).map(presentPayment) },
    ...(payload.fileId ? { document: `${MARK}document` } : {}),
    ...payload.data,
  };
  return JSON.stringify({ id: event.id, type: event.type, createdAt: event.createdAt, data })
    .replace(FILES_MARK, () => filesJson)
    .replace(DOCUMENT_MARK, () => documentJson(payload.fileId!));
}
