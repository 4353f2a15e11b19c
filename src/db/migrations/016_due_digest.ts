import type { Kysely } from 'kysely';
import type { Dialect } from '../index.js';

/**
 * The morning due-date digest (issue 22): one row per person and day, the claim that their digest
 * for that day was decided. Its primary key makes it once per day per person across instances and
 * restarts: the row is inserted in the same transaction as the digest's outbox row (outbox_id; null
 * when there was nothing to list), and an instance whose insert finds the row sends nothing.
 * `day` is YYYY-MM-DD in the shop's time zone (TIMEZONE).
 */
export function dueDigest(dialect: Dialect) {
  const ts = dialect === 'postgres' ? 'timestamptz' : 'text';
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema
        .createTable('due_digests')
        .addColumn('user_id', 'text', (c) => c.notNull().references('users.id').onDelete('cascade'))
        .addColumn('day', 'text', (c) => c.notNull())
        .addColumn('claimed_at', ts, (c) => c.notNull())
        .addColumn('outbox_id', 'text')
        .addPrimaryKeyConstraint('due_digests_pk', ['user_id', 'day'])
        .execute();
      await db.schema.createIndex('due_digests_claimed_at').on('due_digests').column('claimed_at').execute();
    },
  };
}
