import { type Kysely, sql } from 'kysely';
import type { Dialect } from '../index.js';

/**
 * Webhook events stored once (issue 24, performance): an event's data was written into every
 * endpoint's delivery row, and held the project's whole document list, so each upload wrote
 * (endpoints × documents) — quadratic as a project grows. Now `webhook_events` keeps each event's
 * data once, and deliveries name their event (`event_id`, indexed). New events keep the project row
 * and the concerned document as of the change, not the list: webhooks/body.ts rebuilds the list as of
 * the change when it sends (README, "Webhook events").
 *
 * Rows queued before: each event's data (in the old shape, with its `files`) moves to
 * `webhook_events` once, and is sent as it was written.
 */
export function webhookEvents(dialect: Dialect) {
  const pg = dialect === 'postgres';
  const ts = pg ? 'timestamptz' : 'text';
  const json = pg ? 'jsonb' : 'text';
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema
        .createTable('webhook_events')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('event_type', 'text', (c) => c.notNull())
        /** JSON: the event's data as the change saw it (webhooks/outbox.ts, EventPayload) */
        .addColumn('payload', json, (c) => c.notNull())
        .addColumn('created_at', ts, (c) => c.notNull())
        .execute();
      // An event's deliveries (the move below, and pruning events none refers to any more).
      await db.schema.createIndex('webhook_deliveries_event').on('webhook_deliveries').column('event_id').execute();
      await sql`insert into webhook_events (id, event_type, payload, created_at)
        select d.event_id, d.event_type, d.payload, d.created_at from webhook_deliveries d
        where d.id = (select min(e.id) from webhook_deliveries e where e.event_id = d.event_id)`.execute(db);
      await db.schema.alterTable('webhook_deliveries').dropColumn('payload').execute();
    },
  };
}
