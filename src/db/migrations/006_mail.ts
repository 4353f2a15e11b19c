import { type Kysely, sql } from 'kysely';
import type { Dialect } from '../index.js';

/**
 * Issue 12: the email outbox, the categories a user switched off, and password-reset tokens.
 *
 * outbox: one row per email to come (a recipient and, for project news, a project). A change writes
 * or extends its row in the change's own transaction; the dispatcher claims due rows (lease in
 * locked_until) and marks them sent, or moves due_at on with backoff after a failure.
 */
export function mail(dialect: Dialect) {
  const pg = dialect === 'postgres';
  const ts = pg ? 'timestamptz' : 'text';
  const json = pg ? 'jsonb' : 'text';

  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema
        .createTable('outbox')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('recipient_id', 'text', (c) => c.notNull().references('users.id').onDelete('cascade'))
        .addColumn('project_id', 'text')
        /** JSON array of the events this email lists, oldest first */
        .addColumn('events', json, (c) => c.notNull())
        .addColumn('status', 'text', (c) => c.notNull())
        .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('created_at', ts, (c) => c.notNull())
        .addColumn('due_at', ts, (c) => c.notNull())
        .addColumn('locked_until', ts)
        .addColumn('sent_at', ts)
        .addColumn('last_error', 'text')
        .execute();
      await db.schema.createIndex('outbox_status_due_at').on('outbox').columns(['status', 'due_at']).execute();
      // At most one open email (not yet tried nor claimed) per recipient and project: changes at the same moment join it.
      await sql`create unique index outbox_open_digest on outbox (recipient_id, project_id) where status = 'pending' and attempts = 0 and locked_until is null`.execute(db);

      await db.schema
        .createTable('email_optouts')
        .addColumn('user_id', 'text', (c) => c.notNull().references('users.id').onDelete('cascade'))
        .addColumn('category', 'text', (c) => c.notNull())
        .addPrimaryKeyConstraint('email_optouts_pk', ['user_id', 'category'])
        .execute();

      await db.schema
        .createTable('password_resets')
        .addColumn('token_hash', 'text', (c) => c.primaryKey())
        .addColumn('user_id', 'text', (c) => c.notNull().references('users.id').onDelete('cascade'))
        .addColumn('created_at', ts, (c) => c.notNull())
        .addColumn('expires_at', ts, (c) => c.notNull())
        .addColumn('used_at', ts)
        .execute();
      await db.schema.createIndex('password_resets_user_id').on('password_resets').column('user_id').execute();
    },
  };
}
