import type { FileUpload } from '../domain/model.js';
import type { DB } from './index.js';
import { toFileUpload } from './rows.js';

/** One user's Idempotency-Key on POST /api/upload: the upload it made, or null while its first request runs. */
export interface IdempotencyClaim {
  fileUploadId: string | null;
  createdAt: string;
}

/** Idempotency-Key claims on POST /api/upload (uploads/idempotency.ts), kept a day. */
export function idempotencyKeysRepo(db: DB) {
  /** Every user's claims made before `expiredBefore` (24 h): they count no more. */
  const deleteExpired = async (expiredBefore: string): Promise<void> => {
    await db.deleteFrom('idempotency_keys').where('created_at', '<', expiredBefore).execute();
  };
  return {
    deleteExpired,
    /**
     * Claims (user, key) for a new request; false when a live claim holds it. A claim made before
     * `expiredBefore` (24 h) no longer counts, nor does one still unfinished from before
     * `abandonedBefore` (its request died with its process); either is replaced.
     */
    async claim(userId: string, key: string, now: string, expiredBefore: string, abandonedBefore: string): Promise<boolean> {
      // Every user's expired keys go too (an index range on created_at): the table holds a day of keys.
      await deleteExpired(expiredBefore);
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
      await db.updateTable('idempotency_keys').set({ file_upload_id: fileUploadId }).where('user_id', '=', userId).where('key', '=', key).where('file_upload_id', 'is', null).execute();
    },
    /**
     * The upload an unfinished claim's request recorded without marking the claim with it: this
     * user's record of the same project, type, name and bytes, made since the claim and named by
     * no key (the first such). None while the request still runs.
     */
    async recordedUnmarked(userId: string, claimedAt: string, upload: { projectId: string; type: string; filename: string; sha256: string }): Promise<FileUpload | undefined> {
      const row = await db
        .selectFrom('file_uploads')
        .selectAll()
        .where('project_id', '=', upload.projectId)
        .where('sha256', '=', upload.sha256)
        .where('uploaded_by_id', '=', userId)
        .where('type', '=', upload.type)
        .where('filename', '=', upload.filename)
        .where('created_at', '>=', claimedAt)
        .where((eb) => eb.not(eb.exists(eb.selectFrom('idempotency_keys').select('key').whereRef('idempotency_keys.file_upload_id', '=', 'file_uploads.id'))))
        .orderBy('created_at')
        .orderBy('id')
        .limit(1)
        .executeTakeFirst();
      return row && toFileUpload(row);
    },
    /** Gives an unfinished claim up (its request failed), so a retry runs afresh. */
    async release(userId: string, key: string): Promise<void> {
      await db.deleteFrom('idempotency_keys').where('user_id', '=', userId).where('key', '=', key).where('file_upload_id', 'is', null).execute();
    },
  };
}
