import { Type } from '@fastify/type-provider-typebox';
import { changePassword, getAccount, requestPasswordReset, resetPassword, updateAccount } from '../../actions/account.js';
import { presentAccount, presentSessionUser } from '../../presenters/index.js';
import { actorOf } from '../session.js';
import { Account, AccountChange, SessionUser, errorRef } from '../schemas.js';
import { type App, type RouteContext, documentationOnly, withRequestLog } from './context.js';

/** My account, and the forgotten password (interface.md, additions of 2026-11-23). Every role. */
export async function accountRoutes(app: App, { deps, hooks }: RouteContext) {
  app.get(
    '/api/account',
    { onRequest: hooks.requireSession, schema: { tags: ['account'], summary: 'My account: profile and email preferences', response: { 200: Account, 401: errorRef } } },
    async (req) => presentAccount(await getAccount(deps, actorOf(req))),
  );

  app.patch(
    '/api/account',
    {
      onRequest: hooks.requireSession,
      schema: {
        tags: ['account'],
        summary: 'Change my name, phone or email preferences',
        description: 'Each email category (approvals, pi, progress, documents, dueDigest) is on (true) or off (false); the ones not named stay as they are.',
        body: AccountChange,
        response: { 200: Account, 400: errorRef, 401: errorRef },
      },
    },
    async (req) => presentAccount(await updateAccount(deps, actorOf(req), req.body)),
  );

  app.post(
    '/api/account/password',
    {
      onRequest: hooks.requireSession,
      schema: {
        tags: ['account'],
        summary: 'Change my password (the current one required); my other sessions end',
        body: Type.Object({ currentPassword: Type.String(), newPassword: Type.String({ description: 'at least 8 characters' }) }),
        response: { 204: Type.Unknown({ description: 'no body' }), 400: errorRef, 401: errorRef, 429: errorRef },
        description:
          'Answers 204 with no body; 400 for a wrong current password or a new one under 8 characters; 429 (Retry-After) once wrong current passwords reached the limit for the user or the client address (LOGIN_MAX_FAILURES_PER_EMAIL, _PER_ADDRESS, within LOGIN_WINDOW_MINUTES).',
      },
      validatorCompiler: documentationOnly,
    },
    async (req, reply) => {
      await changePassword(withRequestLog(deps, req), actorOf(req), req.sessionToken ?? '', req.body, req.ip);
      return reply.code(204).send();
    },
  );

  app.post(
    '/api/auth/forgot-password',
    {
      schema: {
        tags: ['sessions'],
        summary: 'Email a single-use link to set a new password',
        description: 'Always 202 {} for a well-formed request, whether or not the email belongs to an active user; throttled per email and per client address like logins (429).',
        body: Type.Object({ email: Type.String() }),
        response: { 202: Type.Object({}), 400: errorRef, 429: errorRef },
      },
      validatorCompiler: documentationOnly,
    },
    async (req, reply) => {
      hooks.checkOrigin(req);
      await requestPasswordReset(withRequestLog(deps, req), req.body, req.ip);
      return reply.code(202).send({});
    },
  );

  app.post(
    '/api/auth/reset-password',
    {
      schema: {
        tags: ['sessions'],
        summary: "Set a new password with the emailed link's token; ends every session of the user and signs this browser in",
        description: 'Unknown, used and expired tokens count as failures per client address like logins: 429 (Retry-After) past LOGIN_MAX_FAILURES_PER_ADDRESS within LOGIN_WINDOW_MINUTES.',
        body: Type.Object({ token: Type.String(), password: Type.String({ description: 'at least 8 characters' }) }),
        response: { 200: Type.Object({ user: SessionUser }), 400: errorRef, 429: errorRef },
      },
      validatorCompiler: documentationOnly,
    },
    async (req, reply) => {
      hooks.checkOrigin(req);
      const result = await resetPassword(withRequestLog(deps, req), req.body, req.ip);
      hooks.setSessionCookie(reply, result.token, result.expiresAt);
      return { user: presentSessionUser(result.user) };
    },
  );
}
