import { type Kysely, sql } from 'kysely';
import type { Dialect } from '../index.js';

/**
 * Issue 39, items 3 and 4.
 *
 * One order across instances: the event log's position (`activity_log.seq`, assigned under the log's
 * lock, so dense and committed in order: migration 002, db/activity.ts) is the only order of changes.
 * The activity log is listed by it (newest first) instead of by `created_at`, a time each instance
 * takes from its own clock before its commit; its indexes lead with `seq` where they led with
 * `created_at`. A webhook event carries its change's position (`webhook_events.seq`) and each
 * delivery its event's (`webhook_deliveries.seq`): events are fanned out, and each endpoint's queue
 * claimed, by (seq, id), no longer by the id (UUIDv7, the writing instance's clock). Rows written
 * before have seq 0: they come first, in their old order (id).
 *
 * A crashed instance's work resumes at once: a claim (of deliveries, of emails) carries its own id
 * (`claim_id`), and the instance that holds it renews its short lease by that id while it works
 * (webhooks/dispatcher.ts, mail/dispatcher.ts; src/lease-heartbeat.ts); an attempt records its
 * outcome only under its own claim, so a renewal never makes it lose its claim.
 */
export function commitOrder(dialect: Dialect) {
  const position = dialect === 'postgres' ? 'bigint' : 'integer';
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema.alterTable('webhook_events').addColumn('seq', position, (c) => c.notNull().defaultTo(0)).execute();
      await db.schema.dropIndex('webhook_events_to_fan_out').execute();
      await db.schema.createIndex('webhook_events_to_fan_out').on('webhook_events').columns(['seq', 'id']).where(sql.ref('endpoint_ids'), 'is not', null).execute();

      await db.schema.alterTable('webhook_deliveries').addColumn('seq', position, (c) => c.notNull().defaultTo(0)).execute();
      await db.schema.alterTable('webhook_deliveries').addColumn('claim_id', 'text').execute();
      await db.schema.dropIndex('webhook_deliveries_endpoint_order').execute();
      await db.schema.createIndex('webhook_deliveries_endpoint_order').on('webhook_deliveries').columns(['webhook_id', 'status', 'seq', 'id']).execute();

      await db.schema.alterTable('outbox').addColumn('claim_id', 'text').execute();
      // The heartbeat's renewal finds its claims' rows through these: only rows under a claim are in them, a few.
      await db.schema.createIndex('webhook_deliveries_claim').on('webhook_deliveries').column('claim_id').where(sql.ref('claim_id'), 'is not', null).execute();
      await db.schema.createIndex('outbox_claim').on('outbox').column('claim_id').where(sql.ref('claim_id'), 'is not', null).execute();

      await db.schema.dropIndex('activity_created_at_id').execute();
      await db.schema.dropIndex('activity_entity_created_at_id').execute();
      await db.schema.dropIndex('activity_user_created_at').execute();
      await db.schema.createIndex('activity_entity_seq').on('activity_log').columns(['entity_type', 'entity_id', 'seq']).execute();
      await db.schema.createIndex('activity_user_seq').on('activity_log').columns(['user_id', 'seq']).execute();
    },
  };
}
