import type { Selectable } from 'kysely';
import type { DeliveryStatus, WebhookDelivery, WebhookEvent } from '../domain/webhooks.js';
import type { DB, Dialect } from './index.js';
import { reusable } from './reusable.js';
import type { WebhookDeliveriesTable } from './schema.js';

/** What every change with a listening endpoint writes in its transaction, compiled once (reusable.ts). */
const hot = {
  event: reusable((db, id: string, type: string, payload: string, createdAt: string) =>
    db.insertInto('webhook_events').values({ id, event_type: type, payload, created_at: createdAt }),
  ),
  delivery: reusable((db, id: string, webhookId: string, eventId: string, type: string, createdAt: string) =>
    db.insertInto('webhook_deliveries').values({
      id,
      webhook_id: webhookId,
      event_id: eventId,
      event_type: type,
      status: 'pending',
      attempts: 0,
      next_attempt_at: createdAt,
      created_at: createdAt,
    }),
  ),
};

const parseJson = (v: unknown): unknown => (typeof v === 'string' ? JSON.parse(v) : v);

const toDelivery = (r: Selectable<WebhookDeliveriesTable>): WebhookDelivery => ({
  id: r.id,
  webhookId: r.webhook_id,
  eventId: r.event_id,
  eventType: r.event_type,
  status: r.status as DeliveryStatus,
  attempts: Number(r.attempts),
  nextAttemptAt: r.next_attempt_at,
  lockedUntil: r.locked_until,
  lastStatusCode: r.last_status_code === null ? null : Number(r.last_status_code),
  lastError: r.last_error,
  responseExcerpt: r.response_excerpt,
  createdAt: r.created_at,
  deliveredAt: r.delivered_at,
});

/** A delivery to queue: its id and its endpoint. */
export interface NewDelivery {
  id: string;
  webhookId: string;
}

/** What an attempt found: the status code (none when no answer came), the error, the answer's excerpt. */
export interface AttemptOutcome {
  statusCode: number | null;
  error: string | null;
  excerpt: string | null;
}

/**
 * The webhook outbox (migrations 020, 022): each event written once (webhook_events) and a delivery
 * per endpoint, in the change's transaction; claimed by dispatchers one endpoint at a time, in order.
 */
export function webhookDeliveriesRepo(db: DB, dialect: Dialect) {
  return {
    /** An event and its deliveries (at least one: an event nobody is sent is not kept). */
    async queue(event: WebhookEvent, deliveries: NewDelivery[]): Promise<void> {
      if (!deliveries.length) return;
      await db.executeQuery(hot.event(db, dialect, event.id, event.type, JSON.stringify(event.payload), event.createdAt));
      // A statement per delivery: the same text each time, whatever the number of endpoints.
      for (const r of deliveries) await db.executeQuery(hot.delivery(db, dialect, r.id, r.webhookId, event.id, event.type, event.createdAt));
    },

    /** The events these deliveries send, by id. */
    async events(ids: readonly string[]): Promise<Map<string, WebhookEvent>> {
      const found = new Map<string, WebhookEvent>();
      if (!ids.length) return found;
      const rows = await db.selectFrom('webhook_events').selectAll().where('id', 'in', [...new Set(ids)]).execute();
      for (const r of rows) found.set(r.id, { id: r.id, type: r.event_type, payload: parseJson(r.payload), createdAt: r.created_at });
      return found;
    },

    /**
     * Claims up to `limit` deliveries until `leaseUntil` and counts the attempt: of each active
     * endpoint only its oldest pending delivery (a later one waits while an earlier one is pending,
     * in flight or waiting for its retry), and only once due and not leased. The oldest pending one is
     * found per endpoint (`webhook_deliveries_endpoint_order`), so a claim reads a row or two per
     * endpoint however long the backlog. PostgreSQL: SKIP LOCKED, so instances claiming at once take
     * different rows; SQLite: one statement under its single writer.
     */
    async claim(now: string, leaseUntil: string, limit: number): Promise<WebhookDelivery[]> {
      const rows = await db
        .updateTable('webhook_deliveries')
        .set((eb) => ({ locked_until: leaseUntil, attempts: eb('attempts', '+', 1) }))
        .where('id', 'in', (eb) =>
          eb
            .selectFrom('webhooks as w')
            .innerJoin('webhook_deliveries as d', (join) =>
              join.on('d.id', '=', (j) =>
                j.selectFrom('webhook_deliveries as e').select((m) => m.fn.min('e.id').as('first')).whereRef('e.webhook_id', '=', 'w.id').where('e.status', '=', 'pending'),
              ),
            )
            .select('d.id')
            .where('w.active', '=', true)
            .where('d.next_attempt_at', '<=', now)
            .where((w) => w.or([w('d.locked_until', 'is', null), w('d.locked_until', '<', now)]))
            .orderBy('d.next_attempt_at')
            .limit(limit)
            .$if(dialect === 'postgres', (q) => q.forUpdate('d').skipLocked()),
        )
        // SQLite: one statement under its single writer, the lease checked again; the status is not
        // (its index would lead the planner to read every pending row instead of the few ids chosen).
        .$if(dialect === 'postgres', (q) => q.where('status', '=', 'pending'))
        .where((w) => w.or([w('locked_until', 'is', null), w('locked_until', '<', now)]))
        .returningAll()
        .execute();
      return rows.map(toDelivery);
    },

    /** The attempt under `lease` succeeded (nothing is written when the claim was lost meanwhile: lapsed, or a manual retry). */
    async delivered(id: string, lease: string, now: string, outcome: AttemptOutcome): Promise<void> {
      await db
        .updateTable('webhook_deliveries')
        .set({ status: 'delivered', delivered_at: now, locked_until: null, last_status_code: outcome.statusCode, last_error: null, response_excerpt: outcome.excerpt })
        .where('id', '=', id)
        .where('locked_until', '=', lease)
        .execute();
    },

    /** A failed attempt under `lease`: released, due again at `nextAttemptAt`. */
    async retryAt(id: string, lease: string, nextAttemptAt: string, outcome: AttemptOutcome): Promise<void> {
      await db
        .updateTable('webhook_deliveries')
        .set({ next_attempt_at: nextAttemptAt, locked_until: null, last_status_code: outcome.statusCode, last_error: outcome.error, response_excerpt: outcome.excerpt })
        .where('id', '=', id)
        .where('locked_until', '=', lease)
        .execute();
    },

    /** The endpoint was switched off for failing: what it still had to receive is given up. */
    async failPending(webhookId: string, error: string): Promise<void> {
      await db.updateTable('webhook_deliveries').set({ status: 'failed', locked_until: null, last_error: error }).where('webhook_id', '=', webhookId).where('status', '=', 'pending').execute();
    },

    /** An endpoint's deliveries, newest first; `before` is the id the previous page ended with. */
    async list(webhookId: string, limit: number, before?: string): Promise<WebhookDelivery[]> {
      const rows = await db
        .selectFrom('webhook_deliveries')
        .selectAll()
        .where('webhook_id', '=', webhookId)
        .$if(before !== undefined, (q) => q.where('id', '<', before!))
        .orderBy('id', 'desc')
        .limit(limit)
        .execute();
      return rows.map(toDelivery);
    },

    async findById(webhookId: string, id: string): Promise<WebhookDelivery | undefined> {
      const row = await db.selectFrom('webhook_deliveries').selectAll().where('webhook_id', '=', webhookId).where('id', '=', id).executeTakeFirst();
      return row && toDelivery(row);
    },

    /** A manual retry: the delivery is pending again, due now, its lease dropped (an attempt in flight then records nothing). */
    async retryNow(webhookId: string, id: string, now: string): Promise<WebhookDelivery | undefined> {
      const row = await db
        .updateTable('webhook_deliveries')
        .set({ status: 'pending', next_attempt_at: now, delivered_at: null, locked_until: null })
        .where('webhook_id', '=', webhookId)
        .where('id', '=', id)
        .returningAll()
        .executeTakeFirst();
      return row && toDelivery(row);
    },

    /** For /metrics: deliveries by endpoint and status, and when the oldest pending one was written. */
    async stats(): Promise<{ counts: { webhookId: string; status: string; n: number }[]; oldestPendingAt: string | null }> {
      const counts = await db
        .selectFrom('webhook_deliveries')
        .select((eb) => ['webhook_id', 'status', eb.fn.countAll<number>().as('n')])
        .groupBy(['webhook_id', 'status'])
        .execute();
      const oldest = await db.selectFrom('webhook_deliveries').select((eb) => eb.fn.min('created_at').as('oldest')).where('status', '=', 'pending').executeTakeFirst();
      return {
        counts: counts.map((c) => ({ webhookId: c.webhook_id, status: c.status, n: Number(c.n) })),
        oldestPendingAt: (oldest?.oldest as string | null | undefined) ?? null,
      };
    },

    /** Delivered rows older than `before` go, and the events no delivery sends any more (failed ones stay for inspection). */
    async deleteDelivered(before: string): Promise<void> {
      await db.deleteFrom('webhook_deliveries').where('status', '=', 'delivered').where('created_at', '<', before).execute();
      await db
        .deleteFrom('webhook_events')
        .where('created_at', '<', before)
        .where((w) => w.not(w.exists(w.selectFrom('webhook_deliveries as d').select('d.id').whereRef('d.event_id', '=', 'webhook_events.id'))))
        .execute();
    },
  };
}

