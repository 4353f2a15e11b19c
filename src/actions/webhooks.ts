import type { Deps } from '../deps.js';
import { nowIso } from '../deps.js';
import type { Actor } from '../domain/model.js';
import { textRefusal } from '../domain/limits.js';
import { type Webhook, type WebhookDelivery, WEBHOOK_DESCRIPTION_MAX, parseWebhookEvents, parseWebhookUrl } from '../domain/webhooks.js';
import { AppError, errors } from '../errors.js';
import { newId } from '../ids.js';
import { resolveTarget } from '../webhooks/send.js';
import { newWebhookSecret } from '../webhooks/signature.js';
import { queueTestEvent } from '../webhooks/outbox.js';

/** After a rotation the previous secret signs too, this long, so receivers can switch at their pace. */
export const ROTATION_OVERLAP_MS = 24 * 3_600_000;

const notFound = () => new AppError(404, 'Webhook not found');
const deliveryNotFound = () => new AppError(404, 'Delivery not found');

/** Webhooks are the shop's: ADMIN only (anyone else 403, as interface.md's admin endpoints answer). */
function adminOnly(actor: Actor): void {
  if (actor.role !== 'ADMIN') throw errors.forbidden();
}

/** A target, checked: an http(s) URL whose host is a public address (SSRF) unless WEBHOOK_ALLOW_PRIVATE_TARGETS; the refusal names `url`. */
async function checkedUrl(deps: Pick<Deps, 'config'>, v: unknown): Promise<string> {
  const url = parseWebhookUrl(v);
  if (url instanceof AppError) throw url;
  const resolved = await resolveTarget(url, deps.config.webhooks.allowPrivateTargets, AbortSignal.timeout(deps.config.webhooks.timeoutMs));
  if ('refused' in resolved) throw errors.invalidField('url', `is refused: ${resolved.refused}`);
  return url.href;
}

function checkedEvents(v: unknown): string[] {
  const events = parseWebhookEvents(v);
  if (events instanceof AppError) throw events;
  return events;
}

function checkedDescription(v: unknown): string | null {
  if (v === undefined || v === null) return null;
  if (typeof v !== 'string') throw errors.invalidField('description', 'must be text');
  const refusal = textRefusal('description', v);
  if (refusal) throw refusal;
  if (v.trim().length > WEBHOOK_DESCRIPTION_MAX) throw errors.invalidField('description', `must be at most ${WEBHOOK_DESCRIPTION_MAX} characters`);
  return v.trim() || null;
}

export const listWebhooks = async (deps: Pick<Deps, 'store'>, actor: Actor): Promise<Webhook[]> => {
  adminOnly(actor);
  return deps.store.webhooks.list();
};

/** POST /api/webhooks: a new active endpoint with a new secret (answered once). */
export async function createWebhook(deps: Pick<Deps, 'store' | 'config'>, actor: Actor, input: { url?: unknown; events?: unknown; description?: unknown }): Promise<Webhook> {
  adminOnly(actor);
  const events = checkedEvents(input.events);
  const description = checkedDescription(input.description);
  const url = await checkedUrl(deps, input.url);
  const now = nowIso();
  const webhook: Webhook = {
    id: newId(),
    url,
    events,
    description,
    secret: newWebhookSecret(),
    previousSecret: null,
    previousSecretExpiresAt: null,
    active: true,
    failingSince: null,
    createdAt: now,
    updatedAt: now,
  };
  await deps.store.webhooks.insert(webhook);
  return webhook;
}

export interface WebhookPatch {
  url?: unknown;
  events?: unknown;
  description?: unknown;
  active?: unknown;
  rotateSecret?: unknown;
}

/** PATCH /api/webhooks/:id: the answer carries the new secret only when `rotateSecret` made one. */
export async function updateWebhook(deps: Pick<Deps, 'store' | 'config'>, actor: Actor, id: string, patch: WebhookPatch): Promise<{ webhook: Webhook; rotated: boolean }> {
  adminOnly(actor);
  if (patch.active !== undefined && typeof patch.active !== 'boolean') throw errors.invalidField('active', 'must be true or false');
  if (patch.rotateSecret !== undefined && patch.rotateSecret !== true && patch.rotateSecret !== false) throw errors.invalidField('rotateSecret', 'must be true or false');
  const events = patch.events === undefined ? undefined : checkedEvents(patch.events);
  const description = patch.description === undefined ? undefined : checkedDescription(patch.description);
  const url = patch.url === undefined ? undefined : await checkedUrl(deps, patch.url);
  const current = await deps.store.webhooks.findById(id);
  if (!current) throw notFound();
  const now = nowIso();
  const rotated = patch.rotateSecret === true;
  const rotation = rotated
    ? { secret: newWebhookSecret(), previousSecret: current.secret, previousSecretExpiresAt: new Date(Date.parse(now) + ROTATION_OVERLAP_MS).toISOString() }
    : {};
  const webhook = await deps.store.webhooks.update(id, { url, events, description, active: patch.active as boolean | undefined, ...rotation }, now);
  if (!webhook) throw notFound();
  return { webhook, rotated };
}

export async function deleteWebhook(deps: Pick<Deps, 'store'>, actor: Actor, id: string): Promise<void> {
  adminOnly(actor);
  if (!(await deps.store.webhooks.delete(id))) throw notFound();
}

/** GET /api/webhooks/:id/deliveries: newest first, a page at a time (`cursor`: the last id of the previous page). */
export async function listDeliveries(deps: Pick<Deps, 'store'>, actor: Actor, id: string, page: { limit: number; cursor?: string }): Promise<{ items: WebhookDelivery[]; nextCursor: string | null }> {
  adminOnly(actor);
  if (!(await deps.store.webhooks.findById(id))) throw notFound();
  const rows = await deps.store.webhookDeliveries.list(id, page.limit + 1, page.cursor);
  const items = rows.slice(0, page.limit);
  return { items, nextCursor: rows.length > page.limit ? items[items.length - 1]!.id : null };
}

/** POST /api/webhooks/:id/deliveries/:deliveryId/retry: pending again and due now (delivered ones too: a receiver that lost one asks again). */
export async function retryDelivery(deps: Pick<Deps, 'store' | 'webhooks'>, actor: Actor, id: string, deliveryId: string): Promise<WebhookDelivery> {
  adminOnly(actor);
  const delivery = await deps.store.webhookDeliveries.retryNow(id, deliveryId, nowIso());
  if (!delivery) throw deliveryNotFound();
  deps.webhooks.nudge();
  return delivery;
}

/** POST /api/webhooks/:id/test: a `webhook.test` event queued for this endpoint. */
export async function sendTestEvent(deps: Pick<Deps, 'store' | 'webhooks'>, actor: Actor, id: string): Promise<WebhookDelivery> {
  adminOnly(actor);
  if (!(await deps.store.webhooks.findById(id))) throw notFound();
  const deliveryId = await queueTestEvent(deps.store, id, nowIso());
  deps.webhooks.nudge();
  return (await deps.store.webhookDeliveries.findById(id, deliveryId))!;
}
