import { Type } from '@fastify/type-provider-typebox';
import { createWebhook, deleteWebhook, listDeliveries, listWebhooks, retryDelivery, sendTestEvent, updateWebhook } from '../../actions/webhooks.js';
import { DELIVERY_STATUSES, WEBHOOK_EVENT_TYPES } from '../../domain/webhooks.js';
import { AppError } from '../../errors.js';
import { presentDelivery, presentWebhook, presentWebhookWithSecret } from '../../presenters/webhooks.js';
import { actorOf } from '../session.js';
import { IdParams, Limit, NullableString, enumOf, errorRef, pageOf } from '../schemas.js';
import { type App, type RouteContext, documentationOnly } from './context.js';

const Events = Type.Array(Type.Unsafe<string>({ type: 'string', enum: ['*', ...WEBHOOK_EVENT_TYPES] }), { minItems: 1, description: 'the events to send; "*" for all' });
const Webhook = Type.Object({
  id: Type.String(),
  url: Type.String(),
  events: Events,
  description: NullableString(),
  active: Type.Boolean(),
  failingSince: NullableString({ format: 'date-time', description: 'the first failure of the current run of failures; the endpoint is switched off after 24 hours of them' }),
  secretRotatesUntil: NullableString({ format: 'date-time', description: 'after a rotation, until when the previous secret signs too' }),
  createdAt: Type.String({ format: 'date-time' }),
  updatedAt: Type.String({ format: 'date-time' }),
});
const WebhookWithSecret = Type.Object({ ...Webhook.properties, secret: Type.String({ description: 'whsec_ + base64: shown only in this answer' }) });
const Delivery = Type.Object({
  id: Type.String(),
  event: Type.String(),
  eventId: Type.String({ description: 'the webhook-id header and the body’s id' }),
  status: enumOf(DELIVERY_STATUSES),
  attempts: Type.Integer(),
  lastStatusCode: Type.Union([Type.Integer(), Type.Null()]),
  lastError: NullableString(),
  responseExcerpt: NullableString({ description: 'the first 1 KiB of the last answer' }),
  createdAt: Type.String({ format: 'date-time' }),
  deliveredAt: NullableString({ format: 'date-time' }),
});
const DeliveryParams = Type.Object({ id: Type.String(), deliveryId: Type.String() });

/** The body as sent, when it is a JSON object; anything else is refused before the action. */
function objectBody(body: unknown): Record<string, unknown> {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) throw new AppError(400, 'The body must be a JSON object');
  return body as Record<string, unknown>;
}

/** Webhooks (interface.md, additions of 2026-11-24): ADMIN only; anyone else 403, no session 401. Bodies are checked by the actions, which name the field. */
export async function webhookRoutes(app: App, { deps, hooks }: RouteContext) {
  app.get(
    '/api/webhooks',
    { onRequest: hooks.requireSession, schema: { tags: ['webhooks'], summary: 'The webhook endpoints (ADMIN)', response: { 200: Type.Array(Webhook), 401: errorRef, 403: errorRef } } },
    async (req) => (await listWebhooks(deps, actorOf(req))).map(presentWebhook),
  );

  app.post(
    '/api/webhooks',
    {
      onRequest: hooks.requireSession,
      schema: {
        tags: ['webhooks'],
        summary: 'Register an endpoint (ADMIN); the answer shows its secret, once',
        description:
          'url: http(s), at most 2000 characters; a host on a loopback, private, link-local or otherwise internal address is refused unless WEBHOOK_ALLOW_PRIVATE_TARGETS=true. events: a non-empty list of event types, or ["*"].',
        body: Type.Object({ url: Type.String(), events: Events, description: Type.Optional(NullableString()) }),
        response: { 201: WebhookWithSecret, 400: errorRef, 401: errorRef, 403: errorRef },
      },
      validatorCompiler: documentationOnly,
    },
    async (req, reply) => reply.code(201).send(presentWebhookWithSecret(await createWebhook(deps, actorOf(req), objectBody(req.body)))),
  );

  app.patch(
    '/api/webhooks/:id',
    {
      onRequest: hooks.requireSession,
      schema: {
        tags: ['webhooks'],
        summary: 'Change an endpoint (ADMIN); rotateSecret: true answers the new secret, once, and the previous one signs too for 24 hours',
        params: IdParams,
        body: Type.Object({
          url: Type.Optional(Type.String()),
          events: Type.Optional(Events),
          description: Type.Optional(NullableString()),
          active: Type.Optional(Type.Boolean()),
          rotateSecret: Type.Optional(Type.Boolean()),
        }),
        response: { 200: Type.Union([WebhookWithSecret, Webhook]), 400: errorRef, 401: errorRef, 403: errorRef, 404: errorRef },
      },
      validatorCompiler: documentationOnly,
    },
    async (req) => {
      const { webhook, rotated } = await updateWebhook(deps, actorOf(req), req.params.id, objectBody(req.body));
      return rotated ? presentWebhookWithSecret(webhook) : presentWebhook(webhook);
    },
  );

  app.delete(
    '/api/webhooks/:id',
    { onRequest: hooks.requireSession, schema: { tags: ['webhooks'], summary: 'Remove an endpoint and its delivery log (ADMIN)', params: IdParams, response: { 204: Type.Unknown({ description: 'no body' }), 401: errorRef, 403: errorRef, 404: errorRef } } },
    async (req, reply) => {
      await deleteWebhook(deps, actorOf(req), req.params.id);
      return reply.code(204).send();
    },
  );

  app.get(
    '/api/webhooks/:id/deliveries',
    {
      onRequest: hooks.requireSession,
      schema: {
        tags: ['webhooks'],
        summary: 'An endpoint’s deliveries, newest first (ADMIN)',
        params: IdParams,
        querystring: Type.Object({ limit: Limit, cursor: Type.Optional(Type.String()) }),
        response: { 200: pageOf(Delivery), 400: errorRef, 401: errorRef, 403: errorRef, 404: errorRef },
      },
    },
    async (req) => {
      const page = await listDeliveries(deps, actorOf(req), req.params.id, { limit: req.query.limit ?? 50, cursor: req.query.cursor });
      return { items: page.items.map(presentDelivery), nextCursor: page.nextCursor };
    },
  );

  app.post(
    '/api/webhooks/:id/deliveries/:deliveryId/retry',
    {
      onRequest: hooks.requireSession,
      schema: {
        tags: ['webhooks'],
        summary: 'Send a delivery again (ADMIN): pending, due now, after the endpoint’s earlier pending ones',
        params: DeliveryParams,
        response: { 200: Delivery, 401: errorRef, 403: errorRef, 404: errorRef },
      },
    },
    async (req) => presentDelivery(await retryDelivery(deps, actorOf(req), req.params.id, req.params.deliveryId)),
  );

  app.post(
    '/api/webhooks/:id/test',
    {
      onRequest: hooks.requireSession,
      schema: {
        tags: ['webhooks'],
        summary: 'Send a webhook.test event to this endpoint (ADMIN), whatever events it listens to',
        params: IdParams,
        response: { 202: Delivery, 401: errorRef, 403: errorRef, 404: errorRef },
      },
    },
    async (req, reply) => reply.code(202).send(presentDelivery(await sendTestEvent(deps, actorOf(req), req.params.id))),
  );
}
