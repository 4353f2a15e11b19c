import { type Kysely, sql } from 'kysely';
import type { Dialect } from '../index.js';

/**
 * Proofs (interface.md, additions of 2026-11-27, "Proofs"): one row per version of the artwork, its
 * bytes stored like a document's (storage_key, sha256, detected_type), numbered 1, 2, … per project
 * (unique, so two posts at once cannot take the same number), with the customer's answer kept on
 * the version it answers (a version is answered at most once: only while pending). Approval links
 * keep only the SHA-256 of their token.
 *
 * An answer given through a link is nobody's: its activity entry's user_id is null, so the column
 * loses its NOT NULL (SQLite cannot alter a column: the table is rebuilt from its own definition,
 * with its indexes, in this migration's transaction).
 */
export function proofs(dialect: Dialect) {
  const pg = dialect === 'postgres';
  const ts = pg ? 'timestamptz' : 'text';
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema
        .createTable('proofs')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('project_id', 'text', (c) => c.notNull().references('projects.id').onDelete('cascade'))
        .addColumn('version', 'integer', (c) => c.notNull())
        .addColumn('filename', 'text', (c) => c.notNull())
        .addColumn('size', 'bigint', (c) => c.notNull())
        .addColumn('content_type', 'text', (c) => c.notNull())
        .addColumn('detected_type', 'text')
        .addColumn('sha256', 'text', (c) => c.notNull())
        .addColumn('storage_key', 'text', (c) => c.notNull().unique())
        .addColumn('url', 'text', (c) => c.notNull())
        .addColumn('note', 'text')
        .addColumn('status', 'text', (c) => c.notNull())
        .addColumn('posted_by_id', 'text', (c) => c.notNull().references('users.id'))
        .addColumn('created_at', ts, (c) => c.notNull())
        .addColumn('response_decision', 'text')
        .addColumn('response_note', 'text')
        .addColumn('response_by_id', 'text', (c) => c.references('users.id'))
        .addColumn('response_by_name', 'text')
        .addColumn('response_via', 'text')
        .addColumn('response_email', 'text')
        .addColumn('response_at', ts)
        .addUniqueConstraint('proofs_project_version', ['project_id', 'version'])
        .execute();
      await db.schema
        .createTable('proof_links')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('proof_id', 'text', (c) => c.notNull().references('proofs.id').onDelete('cascade'))
        .addColumn('token_hash', 'text', (c) => c.notNull().unique())
        .addColumn('email', 'text', (c) => c.notNull())
        .addColumn('name', 'text')
        .addColumn('created_by_id', 'text', (c) => c.notNull().references('users.id'))
        .addColumn('created_at', ts, (c) => c.notNull())
        .addColumn('expires_at', ts, (c) => c.notNull())
        .execute();
      await db.schema.createIndex('proof_links_proof_id').on('proof_links').column('proof_id').execute();

      if (pg) {
        await sql`alter table activity_log alter column user_id drop not null`.execute(db);
        return;
      }
      const table = await sql<{ sql: string }>`select sql from sqlite_master where type = 'table' and name = 'activity_log'`.execute(db);
      const indexes = await sql<{ sql: string }>`select sql from sqlite_master where type = 'index' and tbl_name = 'activity_log' and sql is not null`.execute(db);
      const definition = table.rows[0]!.sql;
      const nullable = definition.replace(/("user_id" text) not null/i, '$1');
      if (nullable === definition) throw new Error('024_proofs: activity_log.user_id not found as expected');
      await sql.raw(nullable.replace(/create table "?activity_log"?/i, 'create table "activity_log_024"')).execute(db);
      await sql`insert into activity_log_024 select * from activity_log`.execute(db);
      await sql`drop table activity_log`.execute(db);
      await sql`alter table activity_log_024 rename to activity_log`.execute(db);
      for (const index of indexes.rows) await sql.raw(index.sql).execute(db);
    },
  };
}
