import { randomBytes, timingSafeEqual } from 'node:crypto';
import type { Deps } from '../deps.js';
import { nowIso } from '../deps.js';
import { isUniqueViolation } from '../db/index.js';
import { base62Of } from '../domain/api-tokens.js';
import { emailRefusal, passwordRefusal, textRefusal } from '../domain/limits.js';
import type { User } from '../domain/model.js';
import { errors } from '../errors.js';
import { newId } from '../ids.js';
import { hashPassword } from '../passwords.js';
import { type LoginResult, fieldsOf, hashToken, startSession } from './auth.js';
import { throttledCheck } from './attempts.js';

/** The setup token's length: 43 base62 characters from the system's CSPRNG (≈ 256 bits; the interface asks at least 32). */
export const SETUP_TOKEN_LENGTH = 43;

/**
 * The first run (interface.md, "First run"): a new install with no active ADMIN and no
 * ADMIN_EMAIL gets a one-time setup link in its log. The token lives in this process's memory
 * only, and of it only its hash: a new one at every start until an admin exists, spent by the one
 * setup that uses it. Several instances each log their own link; any of them works on the
 * instance that logged it.
 */
export class FirstRun {
  #hash: Buffer | null;
  /** A setup with the token under way: a second one at the same time is refused, not run twice. */
  #busy = false;

  private constructor(token: string | null) {
    this.#hash = token === null ? null : Buffer.from(hashToken(token));
  }

  /** No link: an admin existed at start, or ADMIN_EMAIL made one. */
  static none(): FirstRun {
    return new FirstRun(null);
  }

  /**
   * At start-up, once the database is migrated (and ADMIN_EMAIL's admin made): a token when no
   * active ADMIN exists and ADMIN_EMAIL is unset, with the link to log; else none.
   */
  static async atStart(deps: Pick<Deps, 'store' | 'config'>): Promise<{ firstRun: FirstRun; link: string | null }> {
    if (deps.config.admin || (await deps.store.users.countActiveAdmins()) > 0) return { firstRun: FirstRun.none(), link: null };
    let token = '';
    while (token.length < SETUP_TOKEN_LENGTH) token += base62Of(randomBytes(64), SETUP_TOKEN_LENGTH - token.length);
    return { firstRun: new FirstRun(token), link: `${deps.config.publicUrl}/setup#${token}` };
  }

  /** Whether `token` is this process's unspent token (compared by hash, in constant time). */
  matches(token: string): boolean {
    if (this.#hash === null || !token) return false;
    const given = Buffer.from(hashToken(token));
    return given.length === this.#hash.length && timingSafeEqual(given, this.#hash);
  }

  /** Taken by one setup at a time: false while another is under way. */
  claim(): boolean {
    if (this.#busy) return false;
    this.#busy = true;
    return true;
  }

  /** The setup ended: spent when it made the admin, else the token stays good. */
  finish(spent: boolean): void {
    this.#busy = false;
    if (spent) this.#hash = null;
  }
}

/** GET /api/setup: whether the install still waits for its first admin. */
export async function setupNeeded(deps: Pick<Deps, 'store'>): Promise<boolean> {
  return (await deps.store.users.countActiveAdmins()) === 0;
}

/**
 * POST /api/setup {token, name, email, password}. The first refusal that applies: an active
 * ADMIN exists 409 (whatever the token); a wrong token 403, counted as a failed sign-in of the
 * client address (LOGIN_MAX_FAILURES_PER_ADDRESS in LOGIN_WINDOW_MINUTES, then 429 with
 * Retry-After); a bad name, email or password 400 (the token stays good). Then the ADMIN is made
 * and signed in, and the token is spent. The origin check comes before, in the route.
 */
export async function runSetup(deps: Pick<Deps, 'store' | 'config' | 'log'>, firstRun: FirstRun, body: unknown, address: string): Promise<LoginResult> {
  if (!(await setupNeeded(deps))) throw errors.setupDone();
  const b = fieldsOf(body);
  const token = typeof b.token === 'string' ? b.token : '';
  await throttledCheck(deps, [{ key: `address:${address}`, max: deps.config.login.maxFailuresPerAddress }], errors.tooManyLogins, async () =>
    firstRun.matches(token) ? { ok: true, value: true } : { ok: false, error: errors.invalidSetupToken() },
  );
  const name = typeof b.name === 'string' ? b.name.trim() : '';
  const email = typeof b.email === 'string' ? b.email.trim() : '';
  const password = typeof b.password === 'string' ? b.password : '';
  const refusal = textRefusal('name', name, true) ?? textRefusal('email', email, true) ?? emailRefusal(email) ?? passwordRefusal(password);
  if (refusal) throw refusal;
  if (!firstRun.claim()) throw errors.setupDone();
  let user: User | undefined;
  try {
    const passwordHash = await hashPassword(password);
    user = await deps.store.transaction(async (store) => {
      // Another instance's link may have been used meanwhile: the admin count again, locked.
      if ((await store.users.countActiveAdmins({ forUpdate: true })) > 0) throw errors.setupDone();
      if (await store.users.emailTaken(email)) throw errors.emailExists();
      return store.users.insert(newId(), { name, email, passwordHash, role: 'ADMIN', phone: null, location: null, branch: null }, nowIso());
    });
  } catch (err) {
    throw isUniqueViolation(err) ? errors.emailExists() : err;
  } finally {
    firstRun.finish(user !== undefined);
  }
  deps.log.info({ userId: user.id }, 'The first admin was created through the setup link');
  return startSession(deps, user);
}
