import { forgetEndedWindows } from './actions/attempts.js';
import { queueDueDigests } from './actions/due-digest.js';
import type { Deps } from './deps.js';
import type { Log } from './logger.js';
import type { StreamHub } from './realtime/streams.js';
import { type ResumableStore, createResumableStore } from './storage/index.js';
import { type ReconcileReport, isClean, reconcile, summarize } from './storage/reconcile.js';
import { IDEMPOTENCY_TTL_MS } from './uploads/idempotency.js';
import { nowMs } from './clock.js';

/** A task the service repeats on its own while it runs. */
export interface Job {
  /** What it does, in words: a failed round is logged as `<name> failed`. */
  name: string;
  /** The wait from the end of one round to the start of the next: rounds of one job never overlap. */
  everyMs: number;
  /** Whether the first round runs at start; otherwise it comes after `everyMs`. */
  atStart: boolean;
  /** One round. `signal` aborts when the service stops: a long round ends between its steps. */
  run(signal: AbortSignal): Promise<unknown>;
}

/** What the service's jobs work on besides its dependencies. */
export interface JobParts {
  /** This process's realtime streams, whose sessions the sweep checks. */
  streams: Pick<StreamHub, 'sweep'>;
  /** Told the first reconciliation's report (null when it failed). */
  onReconciled?(report: ReconcileReport | null): void;
}

/** Sent and dropped emails stay this long in the outbox (failed ones stay for inspection). */
const SENT_MAIL_KEPT_MS = 30 * 24 * 3_600_000;
/** Due-date digest claims stay this long (only today's are read: by the wall clock, a claim a week old is never today's). */
const DIGEST_CLAIMS_KEPT_MS = 7 * 24 * 3_600_000;

/** Delivered webhooks stay this long in the delivery log (failed ones stay until retried or their endpoint is deleted). */
const DELIVERED_WEBHOOKS_KEPT_MS = 30 * 24 * 3_600_000;

const iso = (ms: number) => new Date(ms).toISOString();

/**
 * Every periodic job of the service, with its interval (the settings are in config.ts and
 * docs/operations.md). startService runs them with a {@link JobRunner} from start-up to close.
 */
export function serviceJobs(deps: Deps, parts: JobParts): Job[] {
  const { config, store } = deps;
  /** Removes what has run out, at start-up (an instance back after a long stop) and every PRUNE_INTERVAL_MS. */
  const prune = (name: string, work: (nowMs: number) => Promise<unknown>): Job => ({ name, everyMs: config.pruneIntervalMs, atStart: true, run: () => work(nowMs()) });
  return [
    ...reconciliation(deps, parts.onReconciled),
    { name: 'mail dispatch', everyMs: config.mail.pollMs, atStart: true, run: (signal) => deps.mail.round(signal) },
    ...(config.dueDigest ? [{ name: 'due-date digest', everyMs: config.dueDigest.checkMs, atStart: true, run: (signal: AbortSignal) => queueDueDigests(deps, signal) }] : []),
    { name: 'webhook dispatch', everyMs: config.webhooks.pollMs, atStart: true, run: (signal) => deps.webhooks.round(signal) },
    { name: 'realtime session sweep', everyMs: config.realtimeStreams.sweepMs, atStart: false, run: () => parts.streams.sweep() },
    prune('session pruning', (now) => store.sessions.deleteExpired(iso(now))),
    prune('reset-link pruning', (now) => store.passwordResets.deleteExpired(iso(now))),
    prune('login-failure pruning', (now) => forgetEndedWindows(deps, now)),
    prune('upload-lock pruning', (now) => store.uploadLocks.deleteExpired(now)),
    prune('idempotency-key expiry', (now) => store.idempotencyKeys.deleteExpired(iso(now - IDEMPOTENCY_TTL_MS))),
    prune('outbox pruning', (now) => store.outbox.deleteFinished(iso(now - SENT_MAIL_KEPT_MS))),
    prune('resumable upload expiry', resumableExpiry(deps)),
    prune('due-digest claim pruning', (now) => store.dueDigests.deleteClaimedBefore(iso(now - DIGEST_CLAIMS_KEPT_MS))),
    prune('webhook delivery pruning', (now) => store.webhookDeliveries.deleteDelivered(iso(now - DELIVERED_WEBHOOKS_KEPT_MS))),
  ];
}

/**
 * The reconciler (RECONCILE_ON_START): at start-up, in the background, so a crash's leftovers go
 * without delaying readiness, and again every RECONCILE_GRACE_MS (at least a minute): what was too
 * young to judge at start-up (a crash just before it) is judged on the next round. Only the first
 * round's clean report is logged.
 */
function reconciliation(deps: Deps, onReconciled: JobParts['onReconciled']): Job[] {
  const { onStart, graceMs } = deps.config.reconcile;
  if (onStart === 'off') return [];
  let first = true;
  return [
    {
      name: 'storage reconciliation',
      everyMs: Math.max(60_000, graceMs),
      atStart: true,
      async run(signal) {
        const isFirst = first;
        first = false;
        let report: ReconcileReport | null = null;
        try {
          report = await reconcile(deps, { repair: onStart === 'repair', graceMs, signal });
        } finally {
          if (isFirst) onReconciled?.(report);
        }
        if (!isClean(report) || report.voidedDeleted.length) deps.log.warn({ reconcile: report }, summarize(report));
        else if (isFirst) deps.log.info({ reconcile: report }, summarize(report));
      },
    },
  ];
}

/**
 * Unfinished resumable uploads past RESUMABLE_UPLOAD_EXPIRY_HOURS: their bytes, through the
 * driver's resumable store as any instance sharing them would, then their rows.
 */
function resumableExpiry(deps: Deps): (nowMs: number) => Promise<void> {
  let bytes: Promise<ResumableStore> | undefined;
  return async (nowMs) => {
    bytes ??= createResumableStore(deps.config).catch((err: unknown) => {
      bytes = undefined; // made again on the next round
      throw err;
    });
    const { datastore } = await bytes;
    if (datastore.hasExtension('expiration')) await datastore.deleteExpired();
    await deps.store.resumableUploads.deleteUnfinished(iso(nowMs - deps.config.resumableExpiryMs));
  };
}

/** One job's rounds so far (for tests and operators). */
export interface JobStatus {
  name: string;
  everyMs: number;
  rounds: number;
  failures: number;
  running: boolean;
}

interface Scheduled {
  job: Job;
  timer?: NodeJS.Timeout;
  round?: Promise<void>;
  rounds: number;
  failures: number;
}

/**
 * Runs jobs from start() to stop(), each on its own: a round starts `everyMs` after the previous
 * one ended (never two at once), a failed round is logged and the job runs again next time
 * (nothing a job throws reaches the process), the timers keep no process alive, and stop() waits
 * for the rounds under way (told to end by their signal).
 */
export class JobRunner {
  readonly #scheduled: Scheduled[];
  readonly #stopping = new AbortController();

  constructor(
    jobs: Job[],
    private readonly log: Log,
  ) {
    this.#scheduled = jobs.map((job) => ({ job, rounds: 0, failures: 0 }));
  }

  start(): void {
    for (const s of this.#scheduled) {
      if (s.job.atStart) this.#run(s);
      else this.#schedule(s);
    }
  }

  /** Starts no more rounds and waits for the ones under way. */
  async stop(): Promise<void> {
    this.#stopping.abort();
    for (const s of this.#scheduled) clearTimeout(s.timer);
    await Promise.all(this.#scheduled.map((s) => s.round));
  }

  status(): JobStatus[] {
    return this.#scheduled.map(({ job, rounds, failures, round }) => ({ name: job.name, everyMs: job.everyMs, rounds, failures, running: round !== undefined }));
  }

  #schedule(s: Scheduled): void {
    if (this.#stopping.signal.aborted) return;
    s.timer = setTimeout(() => this.#run(s), s.job.everyMs);
    s.timer.unref();
  }

  #run(s: Scheduled): void {
    const { signal } = this.#stopping;
    s.round = (async () => {
      try {
        await s.job.run(signal);
      } catch (err) {
        s.failures++;
        // A round cut short by the stop is no failure worth a line.
        if (!signal.aborted) this.log.error({ err, job: s.job.name }, `${s.job.name} failed`);
      } finally {
        s.rounds++;
      }
    })().finally(() => {
      s.round = undefined;
      this.#schedule(s);
    });
  }
}
