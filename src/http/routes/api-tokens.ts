import { Type } from '@fastify/type-provider-typebox';
import { createApiToken, revokeApiToken } from '../../actions/api-tokens.js';
import { errors } from '../../errors.js';
import { presentAdminApiToken, presentApiToken, presentCreatedApiToken } from '../../presenters/index.js';
import { actorOf } from '../session.js';
import { AdminApiToken, ApiToken, CreatedApiToken, IdParams, NewApiToken, errorRef } from '../schemas.js';
import { type App, type RouteContext, withRequestLog } from './context.js';

const BEARER_NOTE = 'Use a token as `Authorization: Bearer <token>` on any endpoint, exactly where the session cookie would go; a read token may only GET and HEAD (else 403 This token is read-only).';

/** API tokens (interface.md, additions of 2026-11-24): one's own on My account; everyone's for ADMINs. */
export async function apiTokenRoutes(app: App, { deps, hooks }: RouteContext) {
  app.get(
    '/api/account/tokens',
    {
      onRequest: hooks.requireSession,
      schema: { tags: ['account'], summary: 'My API tokens (not revoked; expired ones too), newest first; never the token itself', response: { 200: Type.Array(ApiToken), 401: errorRef } },
    },
    async (req) => (await deps.store.apiTokens.listForUser(actorOf(req).id)).map(presentApiToken),
  );

  app.post(
    '/api/account/tokens',
    {
      onRequest: hooks.requireSession,
      schema: {
        tags: ['account'],
        summary: 'Create an API token: the answer is the only time the token is shown',
        description: `${BEARER_NOTE} Only a signed-in session creates tokens: a request made with a token gets 403, so a leaked token cannot make others that outlive it.`,
        body: NewApiToken,
        response: { 201: CreatedApiToken, 400: errorRef, 401: errorRef, 403: errorRef },
        // Made with the session cookie only.
        security: [{ session: [] }],
      },
    },
    async (req, reply) => {
      if (req.apiToken) throw errors.tokenNeedsSession();
      const { token, secret } = await createApiToken(deps, actorOf(req), req.body);
      return reply.code(201).send(presentCreatedApiToken(token, secret));
    },
  );

  app.delete(
    '/api/account/tokens/:id',
    {
      onRequest: hooks.requireSession,
      schema: {
        tags: ['account'],
        summary: 'Revoke one of my API tokens: it stops working at once, on every instance (another user’s id: 404)',
        params: IdParams,
        response: { 204: Type.Null({ description: 'revoked' }), 401: errorRef, 403: errorRef, 404: errorRef },
      },
    },
    async (req, reply) => {
      await revokeApiToken(withRequestLog(deps, req), req.params.id, actorOf(req).id);
      return reply.code(204).send(null);
    },
  );

  app.get(
    '/api/tokens',
    {
      onRequest: hooks.requireAdmin,
      schema: { tags: ['team'], summary: 'Everyone’s API tokens with their owner (ADMIN; others 401), newest first', response: { 200: Type.Array(AdminApiToken), 401: errorRef } },
    },
    async () => (await deps.store.apiTokens.listAll()).map(presentAdminApiToken),
  );

  app.delete(
    '/api/tokens/:id',
    {
      onRequest: hooks.requireAdmin,
      schema: { tags: ['team'], summary: 'Revoke anyone’s API token (ADMIN; others 401)', params: IdParams, response: { 204: Type.Null({ description: 'revoked' }), 401: errorRef, 403: errorRef, 404: errorRef } },
    },
    async (req, reply) => {
      await revokeApiToken(withRequestLog(deps, req), req.params.id);
      return reply.code(204).send(null);
    },
  );
}
