import type { Kysely } from 'kysely';
import type { Dialect } from '../index.js';

/**
 * The tus lock across instances (uploads/lease-locker.ts): one lease row per locked upload, held by
 * one request of one instance until `expires_at` (milliseconds since the epoch, renewed while held);
 * `release_requested` is how a newer request asks the holder, wherever it runs, to let go.
 */
export function uploadLocks(dialect: Dialect) {
  const int8 = dialect === 'postgres' ? 'bigint' : 'integer';
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema
        .createTable('upload_locks')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('holder', 'text', (c) => c.notNull())
        .addColumn('expires_at', int8, (c) => c.notNull())
        .addColumn('release_requested', 'integer', (c) => c.notNull().defaultTo(0))
        .execute();
    },
  };
}
