import { type Kysely, type SqlBool, sql } from 'kysely';
import type { Dialect } from '../index.js';

/**
 * Withdrawing a wrong document (interface.md, "Withdrawing a wrong document"): a FileUpload keeps
 * who voided it, when and why, and `bytes_deleted_at`, set once its bytes are gone from storage.
 * A voided record without it is a deletion still to be done: the void's own request tries first,
 * the reconciler again (storage/reconcile.ts), so a store that was away never leaves the bytes
 * behind. The partial index holds only those few rows.
 */
export function voidDocuments(dialect: Dialect) {
  const ts = dialect === 'postgres' ? 'timestamptz' : 'text';
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema.alterTable('file_uploads').addColumn('voided_at', ts).execute();
      await db.schema.alterTable('file_uploads').addColumn('voided_by_id', 'text', (c) => c.references('users.id')).execute();
      await db.schema.alterTable('file_uploads').addColumn('void_reason', 'text').execute();
      await db.schema.alterTable('file_uploads').addColumn('bytes_deleted_at', ts).execute();
      // The predicate is PENDING_DELETION of db/files.ts, word for word: SQLite uses a partial index only for a query that states it.
      const pending = sql<SqlBool>`voided_at is not null and bytes_deleted_at is null`;
      await db.schema.createIndex('file_uploads_pending_deletion').on('file_uploads').column('id').where(pending).execute();
    },
  };
}
