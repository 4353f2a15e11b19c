import { randomBytes } from 'node:crypto';
import type { Deps } from '../deps.js';
import { nowIso } from '../deps.js';
import type { User } from '../domain/model.js';
import { errors } from '../errors.js';
import { EMAIL_CATEGORIES, type EmailCategory } from '../mail/rules.js';
import { passwordResetEmail } from '../mail/templates.js';
import { sendWithin } from '../mail/dispatcher.js';
import { hashPassword, verifyPassword } from '../passwords.js';
import { endSessions, userUpdatedHere } from '../realtime/index.js';
import { throttledCheck } from './attempts.js';
import { countAttempt, fieldsOf, hashToken, startSession, type LoginResult } from './auth.js';
import { passwordRefusal, textRefusal } from '../domain/limits.js';
import { nowMs } from '../clock.js';

/** Each category on (true) or switched off (false). */
export type EmailPreferences = Record<EmailCategory, boolean>;

export interface Account {
  user: User;
  emailPreferences: EmailPreferences;
}

const preferencesOf = (optouts: EmailCategory[]): EmailPreferences =>
  Object.fromEntries(EMAIL_CATEGORIES.map((c) => [c, !optouts.includes(c)])) as EmailPreferences;

/** GET /api/account: the signed-in user and the email categories they receive. */
export async function getAccount(deps: Pick<Deps, 'store'>, user: User): Promise<Account> {
  return { user, emailPreferences: preferencesOf(await deps.store.emailOptouts.list(user.id)) };
}

export interface AccountChange {
  name?: string;
  phone?: string | null;
  emailPreferences?: Partial<EmailPreferences>;
}

/** PATCH /api/account: one's own name, phone and email preferences (role, email, active stay with the admins). */
export async function updateAccount(deps: Pick<Deps, 'store' | 'realtime'>, user: User, change: AccountChange): Promise<Account> {
  const refusal = (change.name !== undefined && textRefusal('name', change.name, true)) || (change.phone != null && textRefusal('phone', change.phone));
  if (refusal) throw refusal;
  const name = change.name?.trim();
  const phone = change.phone === undefined ? undefined : change.phone?.trim() || null;
  const account = await deps.store.transaction(async (store) => {
    const updated = name !== undefined || phone !== undefined ? await store.users.update(user.id, { name, phone }, nowIso()) : user;
    if (change.emailPreferences) await store.emailOptouts.set(user.id, change.emailPreferences);
    return { user: updated ?? user, emailPreferences: preferencesOf(await store.emailOptouts.list(user.id)) };
  });
  // This instance's session cache shows the new name at once; the others' within SESSION_CACHE_MS (http/session-cache.ts).
  if (account.user !== user) userUpdatedHere(deps.realtime, account.user);
  return account;
}

/** A session signal that could not be published: logged; the streams' sweep ends them later. */
const notAnnounced = (deps: Pick<Deps, 'log'>) => (err: unknown) => deps.log.warn({ err }, 'the end of the sessions was not announced to their streams');

/**
 * POST /api/account/password: the current password proves it is the person, not just their open
 * browser. Wrong current passwords are throttled like logins, per user and per client address,
 * counting failures only (actions/attempts.ts). Every other session of the user ends (deleted, and
 * their open streams told); this one stays.
 */
export async function changePassword(
  deps: Pick<Deps, 'store' | 'realtime' | 'config' | 'log'>,
  user: User,
  sessionToken: string,
  body: unknown,
  address: string,
): Promise<void> {
  const b = fieldsOf(body);
  const current = typeof b.currentPassword === 'string' ? b.currentPassword : '';
  const next = typeof b.newPassword === 'string' ? b.newPassword : '';
  if (!current || !next) throw errors.passwordChangeFieldsRequired();
  const refusal = passwordRefusal(next);
  if (refusal) throw refusal;
  const { maxFailuresPerEmail, maxFailuresPerAddress } = deps.config.login;
  const userKey = `password-user:${user.id}`;
  await throttledCheck(
    deps,
    [
      { key: userKey, max: maxFailuresPerEmail },
      { key: `password-address:${address}`, max: maxFailuresPerAddress },
    ],
    errors.tooManyPasswordAttempts,
    async () => {
      const found = await deps.store.users.findByEmailWithHash(user.email);
      return found && (await verifyPassword(current, found.passwordHash)) ? { ok: true, value: undefined } : { ok: false, error: errors.wrongCurrentPassword() };
    },
    { clearOnSuccess: [userKey] },
  );
  const passwordHash = await hashPassword(next);
  const keep = hashToken(sessionToken);
  await deps.store.transaction(async (store) => {
    await store.users.update(user.id, { passwordHash }, nowIso());
    await store.sessions.deleteOthersOfUser(user.id, keep);
  });
  await endSessions(deps.realtime, { userId: user.id, exceptTokenHash: keep, reason: 'password-changed' }).catch(notAnnounced(deps));
}

/**
 * POST /api/auth/forgot-password: throttled per email and per client address like logins (each
 * request counts); then, for an active user, a single-use link valid for PASSWORD_RESET_MINUTES,
 * stored only as its token's hash. The answer is the same whether or not the email belongs to
 * anyone; the email is sent after the answer, so its timing tells nothing either.
 */
export async function requestPasswordReset(deps: Pick<Deps, 'store' | 'config' | 'mail' | 'log'>, body: unknown, address: string): Promise<void> {
  const b = fieldsOf(body);
  const email = typeof b.email === 'string' ? b.email.trim() : '';
  if (!email) throw errors.emailRequired();

  // Every request counts (whether the email exists must not show), with keys of its own, as logins do.
  await countAttempt(deps, { email: `reset-email:${email.toLowerCase()}`, address: `reset-address:${address}` }, errors.tooManyResetRequests);
  const now = nowMs();

  const found = await deps.store.users.findByEmailWithHash(email);
  if (!found?.user.active) return;
  const token = randomBytes(32).toString('base64url');
  const { mail: mailConfig, publicUrl } = deps.config;
  await deps.store.passwordResets.create(hashToken(token), found.user.id, nowIso(), new Date(now + mailConfig.resetLinkMinutes * 60_000).toISOString());
  const link = `${publicUrl}/reset-password?token=${encodeURIComponent(token)}`;
  const mail = passwordResetEmail({ name: found.user.name, address: found.user.email }, link, mailConfig.resetLinkMinutes, publicUrl);
  // Not through the outbox, which would have to keep the link: a lost email is asked for again.
  void sendWithin(deps.mail.transport, mail).then(
    (sent) => deps.log.info({ to: found.user.email, transport: deps.mail.transport.name, detail: sent.detail }, 'password reset email sent'),
    (err: unknown) => deps.log.error({ err, to: found.user.email }, 'password reset email not sent'),
  );
}

/**
 * POST /api/auth/reset-password: spends the token (once, before it expires), sets the password,
 * ends every session of the user (their open streams are told) and signs this browser in. The
 * token is looked up first, so only a valid one costs a password hash; unknown, used and expired
 * tokens are failures, throttled per client address like logins (actions/attempts.ts).
 */
export async function resetPassword(deps: Pick<Deps, 'store' | 'config' | 'realtime' | 'log'>, body: unknown, address: string): Promise<LoginResult> {
  const b = fieldsOf(body);
  const token = typeof b.token === 'string' ? b.token : '';
  const password = typeof b.password === 'string' ? b.password : '';
  if (!token || !password) throw errors.resetFieldsRequired();
  // A password refused does not spend the link: the person tries another.
  const refusal = passwordRefusal(password);
  if (refusal) throw refusal;
  const tokenHash = hashToken(token);
  await throttledCheck(deps, [{ key: `reset-token-address:${address}`, max: deps.config.login.maxFailuresPerAddress }], errors.tooManyResetAttempts, async () => {
    const userId = await deps.store.passwordResets.findUsable(tokenHash, nowIso());
    const user = userId ? await deps.store.users.findById(userId) : undefined;
    return user?.active ? { ok: true, value: undefined } : { ok: false, error: errors.resetLinkInvalid() };
  });
  const passwordHash = await hashPassword(password);
  const user = await deps.store.transaction(async (store) => {
    const now = nowIso();
    // Spent here, in one statement: of two uses at once (or one racing an expiry), one wins.
    const userId = await store.passwordResets.consume(tokenHash, now);
    const user = userId ? await store.users.findById(userId) : undefined;
    if (!user?.active) throw errors.resetLinkInvalid();
    await store.users.update(user.id, { passwordHash }, now);
    await store.passwordResets.spendAllForUser(user.id, now);
    await store.sessions.deleteForUser(user.id);
    return user;
  });
  await endSessions(deps.realtime, { userId: user.id, reason: 'password-changed' }).catch(notAnnounced(deps));
  return startSession(deps, user);
}
