import type { Database, DB } from './index.js';
import { reusable } from './reusable.js';

/** The name every upload reserves, compiled once: see reusable.ts. */
const hot = {
  reserveName: reusable((db, key: string, now: string) =>
    db
      .insertInto('storage_names')
      .values({ key, created_at: now })
      .onConflict((oc) => oc.column('key').doNothing()),
  ),
};

/** Storage keys reserved by uploads, so two uploads never take one name (across instances). */
export function storageNamesRepo(db: DB, dialect: Database['dialect']) {
  return {
    /** Claims a storage key; false when another upload holds it already. */
    async reserve(key: string, now: string): Promise<boolean> {
      const inserted = await db.executeQuery(hot.reserveName(db, dialect, key, now));
      return Number(inserted.numAffectedRows ?? 0) === 1;
    },
    async release(key: string): Promise<void> {
      await db.deleteFrom('storage_names').where('key', '=', key).execute();
    },
    /** Reservations made before `before` that never got a record (an upload that crashed or failed without cleaning up). */
    async unrecorded(before: string): Promise<string[]> {
      const rows = await db
        .selectFrom('storage_names')
        .leftJoin('file_uploads', 'file_uploads.storage_key', 'storage_names.key')
        .leftJoin('proofs', 'proofs.storage_key', 'storage_names.key')
        .select('storage_names.key')
        .where('storage_names.created_at', '<', before)
        .where('file_uploads.id', 'is', null)
        .where('proofs.id', 'is', null)
        .orderBy('storage_names.key')
        .execute();
      return rows.map((r) => r.key);
    },
  };
}
