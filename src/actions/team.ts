import type { Deps } from '../deps.js';
import { nowIso } from '../deps.js';
import { isUniqueViolation } from '../db/index.js';
import type { UserChange } from '../db/users.js';
import { type Role, type User, ROLES, isOneOf } from '../domain/model.js';
import { passwordRefusal, textRefusal } from '../domain/limits.js';
import { errors } from '../errors.js';
import { newId } from '../ids.js';
import { hashPassword } from '../passwords.js';
import { endSessions, userChanged, userUpdatedHere } from '../realtime/index.js';

type Body = Record<string, unknown> | null | undefined;

const requiredText = (v: unknown): string | undefined => (typeof v === 'string' && v.trim() ? v.trim() : undefined);
const optionalText = (v: unknown): string | null => (typeof v === 'string' && v.trim() ? v.trim() : null);

/**
 * Specification 4.3: name, email and password required (non-empty strings); email unique,
 * case-insensitively, enforced by the database so that a race gives one 201 and one 409;
 * a role that is not ADMIN, POC or CLIENT becomes POC without an error.
 */
export async function createTeamMember(deps: Pick<Deps, 'store'>, body: Body): Promise<User> {
  const b = body && typeof body === 'object' && !Array.isArray(body) ? body : {};
  const name = requiredText(b.name);
  const email = requiredText(b.email);
  const password = typeof b.password === 'string' && b.password.trim() ? b.password : undefined;
  if (!name || !email || !password) throw errors.teamFieldsRequired();
  if (await deps.store.users.emailTaken(email)) throw errors.emailExists();
  const passwordHash = await hashPassword(password);
  const role: Role = isOneOf(ROLES, b.role) ? b.role : 'POC';
  try {
    return await deps.store.users.insert(
      newId(),
      { name, email, passwordHash, role, phone: optionalText(b.phone), location: optionalText(b.location), branch: optionalText(b.branch) },
      nowIso(),
    );
  } catch (err) {
    if (isUniqueViolation(err)) throw errors.emailExists();
    throw err;
  }
}

export interface TeamMemberChange {
  name?: string;
  email?: string;
  phone?: string | null;
  role?: Role;
  location?: string | null;
  branch?: string | null;
  active?: boolean;
  password?: string;
  /** The company the user belongs to (null: none); an unknown customer is a 400. */
  customerId?: string | null;
}

/**
 * PATCH /api/team/:id. Deactivating a user or changing their password ends their sessions; the
 * last active ADMIN can be neither demoted nor deactivated; a new email stays unique (409). Text
 * is bounded and a new password has at least 8 characters (domain/limits.ts).
 */
export async function updateTeamMember(deps: Pick<Deps, 'store' | 'realtime' | 'log'>, id: string, change: TeamMemberChange): Promise<User> {
  const refusal =
    (change.name !== undefined ? textRefusal('name', change.name, true) : null) ??
    (change.email !== undefined ? textRefusal('email', change.email, true) : null) ??
    textRefusal('phone', change.phone) ??
    textRefusal('location', change.location) ??
    textRefusal('branch', change.branch) ??
    (change.password !== undefined ? passwordRefusal(change.password) : null);
  if (refusal) throw refusal;
  const email = change.email?.trim();
  const passwordHash = change.password !== undefined ? await hashPassword(change.password) : undefined;
  const { before, after } = await deps.store.transaction(async (store) => {
    const current = await store.users.findById(id);
    if (!current) throw errors.userNotFound();
    if (email !== undefined && email.toLowerCase() !== current.email.toLowerCase() && (await store.users.emailTaken(email))) throw errors.emailExists();
    if (change.customerId && !(await store.customers.findById(change.customerId))) throw errors.invalidField('customerId', 'must be the id of a customer');
    const fields: UserChange = {
      name: change.name?.trim(),
      email,
      phone: change.phone === undefined ? undefined : optionalText(change.phone),
      role: change.role,
      location: change.location === undefined ? undefined : optionalText(change.location),
      branch: change.branch === undefined ? undefined : optionalText(change.branch),
      active: change.active,
      customerId: change.customerId === undefined ? undefined : change.customerId || null,
      passwordHash,
    };
    const losesAdmin = current.role === 'ADMIN' && current.active && ((fields.role && fields.role !== 'ADMIN') || fields.active === false);
    if (losesAdmin && (await store.users.countActiveAdmins({ forUpdate: true })) <= 1) throw errors.lastAdmin();
    let updated;
    try {
      updated = await store.users.update(id, fields, nowIso());
    } catch (err) {
      // Two admins giving two members the same new email at once: the database's unique index decides.
      if (isUniqueViolation(err)) throw errors.emailExists();
      throw err;
    }
    if (!updated) throw errors.userNotFound();
    if (fields.active === false || passwordHash) await store.sessions.deleteForUser(id);
    // Deactivation ends the user's API tokens for good (reactivation does not bring them back); a new password does not.
    if (fields.active === false) await store.apiTokens.revokeForUser(id, nowIso());
    return { before: current, after: updated };
  });
  await announceUserChange(deps, before, after, passwordHash !== undefined).catch((err: unknown) => deps.log.warn({ err }, 'the change of this user was not announced to their streams'));
  return after;
}

/**
 * Open streams follow a user's change at once, on every instance: ended on deactivation or a new
 * password, re-scoped on a change of role or customer (session caches forget the user on those signals);
 * any other change is forgotten by this instance's session cache at once (http/session-cache.ts).
 */
async function announceUserChange(deps: Pick<Deps, 'realtime'>, before: User, after: User, passwordChanged: boolean): Promise<void> {
  userUpdatedHere(deps.realtime, after);
  if (before.active && !after.active) await endSessions(deps.realtime, { userId: after.id, reason: 'deactivated' });
  else if (passwordChanged) await endSessions(deps.realtime, { userId: after.id, reason: 'password-changed' });
  if (before.role !== after.role || before.customerId !== after.customerId) await userChanged(deps.realtime, after);
}

/** GET /api/team/:id: one member, with their customer. */
export async function getTeamMember(deps: Pick<Deps, 'store'>, id: string): Promise<User> {
  const user = await deps.store.users.findById(id);
  if (!user) throw errors.userNotFound();
  return user;
}
