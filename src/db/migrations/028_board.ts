import type { Kysely } from 'kysely';

/**
 * The board (issue 36): its DELIVERED column is the projects delivered since a date (by their last
 * change), read through (status, updated_at), so a shop's years of delivered jobs are not walked to
 * find the last 14 days' (db/projects.ts board: the open columns by the status index of migration
 * 001, this column by this one).
 */
export function board() {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema.createIndex('projects_status_updated_at').on('projects').columns(['status', 'updated_at']).execute();
    },
  };
}
