import type { DB } from './index.js';

/** One user's Idempotency-Key on POST /api/upload: the upload it made, or null while its first request runs. */
export interface IdempotencyClaim {
  fileUploadId: string | null;
  createdAt: string;
}

/** Idempotency-Key claims on POST /api/upload (uploads/idempotency.ts), kept a day. */
export function idempotencyKeysRepo(db: DB) {
  return {
    /**
     * Claims (user, key) for a new request; false when a live claim holds it. A claim made before
     * `expiredBefore` (24 h) no longer counts, nor does one still unfinished from before
     * `abandonedBefore` (its request died with its process); either is replaced.
     */
    async claim(userId: string, key: string, now: string, expiredBefore: string, abandonedBefore: string): Promise<boolean> {
      // Every user's expired keys go too (an index range on created_at): the table holds a day of keys.
      await db.deleteFrom('idempotency_keys').where('created_at', '<', expiredBefore).execute();
      await db
        .deleteFrom('idempotency_keys')
        .where('user_id', '=', userId)
        .where('key', '=', key)
        .where('file_upload_id', 'is', null)
        .where('created_at', '<', abandonedBefore)
        .execute();
      const inserted = await db
        .insertInto('idempotency_keys')
        .values({ user_id: userId, key, file_upload_id: null, created_at: now })
        .onConflict((oc) => oc.columns(['user_id', 'key']).doNothing())
        .executeTakeFirst();
      return Number(inserted.numInsertedOrUpdatedRows ?? 0) === 1;
    },
    async find(userId: string, key: string): Promise<IdempotencyClaim | undefined> {
      const row = await db.selectFrom('idempotency_keys').select(['file_upload_id', 'created_at']).where('user_id', '=', userId).where('key', '=', key).executeTakeFirst();
      return row && { fileUploadId: row.file_upload_id, createdAt: row.created_at };
    },
    async complete(userId: string, key: string, fileUploadId: string): Promise<void> {
      await db.updateTable('idempotency_keys').set({ file_upload_id: fileUploadId }).where('user_id', '=', userId).where('key', '=', key).execute();
    },
    /** Gives an unfinished claim up (its request failed), so a retry runs afresh. */
    async release(userId: string, key: string): Promise<void> {
      await db.deleteFrom('idempotency_keys').where('user_id', '=', userId).where('key', '=', key).where('file_upload_id', 'is', null).execute();
    },
  };
}
