import type { Kysely } from 'kysely';

/**
 * The event log is read by position (realtime/streams.ts reads the entries after its position on
 * every change): without an index that leads with entity_type and then seq, SQLite chose the
 * entity index and sorted the whole log on each read, so every upload cost more as the log grew.
 */
export function eventLogIndex() {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema.createIndex('activity_entity_type_seq').ifNotExists().on('activity_log').columns(['entity_type', 'seq']).execute();
    },
  };
}
