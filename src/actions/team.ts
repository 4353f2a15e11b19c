import type { Deps } from '../deps.js';
import { nowIso } from '../deps.js';
import { isUniqueViolation } from '../db/index.js';
import type { UserChange } from '../db/store.js';
import { type Role, type User, ROLES, isOneOf } from '../domain/model.js';
import { errors } from '../errors.js';
import { newId } from '../ids.js';
import { hashPassword } from '../passwords.js';

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
  phone?: string | null;
  role?: Role;
  location?: string | null;
  branch?: string | null;
  active?: boolean;
  password?: string;
}

/**
 * PATCH /api/team/:id. Deactivating a user or changing their password ends their sessions; the
 * last active ADMIN can be neither demoted nor deactivated.
 */
export async function updateTeamMember(deps: Pick<Deps, 'store'>, id: string, change: TeamMemberChange): Promise<User> {
  if (change.name !== undefined && !change.name.trim()) throw errors.invalidField('name', 'must not be empty');
  if (change.password !== undefined && !change.password.trim()) throw errors.invalidField('password', 'must not be empty');
  const passwordHash = change.password !== undefined ? await hashPassword(change.password) : undefined;
  return deps.store.transaction(async (store) => {
    const current = await store.users.findById(id);
    if (!current) throw errors.userNotFound();
    const fields: UserChange = {
      name: change.name?.trim(),
      phone: change.phone === undefined ? undefined : optionalText(change.phone),
      role: change.role,
      location: change.location === undefined ? undefined : optionalText(change.location),
      branch: change.branch === undefined ? undefined : optionalText(change.branch),
      active: change.active,
      passwordHash,
    };
    const losesAdmin = current.role === 'ADMIN' && current.active && ((fields.role && fields.role !== 'ADMIN') || fields.active === false);
    if (losesAdmin && (await store.users.countActiveAdmins({ forUpdate: true })) <= 1) throw errors.lastAdmin();
    const updated = await store.users.update(id, fields, nowIso());
    if (!updated) throw errors.userNotFound();
    if (fields.active === false || passwordHash) await store.sessions.deleteForUser(id);
    return updated;
  });
}
