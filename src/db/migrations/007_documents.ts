import type { Kysely } from 'kysely';
import type { Dialect } from '../index.js';

/**
 * Documents you can trust (issue 13): each FileUpload keeps the SHA-256 of its bytes and the type
 * its first bytes show (null for records made before: their bytes were never hashed), and
 * `idempotency_keys` remembers, per user and key, which upload a POST /api/upload with an
 * Idempotency-Key made (null while the first request is still running); `resumable_uploads` holds
 * what a tus creation was checked for and, once finished, the FileUpload it made or the refusal.
 */
export function documents(dialect: Dialect) {
  const ts = dialect === 'postgres' ? 'timestamptz' : 'text';
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema.alterTable('file_uploads').addColumn('sha256', 'text').execute();
      await db.schema.alterTable('file_uploads').addColumn('detected_type', 'text').execute();
      await db.schema.createIndex('file_uploads_project_sha256').on('file_uploads').columns(['project_id', 'sha256']).execute();

      await db.schema
        .createTable('idempotency_keys')
        .addColumn('user_id', 'text', (c) => c.notNull().references('users.id').onDelete('cascade'))
        .addColumn('key', 'text', (c) => c.notNull())
        .addColumn('file_upload_id', 'text', (c) => c.references('file_uploads.id').onDelete('cascade'))
        .addColumn('created_at', ts, (c) => c.notNull())
        .addPrimaryKeyConstraint('idempotency_keys_pk', ['user_id', 'key'])
        .execute();
      await db.schema.createIndex('idempotency_keys_created_at').on('idempotency_keys').column('created_at').execute();

      await db.schema
        .createTable('resumable_uploads')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('user_id', 'text', (c) => c.notNull().references('users.id').onDelete('cascade'))
        .addColumn('project_id', 'text', (c) => c.notNull())
        .addColumn('file_type', 'text', (c) => c.notNull())
        .addColumn('filename', 'text', (c) => c.notNull())
        .addColumn('content_type', 'text', (c) => c.notNull())
        .addColumn('finishing_at', ts)
        .addColumn('file_upload_id', 'text', (c) => c.references('file_uploads.id').onDelete('set null'))
        .addColumn('error_status', 'integer')
        .addColumn('error_message', 'text')
        .addColumn('created_at', ts, (c) => c.notNull())
        .execute();
    },
  };
}
