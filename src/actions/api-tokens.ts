import { randomBytes } from 'node:crypto';
import type { Deps } from '../deps.js';
import {
  type ApiToken,
  TOKEN_PREFIX,
  TOKEN_RANDOM_LENGTH,
  type TokenScope,
  base62Of,
  expiryOf,
  lastUseDue,
  looksLikeToken,
  newTokenRefusal,
  tokenRefusal,
} from '../domain/api-tokens.js';
import type { User } from '../domain/model.js';
import { errors } from '../errors.js';
import { newId } from '../ids.js';
import { endSessions } from '../realtime/index.js';
import { hashToken } from './auth.js';
import { nowMs as currentMs } from '../clock.js';

/** A new token's random text: `pos_` and 40 base62 characters from the system's CSPRNG. */
export function generateToken(): string {
  let random = '';
  while (random.length < TOKEN_RANDOM_LENGTH) random += base62Of(randomBytes(64), TOKEN_RANDOM_LENGTH - random.length);
  return TOKEN_PREFIX + random;
}

/** POST /api/account/tokens (and the CLI's create-token): the token is returned once; only its hash is stored. */
export async function createApiToken(
  deps: Pick<Deps, 'store' | 'clock'>,
  owner: User,
  body: { name: string; scope: string; expiresInDays?: number | null },
): Promise<{ token: ApiToken; secret: string }> {
  const refusal = newTokenRefusal(body);
  if (refusal) throw refusal;
  const nowMs = deps.clock.now().getTime();
  const secret = generateToken();
  const token: ApiToken = {
    id: newId(),
    userId: owner.id,
    name: body.name.trim(),
    scope: body.scope as TokenScope,
    createdAt: new Date(nowMs).toISOString(),
    expiresAt: expiryOf(nowMs, body.expiresInDays ?? null),
    lastUsedAt: null,
  };
  await deps.store.apiTokens.insert(token, hashToken(secret));
  return { token, secret };
}

/** DELETE /api/account/tokens/:id (only one's own: another's is 404) and DELETE /api/tokens/:id (ADMIN, anyone's). Streams opened with it end at once, on every instance. */
export async function revokeApiToken(deps: Pick<Deps, 'store' | 'realtime' | 'log' | 'clock'>, id: string, ownerId?: string): Promise<void> {
  const tokenHash = await deps.store.apiTokens.revoke(id, deps.clock.now().toISOString(), ownerId);
  if (!tokenHash) throw errors.tokenNotFound();
  lastWritten.delete(id);
  await endSessions(deps.realtime, { tokenHash, reason: 'signed-out' }).catch((err: unknown) => deps.log.warn({ err }, 'the revocation of the token was not announced to its streams'));
}

/** The user behind a Bearer token, and what the token allows. */
export interface TokenSession {
  user: User;
  tokenId: string;
  tokenHash: string;
  scope: TokenScope;
  expiresAt: string | null;
}

/** When this instance last wrote each token's last use (ms): the write happens at most once a minute, never per request. */
const lastWritten = new Map<string, number>();

/**
 * Authenticates a Bearer request. The user's role and active flag are read with the token, fresh
 * every request. Unknown tokens count as failures per client address like wrong passwords
 * (LOGIN_MAX_FAILURES_PER_ADDRESS within LOGIN_WINDOW_MINUTES): past the limit every Bearer request
 * from that address gets 429 until the window ends. A right token takes no place in any queue, so
 * simultaneous ones are never refused. Revoked, expired and deactivated tokens are 401 and count
 * not: they are real tokens, not guesses.
 */
export async function authenticateToken(deps: Pick<Deps, 'store' | 'config' | 'clock' | 'log'>, secret: string, address: string): Promise<TokenSession> {
  const key = `token-address:${address}`;
  const max = deps.config.login.maxFailuresPerAddress;
  const windowMs = deps.config.login.windowMinutes * 60_000;
  const tokenHash = hashToken(secret);
  const nowMs = currentMs();
  const [found, state] = await Promise.all([
    looksLikeToken(secret) ? deps.store.apiTokens.findByHash(tokenHash) : undefined,
    deps.store.loginFailures.state(key, { windowStart: new Date(nowMs - windowMs).toISOString(), staleBefore: nowMs }),
  ]);
  const retryAfter = (windowStartedAt: string) => Math.max(1, Math.ceil((Date.parse(windowStartedAt) + windowMs - currentMs()) / 1000));
  if (state.failures >= max) throw errors.tooManyTokenAttempts(retryAfter(state.windowStartedAt));
  if (!found) {
    const [counted] = await deps.store.loginFailures.count([key], new Date(nowMs).toISOString(), new Date(nowMs - windowMs).toISOString());
    if (counted && counted.failures > max) throw errors.tooManyTokenAttempts(retryAfter(counted.windowStartedAt));
    throw errors.unauthorized();
  }
  const clockMs = deps.clock.now().getTime();
  if (tokenRefusal({ expiresAt: found.expiresAt, revokedAt: found.revokedAt, userActive: found.user.active }, clockMs)) throw errors.unauthorized();
  recordUse(deps, found.id, found.lastUsedAt, clockMs);
  return { user: found.user, tokenId: found.id, tokenHash, scope: found.scope, expiresAt: found.expiresAt };
}

/** Writes the token's last use when this instance has not written it, nor has the row shown it, within the last minute; in the background (a failure is logged). */
function recordUse(deps: Pick<Deps, 'store' | 'log'>, id: string, storedLastUse: string | null, nowMs: number): void {
  const last = Math.max(lastWritten.get(id) ?? -Infinity, storedLastUse ? Date.parse(storedLastUse) : -Infinity);
  if (!lastUseDue(Number.isFinite(last) ? last : null, nowMs)) return;
  lastWritten.set(id, nowMs);
  // Entries older than the interval say nothing the row does not: keep the map small.
  if (lastWritten.size > 10_000) for (const [k, at] of lastWritten) if (nowMs - at >= 60_000) lastWritten.delete(k);
  deps.store.apiTokens.touch(id, new Date(nowMs).toISOString()).catch((err: unknown) => deps.log.warn({ err }, "a token's last use was not recorded"));
}
