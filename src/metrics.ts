import client from 'prom-client';
import type { GroupCommitCounts } from './db/group-commit.js';
import type { Database } from './db/index.js';
import { nowMs } from './clock.js';

/** Histogram buckets for request durations, in seconds: from a cached answer to a large upload. */
const DURATION_BUCKETS = [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300];

export type Dependency = 'database' | 'storage' | 'realtime';

/**
 * What GET /metrics reports (Prometheus text, prom-client), one registry per running service:
 * requests by route and status with their durations, stored documents (bytes and durations), open
 * realtime streams, the process's own figures (event-loop lag, memory, GC: prom-client's defaults),
 * the PostgreSQL pool's connections, and failures of the service's dependencies.
 */
export class Metrics {
  readonly registry = new client.Registry();
  readonly httpRequests = new client.Counter({
    name: 'http_requests_total',
    help: 'HTTP requests answered, by method, route (its pattern) and status',
    labelNames: ['method', 'route', 'status'] as const,
    registers: [this.registry],
  });
  readonly httpDuration = new client.Histogram({
    name: 'http_request_duration_seconds',
    help: 'Time from a request to its answer, by method, route and status',
    labelNames: ['method', 'route', 'status'] as const,
    buckets: DURATION_BUCKETS,
    registers: [this.registry],
  });
  readonly uploadBytes = new client.Counter({
    name: 'upload_bytes_total',
    help: 'Bytes of documents stored by POST /api/upload, by document type',
    labelNames: ['type'] as const,
    registers: [this.registry],
  });
  readonly uploadDuration = new client.Histogram({
    name: 'upload_duration_seconds',
    help: 'Duration of successful uploads (request to answer), by document type; its _count is the number of documents stored',
    labelNames: ['type'] as const,
    buckets: DURATION_BUCKETS,
    registers: [this.registry],
  });
  readonly sseStreams = new client.Gauge({ name: 'sse_open_streams', help: 'Realtime (SSE) streams open now', registers: [this.registry] });
  readonly dependencyErrors = new client.Counter({
    name: 'dependency_errors_total',
    help: 'Failures of a dependency: readiness checks that failed, PostgreSQL connections that failed while idle',
    labelNames: ['dependency'] as const,
    registers: [this.registry],
  });

  constructor(database: Database) {
    client.collectDefaultMetrics({ register: this.registry });
    for (const dependency of ['database', 'storage', 'realtime'] as const) this.dependencyErrors.inc({ dependency }, 0);
    const pool = database.pool;
    if (!pool) return;
    new client.Gauge({
      name: 'db_pool_connections',
      help: 'PostgreSQL pool connections by state (total, idle) and requests waiting for one',
      labelNames: ['state'] as const,
      registers: [this.registry],
      collect() {
        this.set({ state: 'total' }, pool.total());
        this.set({ state: 'idle' }, pool.idle());
        this.set({ state: 'waiting' }, pool.waiting());
      },
    });
    let counted = 0;
    const errors = this.dependencyErrors;
    // Counted when scraped: the pool's listener (src/db) knows nothing of metrics.
    const sync = () => {
      const now = pool.idleErrors();
      if (now > counted) errors.inc({ dependency: 'database' }, now - counted);
      counted = now;
    };
    this.#beforeScrape.push(sync);
  }

  readonly #beforeScrape: (() => void)[] = [];

  /** The outbox's due emails (count, and the age of the oldest): a growing backlog means SMTP is failing. */
  watchMailBacklog(backlog: () => Promise<{ count: number; oldestDueAt: string | null }>): void {
    new client.Gauge({
      name: 'mail_backlog',
      help: 'Emails due and not yet sent (count), and how long the oldest has waited (seconds)',
      labelNames: ['measure'] as const,
      registers: [this.registry],
      async collect() {
        const { count, oldestDueAt } = await backlog();
        this.set({ measure: 'count' }, count);
        this.set({ measure: 'oldest_seconds' }, oldestDueAt ? Math.max(0, (nowMs() - Date.parse(oldestDueAt)) / 1000) : 0);
      },
    });
  }

  /** The webhook outbox: deliveries by endpoint and status, and how long the oldest pending one has waited. */
  watchWebhooks(stats: () => Promise<{ counts: { webhookId: string; status: string; n: number }[]; oldestPendingAt: string | null }>): void {
    let latest: ReturnType<typeof stats> | undefined;
    // Both gauges read one query per scrape.
    const read = () => (latest ??= stats().finally(() => setImmediate(() => (latest = undefined))));
    new client.Gauge({
      name: 'webhook_deliveries',
      help: 'Webhook deliveries in the outbox and its log, by endpoint (webhook id) and status (pending, delivered, failed)',
      labelNames: ['webhook', 'status'] as const,
      registers: [this.registry],
      async collect() {
        const { counts } = await read();
        this.reset();
        for (const c of counts) this.set({ webhook: c.webhookId, status: c.status }, c.n);
      },
    });
    new client.Gauge({
      name: 'webhook_outbox_oldest_pending_seconds',
      help: 'How long the oldest pending webhook delivery has waited (0 when none is pending)',
      registers: [this.registry],
      async collect() {
        const { oldestPendingAt } = await read();
        this.set(oldestPendingAt ? Math.max(0, (nowMs() - Date.parse(oldestPendingAt)) / 1000) : 0);
      },
    });
  }

  /** The group commit (db/group-commit.ts): transactions against units shows how many uploads share a commit. */
  watchGroupCommit(counts: Readonly<GroupCommitCounts>): void {
    // Read from the writer's own counts when scraped (it knows nothing of metrics).
    const counter = (name: string, help: string, read: () => number) =>
      new client.Counter({ name, help, registers: [this.registry], collect() { this.reset(); this.inc(read()); } });
    counter('group_commit_units_total', "Units of work (an upload's record; its name reservation on SQLite) committed through the group commit", () => counts.units);
    counter('group_commit_transactions_total', 'Transactions the group commit began: one per batch, and one per unit run again alone after its batch failed', () => counts.transactions);
    counter('group_commit_retried_alone_total', "Units run again in a transaction of their own after their batch's transaction failed", () => counts.retriedAlone);
    new client.Gauge({ name: 'group_commit_largest_batch', help: 'The most units one group-commit transaction has held since start', registers: [this.registry], collect() { this.set(counts.largestBatch); } });
  }

  /** The text a scrape gets. */
  async scrape(): Promise<string> {
    for (const f of this.#beforeScrape) f();
    return this.registry.metrics();
  }

  /**
   * For the realtime route: call when a stream opens; call what it returns when the stream closes
   * (any number of times: only the first counts).
   */
  streamOpened(): () => void {
    this.sseStreams.inc();
    let open = true;
    return () => {
      if (open) this.sseStreams.dec();
      open = false;
    };
  }
}

