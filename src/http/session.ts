import type {} from '@fastify/cookie';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { type TokenSession, authenticateToken } from '../actions/api-tokens.js';
import { resolveSession } from '../actions/auth.js';
import type { Deps } from '../deps.js';
import { scopeAllows } from '../domain/api-tokens.js';
import type { User } from '../domain/model.js';
import { errors } from '../errors.js';
import { sessionCacheFor } from './session-cache.js';

export const SESSION_COOKIE = 'session';

declare module 'fastify' {
  interface FastifyRequest {
    /** The signed-in user, set by the authenticate hooks below. */
    user: User | null;
    /** The session cookie's token (null for a Bearer request). */
    sessionToken: string | null;
    /** When the session or the token ends (null: a token without expiry). */
    sessionExpiresAt: string | null;
    /** Set when the request authenticated with `Authorization: Bearer <API token>`. */
    apiToken: TokenSession | null;
  }
}

/** At most this many sessions' resolutions kept per instance (a few MB at worst). */
const SESSION_CACHE_ENTRIES = 10_000;

const UNSAFE = new Set(['POST', 'PATCH', 'PUT', 'DELETE']);

/** Session hooks for routes: `requireSession` (any signed-in user) and `requireAdmin` (team endpoints: others get 401). */
export function sessionHooks(app: FastifyInstance, deps: Deps) {
  const secure = deps.config.publicUrl.startsWith('https:');

  app.decorateRequest('user', null);
  app.decorateRequest('sessionToken', null);
  app.decorateRequest('sessionExpiresAt', null);
  app.decorateRequest('apiToken', null);

  const sessions = sessionCacheFor(deps.realtime, { ttlMs: deps.config.sessionCacheMs, maxEntries: SESSION_CACHE_ENTRIES });
  if (sessions) app.addHook('onClose', async () => sessions.close());

  const cookieOptions = { httpOnly: true, sameSite: 'lax' as const, path: '/', secure };

  const setSessionCookie = (reply: FastifyReply, token: string, expiresAt: string) =>
    reply.setCookie(SESSION_COOKIE, token, { ...cookieOptions, expires: new Date(expiresAt) });
  const clearSessionCookie = (reply: FastifyReply) => reply.clearCookie(SESSION_COOKIE, cookieOptions);

  /**
   * Refuses a cross-site write (the SameSite cookie's second line of defence): its Origin is not
   * the origin the request was made to, or the browser says it is cross-site. The request's own
   * origin, not PUBLIC_URL, so that a page opened at 127.0.0.1 and one at localhost both work.
   */
  const checkOrigin = (req: FastifyRequest) => {
    if (!UNSAFE.has(req.method)) return;
    if (req.headers['sec-fetch-site'] === 'cross-site') throw errors.crossOrigin();
    const origin = req.headers.origin;
    if (origin && origin !== requestOrigin(req)) throw errors.crossOrigin();
  };

  /**
   * Who is asking, in the specification's order: no session, then the role (team endpoints), then
   * the origin of a write. A Bearer API token stands where the cookie would (it wins when both come):
   * no token or a bad one is the same 401, then the role, then a read token's 403 on anything but
   * GET/HEAD, before any check of the route itself; no origin check (a browser never sends the header by itself).
   */
  async function authenticate(req: FastifyRequest, reply: FastifyReply, role?: 'ADMIN'): Promise<void> {
    const bearer = bearerOf(req);
    if (bearer !== null) {
      const session = await authenticateToken(deps, bearer, req.ip);
      if (role && session.user.role !== role) throw errors.unauthorized();
      if (!scopeAllows(session.scope, req.method)) throw errors.readOnlyToken();
      req.user = session.user;
      req.apiToken = session;
      req.sessionExpiresAt = session.expiresAt;
      return;
    }
    const token = req.cookies[SESSION_COOKIE];
    if (!token) throw errors.unauthorized();
    const session = await resolveSession(deps, token, sessions?.cache);
    if (!session) throw errors.unauthorized();
    if (role && session.user.role !== role) throw errors.unauthorized();
    checkOrigin(req);
    req.user = session.user;
    req.sessionToken = token;
    req.sessionExpiresAt = session.expiresAt;
    if (session.renewed) setSessionCookie(reply, token, session.expiresAt);
  }

  return {
    setSessionCookie,
    clearSessionCookie,
    checkOrigin,
    requireSession: (req: FastifyRequest, reply: FastifyReply) => authenticate(req, reply),
    /** Team endpoints: a missing session and a non-ADMIN role both get 401 (specification 5). */
    requireAdmin: (req: FastifyRequest, reply: FastifyReply) => authenticate(req, reply, 'ADMIN'),
  };
}

/** The token of an `Authorization: Bearer <token>` header, or null (no header, or another scheme: the cookie decides). */
export function bearerOf(req: FastifyRequest): string | null {
  const match = /^Bearer(?:[ \t]+(.*))?$/i.exec(req.headers.authorization ?? '');
  return match ? (match[1] ?? '').trim() : null;
}

/**
 * The origin a request was made to: its scheme and Host. Fastify reads X-Forwarded-Proto and
 * X-Forwarded-Host only when TRUST_PROXY trusts the peer, so a direct client cannot pretend.
 */
export function requestOrigin(req: FastifyRequest): string | null {
  try {
    return new URL(`${req.protocol}://${req.host}`).origin;
  } catch {
    return null;
  }
}

export type SessionHooks = ReturnType<typeof sessionHooks>;

/** The signed-in user of a route behind requireSession. */
export function actorOf(req: FastifyRequest): User {
  if (!req.user) throw errors.unauthorized();
  return req.user;
}
