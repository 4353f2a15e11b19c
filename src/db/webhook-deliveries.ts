import { type Selectable, sql } from 'kysely';
import type { DeliveryStatus, WebhookDelivery, WebhookEvent } from '../domain/webhooks.js';
import type { DB, Dialect } from './index.js';
import { reusable } from './reusable.js';
import type { WebhookDeliveriesTable } from './schema.js';

/** What every change with a listening endpoint writes in its transaction, compiled once (reusable.ts). */
const hot = {
  event: reusable((db, id: string, type: string, payload: string, createdAt: string, endpointIds: string | null, seq: number) =>
    db.insertInto('webhook_events').values({ id, event_type: type, payload, created_at: createdAt, endpoint_ids: endpointIds, seq }),
  ),
};

/** Rows per insert when deliveries are made: well under SQLite's and PostgreSQL's limits on bound parameters. */
const DELIVERIES_PER_INSERT = 500;

const parseJson = (v: unknown): unknown => (typeof v === 'string' ? JSON.parse(v) : v);

const toDelivery = (r: Selectable<WebhookDeliveriesTable>): WebhookDelivery => ({
  id: r.id,
  webhookId: r.webhook_id,
  eventId: r.event_id,
  eventType: r.event_type,
  status: r.status as DeliveryStatus,
  attempts: Number(r.attempts),
  nextAttemptAt: r.next_attempt_at,
  seq: Number(r.seq),
  lockedUntil: r.locked_until,
  claimId: r.claim_id,
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

/** Any number the instances share: the PostgreSQL advisory lock a fan-out holds (see fanOut). */
const FAN_OUT_LOCK = 0x5745_4248; // "WEBH"

/**
 * The webhook outbox (migrations 020, 022, 023): each event written once (webhook_events) in the
 * change's transaction, with the endpoints it goes to; a delivery per endpoint made behind it, in
 * event order (fanOut); claimed by dispatchers one endpoint at a time, in order.
 */
export function webhookDeliveriesRepo(db: DB, dialect: Dialect) {
  /** Pending deliveries, due at once, a few hundred rows to a statement. */
  const insertDeliveries = async (rows: { id: string; webhookId: string; event: { id: string; type: string; createdAt: string; seq: number } }[]) => {
    for (let at = 0; at < rows.length; at += DELIVERIES_PER_INSERT) {
      await db
        .insertInto('webhook_deliveries')
        .values(
          rows.slice(at, at + DELIVERIES_PER_INSERT).map(({ id, webhookId, event }) => ({
            id,
            webhook_id: webhookId,
            event_id: event.id,
            event_type: event.type,
            status: 'pending',
            attempts: 0,
            next_attempt_at: event.createdAt,
            created_at: event.createdAt,
            seq: event.seq,
          })),
        )
        .execute();
    }
  };
  return {
    /**
     * A change's event, for these endpoints (at least one: an event nobody is sent is not kept); fanOut
     * makes their deliveries. `seq`: the change's position in the event log, written in the same
     * transaction (under the log's lock): the events' order.
     */
    async queueEvent(event: WebhookEvent, endpointIds: readonly string[], seq: number): Promise<void> {
      if (!endpointIds.length) return;
      await db.executeQuery(hot.event(db, dialect, event.id, event.type, JSON.stringify(event.payload), event.createdAt, JSON.stringify(endpointIds), seq));
    },

    /**
     * An event and its deliveries at once (a test event: its delivery's id is answered). It has no
     * change of its own: it takes the log's newest committed position, so its endpoint gets it after
     * the changes already committed.
     */
    async queue(event: WebhookEvent, deliveries: NewDelivery[]): Promise<void> {
      if (!deliveries.length) return;
      const latest = await db.selectFrom('activity_log').select((eb) => eb.fn.max('seq').as('seq')).executeTakeFirst();
      const seq = Number(latest?.seq ?? 0);
      await db.executeQuery(hot.event(db, dialect, event.id, event.type, JSON.stringify(event.payload), event.createdAt, null, seq));
      await insertDeliveries(deliveries.map((r) => ({ ...r, event: { ...event, seq } })));
    },

    /** Whether an event waits for its deliveries to be made (fanOut): one row of a partial index, no lock. */
    async anyToFanOut(): Promise<boolean> {
      return (await db.selectFrom('webhook_events').select('id').where('endpoint_ids', 'is not', null).limit(1).executeTakeFirst()) !== undefined;
    },

    /**
     * Makes the deliveries of up to `limit` events still to fan out, in the event log's order (seq),
     * and marks them done; the number of events. Run it in a transaction. A delivery carries its
     * event's position (seq): its place in its endpoint's queue. Events are fanned out one batch at a
     * time, on PostgreSQL under an advisory lock the instances share; each event is written in its
     * change's transaction, under the event log's lock, so events commit in their positions' order and
     * a read that sees one sees every one before it. An endpoint deleted since is skipped; one switched
     * off gets its delivery, pending until it is back on.
     */
    async fanOut(limit: number, newId: () => string): Promise<number> {
      if (dialect === 'postgres') await sql`select pg_advisory_xact_lock(${FAN_OUT_LOCK})`.execute(db);
      const events = await db
        .selectFrom('webhook_events')
        .select(['id', 'event_type', 'created_at', 'endpoint_ids', 'seq'])
        .where('endpoint_ids', 'is not', null)
        .orderBy('seq')
        .orderBy('id')
        .limit(limit)
        .execute();
      if (!events.length) return 0;
      const wanted = events.map((e) => JSON.parse(e.endpoint_ids!) as string[]);
      // PostgreSQL: the endpoints found are held (FOR KEY SHARE) so a deletion waits for this batch instead of failing it.
      const existing = new Set(
        (await db.selectFrom('webhooks').select('id').where('id', 'in', [...new Set(wanted.flat())]).$if(dialect === 'postgres', (q) => q.forKeyShare()).execute()).map((w) => w.id),
      );
      const rows = events.flatMap((e, i) =>
        wanted[i]!.filter((webhookId) => existing.has(webhookId)).map((webhookId) => ({ id: newId(), webhookId, event: { id: e.id, type: e.event_type, createdAt: e.created_at, seq: Number(e.seq) } })),
      );
      await insertDeliveries(rows);
      await db.updateTable('webhook_events').set({ endpoint_ids: null }).where('id', 'in', events.map((e) => e.id)).execute();
      return events.length;
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
     * Claims up to `limit` deliveries as `claimId` until `leaseUntil` and counts the attempt: of each
     * active endpoint only its first pending delivery in the event log's order (seq, then id: a later
     * one waits while an earlier one is pending, in flight or waiting for its retry), and only once due
     * and not leased. The first pending one is found per endpoint (`webhook_deliveries_endpoint_order`),
     * so a claim reads a row or two per endpoint however long the backlog. PostgreSQL: SKIP LOCKED, so
     * instances claiming at once take different rows; SQLite: one statement under its single writer.
     * The claim's holder renews the lease by `claimId` while it works (renew).
     */
    async claim(now: string, leaseUntil: string, limit: number, claimId: string): Promise<WebhookDelivery[]> {
      const rows = await db
        .updateTable('webhook_deliveries')
        .set((eb) => ({ locked_until: leaseUntil, claim_id: claimId, attempts: eb('attempts', '+', 1) }))
        .where('id', 'in', (eb) =>
          eb
            .selectFrom('webhooks as w')
            .innerJoin('webhook_deliveries as d', (join) =>
              join.on('d.id', '=', (j) =>
                j
                  .selectFrom('webhook_deliveries as e')
                  .select('e.id')
                  .whereRef('e.webhook_id', '=', 'w.id')
                  .where('e.status', '=', 'pending')
                  .orderBy('e.seq')
                  .orderBy('e.id')
                  .limit(1),
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

    /**
     * Extends the claim of an endpoint's first pending delivery (`head`, just claimed) over up to
     * `limit` of the pending ones that follow it in the endpoint's order, stopping before the first
     * one that is leased or not yet due, so the claim holds a run without a gap; their attempts are
     * counted. Nobody else claims them meanwhile: an endpoint's queue is claimed through its first
     * row, which this claim holds. In the endpoint's order.
     */
    async claimFollowing(head: WebhookDelivery, limit: number, now: string, leaseUntil: string): Promise<WebhookDelivery[]> {
      if (limit <= 0 || !head.claimId) return [];
      const after = sql<boolean>`(seq > ${head.seq} or (seq = ${head.seq} and id > ${head.id}))`;
      const rows = await db
        .updateTable('webhook_deliveries')
        .set((eb) => ({ locked_until: leaseUntil, claim_id: head.claimId, attempts: eb('attempts', '+', 1) }))
        .where('id', 'in', (eb) =>
          eb
            .selectFrom('webhook_deliveries')
            .select('id')
            .where('webhook_id', '=', head.webhookId)
            .where('status', '=', 'pending')
            .where(after)
            // Before the first that may not go now (a seq shared with it stops the run there too).
            .where(
              'seq',
              '<',
              sql<number>`coalesce((${eb
                .selectFrom('webhook_deliveries')
                .select((b) => b.fn.min('seq').as('s'))
                .where('webhook_id', '=', head.webhookId)
                .where('status', '=', 'pending')
                .where(after)
                .where((b) => b.or([b('next_attempt_at', '>', now), b.and([b('locked_until', 'is not', null), b('locked_until', '>=', now)])]))}), ${Number.MAX_SAFE_INTEGER})`,
            )
            .orderBy('seq')
            .orderBy('id')
            .limit(limit),
        )
        .where('status', '=', 'pending')
        .returningAll()
        .execute();
      return rows.map(toDelivery).sort((a, b) => a.seq - b.seq || (a.id < b.id ? -1 : 1));
    },

    /**
     * Attempts under `claimId` that succeeded, recorded in one statement, each with its own time,
     * status code and excerpt (nothing is written for one whose claim was lost meanwhile).
     */
    async deliveredMany(claimId: string, done: readonly { id: string; at: string; outcome: AttemptOutcome }[]): Promise<void> {
      if (!done.length) return;
      const ts = sql.raw(dialect === 'postgres' ? 'timestamptz' : 'text');
      const each = <T>(value: (d: (typeof done)[number]) => unknown, type: typeof ts) =>
        sql<T>`case ${sql.join(
          done.map((d) => sql`when id = ${d.id} then cast(${value(d)} as ${type})`),
          sql` `,
        )} end`;
      await db
        .updateTable('webhook_deliveries')
        .set({
          status: 'delivered',
          locked_until: null,
          claim_id: null,
          last_error: null,
          delivered_at: each<string>((d) => d.at, ts),
          last_status_code: each<number>((d) => d.outcome.statusCode, sql.raw('integer')),
          response_excerpt: each<string>((d) => d.outcome.excerpt, sql.raw('text')),
        })
        .where('id', 'in', done.map((d) => d.id))
        .where('claim_id', '=', claimId)
        .execute();
    },

    /** Claimed deliveries that were not attempted after all (an earlier one failed, or the service stops): free again, their attempt not counted. */
    async release(claimId: string, ids: readonly string[]): Promise<void> {
      if (!ids.length) return;
      await db
        .updateTable('webhook_deliveries')
        .set((eb) => ({ locked_until: null, claim_id: null, attempts: eb('attempts', '-', 1) }))
        .where('id', 'in', [...ids])
        .where('claim_id', '=', claimId)
        .where('status', '=', 'pending')
        .execute();
    },

    /** The attempt under `claimId` succeeded (nothing is written when the claim was lost meanwhile: lapsed and taken, or a manual retry). */
    async delivered(id: string, claimId: string, now: string, outcome: AttemptOutcome): Promise<void> {
      await db
        .updateTable('webhook_deliveries')
        .set({ status: 'delivered', delivered_at: now, locked_until: null, claim_id: null, last_status_code: outcome.statusCode, last_error: null, response_excerpt: outcome.excerpt })
        .where('id', '=', id)
        .where('claim_id', '=', claimId)
        .execute();
    },

    /** A failed attempt under `claimId`: released, due again at `nextAttemptAt`. */
    async retryAt(id: string, claimId: string, nextAttemptAt: string, outcome: AttemptOutcome): Promise<void> {
      await db
        .updateTable('webhook_deliveries')
        .set({ next_attempt_at: nextAttemptAt, locked_until: null, claim_id: null, last_status_code: outcome.statusCode, last_error: outcome.error, response_excerpt: outcome.excerpt })
        .where('id', '=', id)
        .where('claim_id', '=', claimId)
        .execute();
    },

    /** The heartbeat of the claims still at work: their leases last until `leaseUntil` (a claim lost meanwhile is not renewed). */
    async renew(claimIds: readonly string[], leaseUntil: string): Promise<void> {
      if (!claimIds.length) return;
      await db.updateTable('webhook_deliveries').set({ locked_until: leaseUntil }).where('claim_id', 'in', [...claimIds]).where('status', '=', 'pending').execute();
    },

    /** The endpoint was switched off for failing: what it still had to receive is given up. */
    async failPending(webhookId: string, error: string): Promise<void> {
      await db.updateTable('webhook_deliveries').set({ status: 'failed', locked_until: null, claim_id: null, last_error: error }).where('webhook_id', '=', webhookId).where('status', '=', 'pending').execute();
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
        .set({ status: 'pending', next_attempt_at: now, delivered_at: null, locked_until: null, claim_id: null })
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
      // An event not fanned out yet is pending too (its deliveries are not made yet).
      const unmade = await db.selectFrom('webhook_events').select('created_at').where('endpoint_ids', 'is not', null).orderBy('id').limit(1).executeTakeFirst();
      const times = [oldest?.oldest as string | null | undefined, unmade?.created_at].filter((t): t is string => typeof t === 'string');
      return {
        counts: counts.map((c) => ({ webhookId: c.webhook_id, status: c.status, n: Number(c.n) })),
        oldestPendingAt: times.length ? times.reduce((a, b) => (Date.parse(a) <= Date.parse(b) ? a : b)) : null,
      };
    },

    /** Delivered rows older than `before` go, and the events no delivery sends any more (failed ones stay for inspection). */
    async deleteDelivered(before: string): Promise<void> {
      await db.deleteFrom('webhook_deliveries').where('status', '=', 'delivered').where('created_at', '<', before).execute();
      await db
        .deleteFrom('webhook_events')
        .where('created_at', '<', before)
        .where('endpoint_ids', 'is', null)
        .where((w) => w.not(w.exists(w.selectFrom('webhook_deliveries as d').select('d.id').whereRef('d.event_id', '=', 'webhook_events.id'))))
        .execute();
    },
  };
}

