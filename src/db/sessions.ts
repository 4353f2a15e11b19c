import type { Role, User } from '../domain/model.js';
import type { Database, DB } from './index.js';
import { reusable } from './reusable.js';
import { USER_COLUMNS, toUser } from './rows.js';

/** A request's session check, compiled once: see reusable.ts. */
const hot = {
  session: reusable((db, tokenHash: string, now: string) =>
    db
      .selectFrom('sessions')
      .innerJoin('users', 'users.id', 'sessions.user_id')
      .select(USER_COLUMNS.map((c) => `users.${c}` as const))
      .select('sessions.expires_at')
      .where('sessions.token_hash', '=', tokenHash)
      .where('sessions.expires_at', '>', now),
  ),
};

/** Sessions by their token's hash (the token itself is never stored). */
export function sessionsRepo(db: DB, dialect: Database['dialect']) {
  return {
    async create(tokenHash: string, userId: string, now: string, expiresAt: string): Promise<void> {
      await db.insertInto('sessions').values({ token_hash: tokenHash, user_id: userId, created_at: now, expires_at: expiresAt }).execute();
    },
    /** The live session's user (read fresh, so role and active changes apply at once). */
    async find(tokenHash: string, now: string): Promise<{ user: User; expiresAt: string } | undefined> {
      const [row] = (await db.executeQuery(hot.session(db, dialect, tokenHash, now))).rows;
      return row && { user: toUser(row), expiresAt: row.expires_at };
    },
    /** The sessions among these token hashes that still exist, with their user's role and active flag (expired ones included). */
    async findMany(tokenHashes: string[]): Promise<{ tokenHash: string; expiresAt: string; role: Role; active: boolean; customerId: string | null }[]> {
      if (!tokenHashes.length) return [];
      const rows = await db
        .selectFrom('sessions')
        .innerJoin('users', 'users.id', 'sessions.user_id')
        .select(['sessions.token_hash', 'sessions.expires_at', 'users.role', 'users.active', 'users.customer_id'])
        .where('sessions.token_hash', 'in', tokenHashes)
        .execute();
      return rows.map((r) => ({ tokenHash: r.token_hash, expiresAt: r.expires_at, role: r.role as Role, active: Boolean(r.active), customerId: r.customer_id }));
    },
    async extend(tokenHash: string, expiresAt: string): Promise<void> {
      await db.updateTable('sessions').set({ expires_at: expiresAt }).where('token_hash', '=', tokenHash).execute();
    },
    async delete(tokenHash: string): Promise<void> {
      await db.deleteFrom('sessions').where('token_hash', '=', tokenHash).execute();
    },
    async deleteForUser(userId: string): Promise<void> {
      await db.deleteFrom('sessions').where('user_id', '=', userId).execute();
    },
    /** Every session of the user but the one they are using (a password change). */
    async deleteOthersOfUser(userId: string, keepTokenHash: string): Promise<void> {
      await db.deleteFrom('sessions').where('user_id', '=', userId).where('token_hash', '!=', keepTokenHash).execute();
    },
    async deleteExpired(now: string): Promise<void> {
      await db.deleteFrom('sessions').where('expires_at', '<=', now).execute();
    },
  };
}
