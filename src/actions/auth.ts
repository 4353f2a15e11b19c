import { createHash, randomBytes } from 'node:crypto';
import type { Deps } from '../deps.js';
import { nowIso } from '../deps.js';
import type { User } from '../domain/model.js';
import { errors } from '../errors.js';
import type { SessionCache } from '../http/session-cache.js';
import { timingDecoyHash, verifyPassword } from '../passwords.js';
import { endSessions } from '../realtime/index.js';
import { throttledCheck } from './attempts.js';
import { nowMs } from '../clock.js';

/** Only this hash of a session token is ever stored. */
export const hashToken = (token: string): string => createHash('sha256').update(token).digest('base64url');

const HOUR = 3_600_000;

export interface LoginResult {
  user: User;
  token: string;
  expiresAt: string;
}

/** A JSON body's fields as the hand-checked actions read them: anything but an object has none. */
export const fieldsOf = (body: unknown): Record<string, unknown> => (body && typeof body === 'object' ? body : {}) as Record<string, unknown>;

/**
 * Counts one request against an email's and an address's keys, in one atomic statement each, so N
 * simultaneous requests each see their own count. Past either limit (LOGIN_MAX_FAILURES_PER_*) the
 * request is taken back (a refused one does not count) and refused with the seconds until the
 * window ends. For requests that count whatever their outcome (password-reset emails); checks of
 * a secret count only their failures (actions/attempts.ts).
 */
export async function countAttempt(
  deps: Pick<Deps, 'store' | 'config'>,
  keys: { email: string; address: string },
  refuse: (retryAfterSeconds: number) => Error,
): Promise<void> {
  const { maxFailuresPerEmail, maxFailuresPerAddress, windowMinutes } = deps.config.login;
  const windowMs = windowMinutes * 60_000;
  const now = nowMs();
  const counted = await deps.store.loginFailures.count([keys.email, keys.address], new Date(now).toISOString(), new Date(now - windowMs).toISOString());
  const blocked = counted.filter((c) => c.failures > (c.key === keys.email ? maxFailuresPerEmail : maxFailuresPerAddress));
  if (!blocked.length) return;
  for (const key of [keys.email, keys.address]) await deps.store.loginFailures.uncount(key);
  const until = Math.max(...blocked.map((c) => Date.parse(c.windowStartedAt) + windowMs));
  throw refuse(Math.max(1, Math.ceil((until - now) / 1000)));
}

/**
 * POST /api/auth/login. Unknown email, wrong password and inactive user get the same answer after
 * the same bcrypt work. Failures are counted per email and per client address in the database
 * (shared by every instance); once either reached its limit (LOGIN_MAX_FAILURES_PER_*) within the
 * window, the answer is 429 until the window ends, the right password included. Attempts at once
 * are queued, not refused: no more are checked at once than failures are left (actions/attempts.ts).
 */
export async function login(deps: Pick<Deps, 'store' | 'config'>, body: unknown, address: string): Promise<LoginResult> {
  const b = fieldsOf(body);
  const email = typeof b.email === 'string' ? b.email.trim() : '';
  const password = typeof b.password === 'string' ? b.password : '';
  if (!email || !password) throw errors.loginFieldsRequired();

  const { maxFailuresPerEmail, maxFailuresPerAddress } = deps.config.login;
  const emailKey = `email:${email.toLowerCase()}`;
  const keys = [
    { key: emailKey, max: maxFailuresPerEmail },
    { key: `address:${address}`, max: maxFailuresPerAddress },
  ];
  const user = await throttledCheck(
    deps,
    keys,
    errors.tooManyLogins,
    async () => {
      const found = await deps.store.users.findByEmailWithHash(email);
      const matches = await verifyPassword(password, found?.passwordHash ?? (await timingDecoyHash()));
      return found && matches && found.user.active ? { ok: true, value: found.user } : { ok: false, error: errors.invalidCredentials() };
    },
    { clearOnSuccess: [emailKey] },
  );
  return startSession(deps, user);
}

/** A new session for the user: a random token for the cookie, only its hash stored. */
export async function startSession(deps: Pick<Deps, 'store' | 'config'>, user: User): Promise<LoginResult> {
  const token = randomBytes(32).toString('base64url');
  const expiresAt = new Date(nowMs() + deps.config.sessionTtlHours * HOUR).toISOString();
  await deps.store.sessions.create(hashToken(token), user.id, nowIso(), expiresAt);
  return { user, token, expiresAt };
}

export interface ActiveSession {
  user: User;
  expiresAt: string;
  /** Set when the sliding expiry moved, so the cookie is sent again. */
  renewed: boolean;
}

/** The live session behind a token, or null. Sliding: renewed at most once an hour. `cache`: a burst's reads spared (http/session-cache.ts). */
export async function resolveSession(deps: Pick<Deps, 'store' | 'config'>, token: string, cache?: SessionCache | null): Promise<ActiveSession | null> {
  const tokenHash = hashToken(token);
  const now = nowMs();
  let found = cache?.get(tokenHash);
  if (!found) {
    const epoch = cache ? cache.epoch() : null;
    found = await deps.store.sessions.find(tokenHash, new Date(now).toISOString());
    if (!found || !found.user.active) return null;
    cache?.set(tokenHash, found, now, epoch);
  }
  const ttlMs = deps.config.sessionTtlHours * HOUR;
  if (Date.parse(found.expiresAt) - now < ttlMs - HOUR) {
    const expiresAt = new Date(now + ttlMs).toISOString();
    await deps.store.sessions.extend(tokenHash, expiresAt);
    cache?.renewed(tokenHash, expiresAt);
    return { user: found.user, expiresAt, renewed: true };
  }
  return { user: found.user, expiresAt: found.expiresAt, renewed: false };
}

/** Ends the session, and its open streams on every instance (a failed signal is logged: the streams' sweep ends them later). */
export async function logout(deps: Pick<Deps, 'store' | 'realtime' | 'log'>, token: string): Promise<void> {
  const tokenHash = hashToken(token);
  await deps.store.sessions.delete(tokenHash);
  await endSessions(deps.realtime, { tokenHash, reason: 'signed-out' }).catch((err: unknown) => deps.log.warn({ err }, 'the end of the session was not announced to its streams'));
}
