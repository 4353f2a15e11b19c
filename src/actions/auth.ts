import { createHash, randomBytes } from 'node:crypto';
import type { Deps } from '../deps.js';
import { nowIso } from '../deps.js';
import type { User } from '../domain/model.js';
import { errors } from '../errors.js';
import { timingDecoyHash, verifyPassword } from '../passwords.js';
import { endSessions } from '../realtime/index.js';

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
 * Counts one attempt against an email's and an address's keys, in one atomic statement each, so N
 * simultaneous attempts each see their own count. Past either limit (LOGIN_MAX_FAILURES_PER_*) the
 * attempt is taken back (a refused attempt is not a failure) and refused with the seconds until
 * the window ends. Logins and password-reset requests share it, with keys of their own.
 */
export async function countAttempt(
  deps: Pick<Deps, 'store' | 'config'>,
  keys: { email: string; address: string },
  refuse: (retryAfterSeconds: number) => Error,
): Promise<void> {
  const { maxFailuresPerEmail, maxFailuresPerAddress, windowMinutes } = deps.config.login;
  const windowMs = windowMinutes * 60_000;
  const now = Date.now();
  const counted = await deps.store.loginFailures.count([keys.email, keys.address], new Date(now).toISOString(), new Date(now - windowMs).toISOString());
  const blocked = counted.filter((c) => c.failures > (c.key === keys.email ? maxFailuresPerEmail : maxFailuresPerAddress));
  if (!blocked.length) return;
  for (const key of [keys.email, keys.address]) await deps.store.loginFailures.uncount(key);
  const until = Math.max(...blocked.map((c) => Date.parse(c.windowStartedAt) + windowMs));
  throw refuse(Math.max(1, Math.ceil((until - now) / 1000)));
}

/**
 * POST /api/auth/login. Unknown email, wrong password and inactive user get the same answer after
 * the same bcrypt work. Attempts are counted per email and per client address in the database
 * (shared by every instance) before the password is checked, and taken back when it was right;
 * past the limit the answer is 429 until the window ends.
 */
export async function login(deps: Pick<Deps, 'store' | 'config'>, body: unknown, address: string): Promise<LoginResult> {
  const b = fieldsOf(body);
  const email = typeof b.email === 'string' ? b.email.trim() : '';
  const password = typeof b.password === 'string' ? b.password : '';
  if (!email || !password) throw errors.loginFieldsRequired();

  const emailKey = `email:${email.toLowerCase()}`;
  const addressKey = `address:${address}`;
  // Counted before the password is checked: no more than the limit's worth are ever checked; the rest are 429 without bcrypt work.
  await countAttempt(deps, { email: emailKey, address: addressKey }, errors.tooManyLogins);

  const found = await deps.store.users.findByEmailWithHash(email);
  const matches = await verifyPassword(password, found?.passwordHash ?? (await timingDecoyHash()));
  if (!found || !matches || !found.user.active) throw errors.invalidCredentials();
  await deps.store.loginFailures.clear(emailKey);
  await deps.store.loginFailures.uncount(addressKey);

  return startSession(deps, found.user);
}

/** A new session for the user: a random token for the cookie, only its hash stored. */
export async function startSession(deps: Pick<Deps, 'store' | 'config'>, user: User): Promise<LoginResult> {
  const token = randomBytes(32).toString('base64url');
  const expiresAt = new Date(Date.now() + deps.config.sessionTtlHours * HOUR).toISOString();
  await deps.store.sessions.create(hashToken(token), user.id, nowIso(), expiresAt);
  return { user, token, expiresAt };
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

/** Ends the session, and its open streams on every instance (a failed signal is logged: the streams' sweep ends them later). */
export async function logout(deps: Pick<Deps, 'store' | 'realtime'>, token: string, log: (err: unknown) => void): Promise<void> {
  const tokenHash = hashToken(token);
  await deps.store.sessions.delete(tokenHash);
  await endSessions(deps.realtime, { tokenHash, reason: 'signed-out' }).catch(log);
}
