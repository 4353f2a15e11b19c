import { type Kysely, sql } from 'kysely';

/**
 * Deliveries made behind the change (issue 24, performance): a change wrote its event and a
 * delivery row per endpoint (each row in four indexes) in its own transaction, a third of an
 * upload's writes with three endpoints. Now the change writes only its event, with the endpoints it
 * goes to (`endpoint_ids`, a JSON list, decided in the change's transaction as before), and the
 * dispatcher makes the deliveries in event order and clears the list (webhooks/dispatcher.ts, fanOut).
 * Events written before have their deliveries already: their list is null.
 */
export function webhookFanOut() {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema.alterTable('webhook_events').addColumn('endpoint_ids', 'text').execute();
      // Only the events still to fan out, in order: a few rows however many events are kept.
      await db.schema.createIndex('webhook_events_to_fan_out').on('webhook_events').column('id').where(sql.ref('endpoint_ids'), 'is not', null).execute();
    },
  };
}
