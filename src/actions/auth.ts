import { createHash, randomBytes } from 'node:crypto';
import type { Deps } from '../deps.js';
import { nowIso } from '../deps.js';
import type { User } from '../domain/model.js';
import { errors } from '../errors.js';
import { timingDecoyHash, verifyPassword } from '../passwords.js';

/** Only this hash of a session token is ever stored. */
export const hashToken = (token: string): string => createHash('sha256').update(token).digest('base64url');

const HOUR = 3_600_000;

export interface LoginResult {
  user: User;
  token: string;
  expiresAt: string;
}

/**
 * POST /api/auth/login. Unknown email, wrong password and inactive user get the same answer after
 * the same bcrypt work. Failed attempts are counted per email and per client address in the
 * database (shared by every instance); past the limit the answer is 429 until the window ends.
 */
export async function login(deps: Pick<Deps, 'store' | 'config'>, body: unknown, address: string): Promise<LoginResult> {
  const b = (body && typeof body === 'object' ? body : {}) as Record<string, unknown>;
  const email = typeof b.email === 'string' ? b.email.trim() : '';
  const password = typeof b.password === 'string' ? b.password : '';
  if (!email || !password) throw errors.loginFieldsRequired();

  const { maxFailuresPerEmail, maxFailuresPerAddress, windowMinutes } = deps.config.login;
  const windowMs = windowMinutes * 60_000;
  const now = Date.now();
  const windowStart = new Date(now - windowMs).toISOString();
  const emailKey = `email:${email.toLowerCase()}`;
  const addressKey = `address:${address}`;

  const counts = await deps.store.loginFailures.counts([emailKey, addressKey], windowStart);
  const blocked = counts.filter(
    (c) => c.failures >= (c.key === emailKey ? maxFailuresPerEmail : maxFailuresPerAddress),
  );
  if (blocked.length) {
    const until = Math.max(...blocked.map((c) => Date.parse(c.windowStartedAt) + windowMs));
    throw errors.tooManyLogins(Math.max(1, Math.ceil((until - now) / 1000)));
  }

  const found = await deps.store.users.findByEmailWithHash(email);
  const matches = await verifyPassword(password, found?.passwordHash ?? (await timingDecoyHash()));
  if (!found || !matches || !found.user.active) {
    await deps.store.loginFailures.record([emailKey, addressKey], new Date(now).toISOString(), windowStart);
    throw errors.invalidCredentials();
  }
  // Only a count that exists needs clearing: most sign-ins follow no failure, and skip the write.
  if (counts.some((c) => c.key === emailKey)) await deps.store.loginFailures.clear(emailKey);

  const token = randomBytes(32).toString('base64url');
  const expiresAt = new Date(now + deps.config.sessionTtlHours * HOUR).toISOString();
  await deps.store.sessions.create(hashToken(token), found.user.id, nowIso(), expiresAt);
  return { user: found.user, token, expiresAt };
}

export interface ActiveSession {
  user: User;
  expiresAt: string;
  /** Set when the sliding expiry moved, so the cookie is sent again. */
  renewed: boolean;
}

/** The live session behind a token, or null. Sliding: renewed at most once an hour. */
export async function resolveSession(deps: Pick<Deps, 'store' | 'config'>, token: string): Promise<ActiveSession | null> {
  const tokenHash = hashToken(token);
  const now = Date.now();
  const found = await deps.store.sessions.find(tokenHash, new Date(now).toISOString());
  if (!found || !found.user.active) return null;
  const ttlMs = deps.config.sessionTtlHours * HOUR;
  if (Date.parse(found.expiresAt) - now < ttlMs - HOUR) {
    const expiresAt = new Date(now + ttlMs).toISOString();
    await deps.store.sessions.extend(tokenHash, expiresAt);
    return { user: found.user, expiresAt, renewed: true };
  }
  return { user: found.user, expiresAt: found.expiresAt, renewed: false };
}

export const logout = (deps: Pick<Deps, 'store'>, token: string): Promise<void> => deps.store.sessions.delete(hashToken(token));
