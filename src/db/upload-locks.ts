import type { DB } from './index.js';

/** Leases on tus uploads (uploads/lease-locker.ts): times in milliseconds since the epoch. */
export function uploadLocksRepo(db: DB) {
  return {
    /** Takes the lease when it is free or expired; true when `holder` now holds it. */
    async acquire(id: string, holder: string, now: number, ttlMs: number): Promise<boolean> {
      const r = await db
        .insertInto('upload_locks')
        .values({ id, holder, expires_at: now + ttlMs, release_requested: 0 })
        .onConflict((oc) =>
          oc
            .column('id')
            .doUpdateSet({ holder, expires_at: now + ttlMs, release_requested: 0 })
            .where('upload_locks.expires_at', '<', now),
        )
        .executeTakeFirst();
      return Number(r.numInsertedOrUpdatedRows ?? 0) === 1;
    },
    /** Extends the holder's lease; null when it is no longer theirs, else whether a newer request asked for it. */
    async renew(id: string, holder: string, now: number, ttlMs: number): Promise<{ releaseRequested: boolean } | null> {
      const r = await db
        .updateTable('upload_locks')
        .set({ expires_at: now + ttlMs })
        .where('id', '=', id)
        .where('holder', '=', holder)
        .returning('release_requested')
        .executeTakeFirst();
      return r ? { releaseRequested: Number(r.release_requested) === 1 } : null;
    },
    /** Asks whoever holds the lease (not `asker`) to let go. */
    async requestRelease(id: string, asker: string): Promise<void> {
      await db.updateTable('upload_locks').set({ release_requested: 1 }).where('id', '=', id).where('holder', '!=', asker).execute();
    },
    /** Leases that ran out and were never released (their instance stopped). */
    async deleteExpired(now: number): Promise<void> {
      await db.deleteFrom('upload_locks').where('expires_at', '<', now).execute();
    },
    async release(id: string, holder: string): Promise<void> {
      await db.deleteFrom('upload_locks').where('id', '=', id).where('holder', '=', holder).execute();
    },
  };
}
