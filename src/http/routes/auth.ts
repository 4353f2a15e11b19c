import { Type } from '@fastify/type-provider-typebox';
import { login, logout } from '../../actions/auth.js';
import { presentSessionUser } from '../../presenters/index.js';
import { SESSION_COOKIE } from '../session.js';
import { NullableString, SessionUser, errorRef } from '../schemas.js';
import { type App, type RouteContext, documentationOnly, withRequestLog } from './context.js';

/** Sessions (interface.md): login, logout, who am I. */
export async function authRoutes(app: App, { deps, hooks }: RouteContext) {
  app.post(
    '/api/auth/login',
    {
      schema: {
        tags: ['sessions'],
        summary: 'Sign in; sets the HttpOnly session cookie',
        body: Type.Object({ email: Type.String(), password: Type.String() }),
        response: { 200: Type.Object({ user: SessionUser }), 400: errorRef, 401: errorRef, 429: errorRef },
      },
      validatorCompiler: documentationOnly,
    },
    async (req, reply) => {
      hooks.checkOrigin(req);
      const result = await login(deps, req.body, req.ip);
      hooks.setSessionCookie(reply, result.token, result.expiresAt);
      return { user: presentSessionUser(result.user) };
    },
  );

  app.post('/api/auth/logout', { schema: { tags: ['sessions'], summary: 'Sign out: ends the session', response: { 204: Type.Unknown({ description: 'no body; the session cookie cleared' }), 403: errorRef } } }, async (req, reply) => {
    const token = req.cookies[SESSION_COOKIE];
    if (token) {
      hooks.checkOrigin(req);
      await logout(withRequestLog(deps, req), token);
    }
    hooks.clearSessionCookie(reply);
    return reply.code(204).send();
  });

  app.get(
    '/api/auth/session',
    {
      onRequest: hooks.requireSession,
      schema: {
        tags: ['sessions'],
        summary: 'The signed-in user',
        response: {
          200: Type.Object({
            user: SessionUser,
            expiresAt: NullableString({ format: 'date-time', description: 'when the session ends; with an API token, its expiry (null: none)' }),
            maxUploadBytes: Type.Integer({ description: 'MAX_UPLOAD_BYTES: larger files are refused (413), so clients can refuse them before sending' }),
          }),
          401: errorRef,
        },
      },
    },
    async (req) => ({ user: presentSessionUser(req.user!), expiresAt: req.sessionExpiresAt, maxUploadBytes: deps.config.maxUploadBytes }),
  );
}
