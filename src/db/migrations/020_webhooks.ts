import type { Kysely } from 'kysely';
import type { Dialect } from '../index.js';

/**
 * Webhooks (interface.md, additions of 2026-11-24): the endpoints admins register, and the
 * deliveries to make (the durable outbox), written in the change's own transaction.
 *
 * webhooks: `secret` (and `previous_secret` until `previous_secret_expires_at`, the rotation's
 * overlap) are kept in clear, as signing needs them; `failing_since` is the first failure of the
 * current run of failures (null once an attempt succeeds).
 *
 * webhook_deliveries: one row per event and endpoint, `payload` the event as the change saw it.
 * The dispatcher claims, per endpoint, the oldest pending row (`webhook_deliveries_endpoint_order`)
 * once due (`next_attempt_at`) and not leased by another instance (`locked_until`).
 */
export function webhooks(dialect: Dialect) {
  const pg = dialect === 'postgres';
  const ts = pg ? 'timestamptz' : 'text';
  const json = pg ? 'jsonb' : 'text';
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema
        .createTable('webhooks')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('url', 'text', (c) => c.notNull())
        /** JSON array of event types, or ["*"] */
        .addColumn('events', json, (c) => c.notNull())
        .addColumn('description', 'text')
        .addColumn('secret', 'text', (c) => c.notNull())
        .addColumn('previous_secret', 'text')
        .addColumn('previous_secret_expires_at', ts)
        .addColumn('active', 'boolean', (c) => c.notNull())
        .addColumn('failing_since', ts)
        .addColumn('created_at', ts, (c) => c.notNull())
        .addColumn('updated_at', ts, (c) => c.notNull())
        .execute();

      await db.schema
        .createTable('webhook_deliveries')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('webhook_id', 'text', (c) => c.notNull().references('webhooks.id').onDelete('cascade'))
        .addColumn('event_id', 'text', (c) => c.notNull())
        .addColumn('event_type', 'text', (c) => c.notNull())
        .addColumn('payload', json, (c) => c.notNull())
        /** pending, delivered, failed */
        .addColumn('status', 'text', (c) => c.notNull())
        .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('next_attempt_at', ts, (c) => c.notNull())
        .addColumn('locked_until', ts)
        .addColumn('last_status_code', 'integer')
        .addColumn('last_error', 'text')
        .addColumn('response_excerpt', 'text')
        .addColumn('created_at', ts, (c) => c.notNull())
        .addColumn('delivered_at', ts)
        .execute();
      // The dispatcher's claim (due pending rows) and each endpoint's order (its oldest pending row first); ids are UUIDv7, in creation order.
      await db.schema.createIndex('webhook_deliveries_pending_due').on('webhook_deliveries').columns(['status', 'next_attempt_at']).execute();
      await db.schema.createIndex('webhook_deliveries_endpoint_order').on('webhook_deliveries').columns(['webhook_id', 'status', 'id']).execute();
      // The delivery log, newest first.
      await db.schema.createIndex('webhook_deliveries_endpoint_log').on('webhook_deliveries').columns(['webhook_id', 'created_at']).execute();
    },
  };
}
