import { type Kysely, sql } from 'kysely';

/**
 * Reports (issue 38): what GET /api/reports reads by, so a year's figures over a large shop are a
 * few index reads (db/reports.ts). The activity indexes are partial, over the two actions the
 * reports date things by (a project's delivery, its PI's verification): a few rows per project
 * instead of every entry. Their conditions are the queries' own, word for word (SQLite uses a
 * partial index only for a query whose condition implies the index's).
 */
export function reports() {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema
        .createIndex('activity_delivered_at')
        .on('activity_log')
        .columns(['created_at', 'entity_id'])
        .where(sql.ref('activity_log.action'), '=', sql.lit('PROJECT_DELIVERED'))
        .execute();
      await db.schema
        .createIndex('activity_pi_verified')
        .on('activity_log')
        .columns(['entity_id', 'created_at'])
        .where(sql.ref('activity_log.action'), '=', sql.lit('PI_VERIFIED'))
        .execute();
      // Payments by the day received, for the months' sums (the existing index leads with the project).
      await db.schema.createIndex('payments_received_on').on('payments').columns(['received_on', 'currency', 'amount']).execute();
    },
  };
}
