import { type Kysely, sql } from 'kysely';
import type { Dialect } from '../index.js';

/**
 * The activity log becomes the realtime event log: `seq` numbers its entries densely in commit
 * order (assigned as max + 1 while holding the activity lock, see db/activity.ts), so an SSE event id
 * derived from it survives restarts and is the same on every instance. Existing entries are
 * numbered in (created_at, id) order.
 */
export function activitySeq(dialect: Dialect) {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema.alterTable('activity_log').addColumn('seq', dialect === 'postgres' ? 'bigint' : 'integer').execute();
      await sql`update activity_log set seq = ranked.n
        from (select id, row_number() over (order by created_at, id) as n from activity_log) as ranked
        where activity_log.id = ranked.id`.execute(db);
      await db.schema.createIndex('activity_seq').on('activity_log').column('seq').unique().execute();
    },
  };
}
