import type { Deps } from '../deps.js';
import { nowIso } from '../deps.js';
import { isUniqueViolation } from '../db/index.js';
import { newId } from '../ids.js';
import { hashPassword } from '../passwords.js';

/**
 * Start-up: make sure an active ADMIN with this email exists. Created if missing; an existing
 * user is made an active ADMIN but keeps their password.
 */
export async function ensureAdmin(deps: Pick<Deps, 'store'>, admin: { email: string; password: string; name: string }): Promise<'created' | 'updated' | 'unchanged'> {
  const existing = await deps.store.users.findByEmailWithHash(admin.email);
  if (existing) {
    if (existing.user.role === 'ADMIN' && existing.user.active) return 'unchanged';
    await deps.store.users.update(existing.user.id, { role: 'ADMIN', active: true }, nowIso());
    return 'updated';
  }
  const passwordHash = await hashPassword(admin.password);
  try {
    await deps.store.users.insert(
      newId(),
      { name: admin.name, email: admin.email, passwordHash, role: 'ADMIN', phone: null, location: null, branch: null },
      nowIso(),
    );
    return 'created';
  } catch (err) {
    if (isUniqueViolation(err)) return 'unchanged'; // another instance created it first
    throw err;
  }
}
