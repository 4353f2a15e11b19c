import type { Kysely } from 'kysely';
import type { Dialect } from '../index.js';

/**
 * Comments on a project (interface.md, Comments): one row each, read as a thread oldest first by
 * (project_id, created_at, id), the index the thread and its cursor walk. `activity_log.internal`
 * marks the entries of internal notes, so the visibility rule's SQL twin keeps them from a CLIENT
 * in the database (db/visibility.ts) without reading each entry's details; older entries are not internal.
 */
export function comments(dialect: Dialect) {
  const pg = dialect === 'postgres';
  const ts = pg ? 'timestamptz' : 'text';
  const bool = pg ? 'boolean' : 'integer';
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema
        .createTable('comments')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('project_id', 'text', (c) => c.notNull().references('projects.id').onDelete('cascade'))
        .addColumn('author_id', 'text', (c) => c.notNull().references('users.id'))
        .addColumn('body', 'text', (c) => c.notNull())
        .addColumn('internal', bool, (c) => c.notNull())
        .addColumn('created_at', ts, (c) => c.notNull())
        .execute();
      await db.schema.createIndex('comments_project_created_at_id').on('comments').columns(['project_id', 'created_at', 'id']).execute();
      await db.schema
        .alterTable('activity_log')
        .addColumn('internal', bool, (c) => c.notNull().defaultTo(pg ? false : 0))
        .execute();
    },
  };
}
