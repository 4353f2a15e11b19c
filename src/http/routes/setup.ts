import { Type } from '@fastify/type-provider-typebox';
import { runSetup, setupNeeded } from '../../actions/first-run.js';
import { presentSessionUser } from '../../presenters/index.js';
import { SessionUser, errorRef } from '../schemas.js';
import { type App, type RouteContext, documentationOnly } from './context.js';

/** The first run (interface.md, "First run"): the setup link of a new install's log, used once from the setup page. */
export async function setupRoutes(app: App, { deps, hooks, firstRun }: RouteContext) {
  app.get(
    '/api/setup',
    {
      schema: {
        tags: ['sessions'],
        operationId: 'setupNeeded',
        summary: 'Whether the install still waits for its first admin (no active ADMIN): the setup page and the sign-in page ask',
        response: { 200: Type.Object({ needed: Type.Boolean({ description: 'true while no active ADMIN exists' }) }) },
      },
    },
    async () => ({ needed: await setupNeeded(deps) }),
  );

  app.post(
    '/api/setup',
    {
      schema: {
        tags: ['sessions'],
        operationId: 'setupFirstAdmin',
        summary: 'Create the first admin with the one-time setup token of the start-up log; sets the HttpOnly session cookie',
        description:
          'When no active ADMIN exists at start-up and ADMIN_EMAIL is unset, the service logs once, at warn, `Open <PUBLIC_URL>/setup#<token> to create the first admin`. ' +
          'The token (43 random base62 characters) is kept in that process\'s memory only, as its hash; a new one at every start until an admin exists; spent by the setup that uses it. ' +
          'Refusals, the first that applies: a cross-origin request 403; an active ADMIN exists `409 {"error": "Setup is already done"}` whatever the token; ' +
          'a wrong token `403 {"error": "Invalid setup token"}`, counted as a failed sign-in of the client address (then `429` with `Retry-After`); ' +
          'a missing name or email, an email that is not an address, a password under 8 characters `400` naming the field (the token stays good); an email already taken `409`.',
        body: Type.Object({
          token: Type.String({ description: 'the part of the logged link after `#`' }),
          name: Type.String(),
          email: Type.String(),
          password: Type.String({ description: 'at least 8 characters' }),
        }),
        response: { 201: Type.Object({ user: SessionUser }), 400: errorRef, 403: errorRef, 409: errorRef, 429: errorRef },
      },
      validatorCompiler: documentationOnly,
    },
    async (req, reply) => {
      hooks.checkOrigin(req);
      const result = await runSetup(deps, firstRun, req.body, req.ip);
      hooks.setSessionCookie(reply, result.token, result.expiresAt);
      return reply.code(201).send({ user: presentSessionUser(result.user) });
    },
  );
}
