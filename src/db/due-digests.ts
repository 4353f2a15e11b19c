import { DIGEST_ROLES } from '../domain/due-digest.js';
import type { Role } from '../domain/model.js';
import type { DB } from './index.js';

/** The claims of the due-date digest (migration 016): one row per person and day, whatever the instance. */
export function dueDigestsRepo(db: DB) {
  return {
    /**
     * The people whose digest for `day` is still to be decided: active, of a role that gets one,
     * the category not switched off, no claim for that day yet. Ordered by id.
     */
    async undecided(day: string, category: string): Promise<{ id: string; role: Role }[]> {
      const rows = await db
        .selectFrom('users')
        .select(['users.id', 'users.role'])
        .where('users.active', '=', true)
        .where('users.role', 'in', DIGEST_ROLES)
        .where((eb) => eb.not(eb.exists(eb.selectFrom('email_optouts').select('user_id').whereRef('email_optouts.user_id', '=', 'users.id').where('email_optouts.category', '=', category))))
        .where((eb) => eb.not(eb.exists(eb.selectFrom('due_digests').select('user_id').whereRef('due_digests.user_id', '=', 'users.id').where('due_digests.day', '=', day))))
        .orderBy('users.id')
        .execute();
      return rows.map((r) => ({ id: r.id, role: r.role as Role }));
    },

    /**
     * Claims the person's digest for `day`: true when this call made the claim, false when it was
     * made before, by any instance. On PostgreSQL an insert racing another's uncommitted one waits
     * for it, then finds the row. The first statement of its transaction, so SQLite takes the write
     * lock at once (a read first would have to upgrade its snapshot, which fails rather than waits).
     */
    async claim(userId: string, day: string, at: string): Promise<boolean> {
      const r = await db
        .insertInto('due_digests')
        .values({ user_id: userId, day, claimed_at: at, outbox_id: null })
        .onConflict((oc) => oc.columns(['user_id', 'day']).doNothing())
        .executeTakeFirst();
      return Number(r.numInsertedOrUpdatedRows ?? 0) === 1;
    },

    /** Notes the claimed digest's email (its outbox row), in the claim's transaction. */
    async noteEmail(userId: string, day: string, outboxId: string): Promise<void> {
      await db.updateTable('due_digests').set({ outbox_id: outboxId }).where('user_id', '=', userId).where('day', '=', day).execute();
    },

    /** Claims made before `at` go (only today's are ever read; the rest stay a while for inspection). */
    async deleteClaimedBefore(at: string): Promise<void> {
      await db.deleteFrom('due_digests').where('claimed_at', '<', at).execute();
    },
  };
}
