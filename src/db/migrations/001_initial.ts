import type { Kysely } from 'kysely';
import type { Dialect } from '../index.js';

/** The whole schema. Column types differ per dialect only where the engines differ. */
export function initial(dialect: Dialect) {
  const pg = dialect === 'postgres';
  const ts = pg ? 'timestamptz' : 'text';
  const bool = pg ? 'boolean' : 'integer';
  const json = pg ? 'jsonb' : 'text';
  const big = pg ? 'bigint' : 'integer';

  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema
        .createTable('users')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('name', 'text', (c) => c.notNull())
        .addColumn('email', 'text', (c) => c.notNull())
        .addColumn('email_key', 'text', (c) => c.notNull().unique())
        .addColumn('phone', 'text')
        .addColumn('role', 'text', (c) => c.notNull())
        .addColumn('location', 'text')
        .addColumn('branch', 'text')
        .addColumn('active', bool, (c) => c.notNull())
        .addColumn('password_hash', 'text', (c) => c.notNull())
        .addColumn('created_at', ts, (c) => c.notNull())
        .addColumn('updated_at', ts, (c) => c.notNull())
        .execute();
      await db.schema.createIndex('users_created_at_id').on('users').columns(['created_at', 'id']).execute();

      await db.schema
        .createTable('sessions')
        .addColumn('token_hash', 'text', (c) => c.primaryKey())
        .addColumn('user_id', 'text', (c) => c.notNull().references('users.id').onDelete('cascade'))
        .addColumn('created_at', ts, (c) => c.notNull())
        .addColumn('expires_at', ts, (c) => c.notNull())
        .execute();
      await db.schema.createIndex('sessions_user_id').on('sessions').column('user_id').execute();
      await db.schema.createIndex('sessions_expires_at').on('sessions').column('expires_at').execute();

      await db.schema
        .createTable('projects')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('name', 'text', (c) => c.notNull())
        .addColumn('description', 'text')
        .addColumn('poc_id', 'text', (c) => c.notNull().references('users.id'))
        .addColumn('status', 'text', (c) => c.notNull())
        .addColumn('pi_status', 'text', (c) => c.notNull())
        .addColumn('approval_status', 'text')
        .addColumn('approval_note', 'text')
        .addColumn('approval_decided_by_id', 'text', (c) => c.references('users.id'))
        .addColumn('approval_decided_at', ts)
        .addColumn('created_at', ts, (c) => c.notNull())
        .addColumn('updated_at', ts, (c) => c.notNull())
        .execute();
      await db.schema.createIndex('projects_created_at_id').on('projects').columns(['created_at', 'id']).execute();
      await db.schema.createIndex('projects_poc_created_at_id').on('projects').columns(['poc_id', 'created_at', 'id']).execute();
      await db.schema.createIndex('projects_status_created_at_id').on('projects').columns(['status', 'created_at', 'id']).execute();

      await db.schema
        .createTable('file_uploads')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('project_id', 'text', (c) => c.notNull().references('projects.id'))
        .addColumn('type', 'text', (c) => c.notNull())
        .addColumn('url', 'text', (c) => c.notNull())
        .addColumn('filename', 'text', (c) => c.notNull())
        .addColumn('size', big, (c) => c.notNull())
        .addColumn('content_type', 'text', (c) => c.notNull())
        .addColumn('storage_key', 'text', (c) => c.notNull().unique())
        .addColumn('uploaded_by_id', 'text', (c) => c.notNull().references('users.id'))
        .addColumn('created_at', ts, (c) => c.notNull())
        .execute();
      await db.schema.createIndex('file_uploads_project_created_at').on('file_uploads').columns(['project_id', 'created_at']).execute();
      await db.schema.createIndex('file_uploads_type').on('file_uploads').column('type').execute();

      await db.schema
        .createTable('storage_names')
        .addColumn('key', 'text', (c) => c.primaryKey())
        .addColumn('created_at', ts, (c) => c.notNull())
        .execute();

      await db.schema
        .createTable('activity_log')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('user_id', 'text', (c) => c.notNull().references('users.id'))
        .addColumn('action', 'text', (c) => c.notNull())
        .addColumn('entity_type', 'text', (c) => c.notNull())
        .addColumn('entity_id', 'text', (c) => c.notNull())
        .addColumn('details', json, (c) => c.notNull())
        .addColumn('created_at', ts, (c) => c.notNull())
        .execute();
      await db.schema.createIndex('activity_created_at_id').on('activity_log').columns(['created_at', 'id']).execute();
      await db.schema
        .createIndex('activity_entity_created_at_id')
        .on('activity_log')
        .columns(['entity_type', 'entity_id', 'created_at', 'id'])
        .execute();
      await db.schema.createIndex('activity_user_created_at').on('activity_log').columns(['user_id', 'created_at']).execute();

      await db.schema
        .createTable('login_failures')
        .addColumn('key', 'text', (c) => c.primaryKey())
        .addColumn('failures', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('window_started_at', ts, (c) => c.notNull())
        .execute();
    },
  };
}
