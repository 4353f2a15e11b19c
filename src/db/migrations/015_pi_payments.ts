import type { Kysely } from 'kysely';
import type { Dialect } from '../index.js';

/**
 * The PI's figures and the payments (interface.md, "The PI and payments"). The PI is one per
 * project, replaced when a rejected one is submitted again: columns on projects, null until the
 * first submission. Payments are rows of their own, read by project (newest first) and summed.
 *
 * Amounts are whole minor units: BIGINT on PostgreSQL (read back as a JavaScript number, exact
 * because every amount and every project's sum of payments is at most domain/money.ts MAX_AMOUNT,
 * below 2^53), SQLite's 64-bit INTEGER. Dates (valid until, received on) are YYYY-MM-DD text, as
 * the due date is (migration 013).
 */
export function piPayments(dialect: Dialect) {
  const pg = dialect === 'postgres';
  const ts = pg ? 'timestamptz' : 'text';
  const big = pg ? 'bigint' : 'integer';
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema.alterTable('projects').addColumn('pi_number', 'text').execute();
      await db.schema.alterTable('projects').addColumn('pi_amount', big).execute();
      await db.schema.alterTable('projects').addColumn('pi_currency', 'text').execute();
      await db.schema.alterTable('projects').addColumn('pi_valid_until', 'text').execute();
      await db.schema.alterTable('projects').addColumn('pi_submitted_at', ts).execute();
      await db.schema.alterTable('projects').addColumn('pi_submitted_by_id', 'text', (c) => c.references('users.id')).execute();

      await db.schema
        .createTable('payments')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('project_id', 'text', (c) => c.notNull().references('projects.id').onDelete('cascade'))
        .addColumn('amount', big, (c) => c.notNull())
        .addColumn('currency', 'text', (c) => c.notNull())
        .addColumn('received_on', 'text', (c) => c.notNull())
        .addColumn('method', 'text')
        .addColumn('reference', 'text')
        .addColumn('recorded_by_id', 'text', (c) => c.notNull().references('users.id'))
        .addColumn('created_at', ts, (c) => c.notNull())
        .execute();
      // A project's payments, newest first (received_on, then when recorded), and their sum.
      await db.schema.createIndex('payments_project_received_on').on('payments').columns(['project_id', 'received_on', 'created_at', 'id']).execute();
    },
  };
}
