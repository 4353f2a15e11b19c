import { performance } from 'node:perf_hooks';
import type { Config } from '../config.js';
import type { Store } from '../db/store.js';
import { type Webhook, type WebhookDelivery, type WebhookEvent, failedTooLong, webhookBackoffMs } from '../domain/webhooks.js';
import { newId } from '../ids.js';
import type { Log } from '../logger.js';
import { WEBHOOK_DEACTIVATED } from '../mail/dispatcher.js';
import { EventBodies } from './body.js';
import { LoopShare } from './loop-share.js';
import { type SendOutcome, postWebhook } from './send.js';
import { signatureHeader } from './signature.js';
import { LeaseHeartbeat } from '../lease-heartbeat.js';
import { nowDate, nowMs } from '../clock.js';

/**
 * While requests come in, the dispatcher takes about this share of the event loop (webhooks/loop-share.ts):
 * a body holds the project's documents, and reading, making and signing it would otherwise slow the
 * changes themselves; behind a burst it catches up at full speed.
 */
const BUSY_LOOP_SHARE = 0.03;

/** Events whose deliveries one step makes (fanOut): a burst's backlog in a few statements' worth of turns. */
const FAN_OUT_BATCH = 200;

/**
 * Deliveries of one endpoint one claim holds (its first pending one and those following it): sent
 * one after another, their successes recorded together, so a burst costs two statements per run
 * instead of two per delivery. Should the instance die mid-run, its sent but unrecorded ones are sent
 * again (at least once): at most this many, and at most RECORD_EVERY_MS' worth.
 */
const RUN = 16;
/** A run records what it delivered at least this often (a slow endpoint's run takes its time). */
const RECORD_EVERY_MS = 1000;

/**
 * Delivers the webhook outbox (the `webhook dispatch` job, jobs.ts). Before each claim it makes the
 * deliveries of the events changes wrote since (fanOut: a change writes only its event). A round claims due deliveries
 * (db/webhook-deliveries.ts claim: of each endpoint only its oldest pending one, SKIP LOCKED on
 * PostgreSQL, so instances never deliver the same one nor overtake an earlier one; claimFollowing:
 * the run of pending ones behind it), under a short lease its heartbeat renews while the run goes
 * on (lease-heartbeat.ts, WORK_LEASE_MS), sends each endpoint's run on its own, in order (a slow
 * endpoint holds only its own queue; a failure ends its run, the rest given back to wait behind
 * its retry), and claims again as each ends; the round ends when nothing is due and nothing in
 * flight, or when the service stops (the attempts in flight finish first, each bounded by the
 * timeout). A restart loses nothing: pending deliveries wait in the database, and a claim left by a
 * dead instance lapses with its lease, within seconds.
 */
export class WebhookDispatcher {
  #wake: (() => void) | undefined;
  readonly #bodies: EventBodies;
  readonly #share = new LoopShare(BUSY_LOOP_SHARE);
  readonly #leases: LeaseHeartbeat;

  constructor(
    private readonly store: Store,
    private readonly config: Pick<Config, 'webhooks' | 'timeZone' | 'documentAccess' | 'publicUrl' | 'database' | 'workLeaseMs'>,
    private readonly log: Log,
  ) {
    this.#bodies = new EventBodies(store, config, (ms) => this.#share.spent(ms));
    this.#leases = new LeaseHeartbeat((claims, until) => store.webhookDeliveries.renew(claims, until), config.workLeaseMs, log);
  }

  /** Cuts the current round's wait short (a change was just queued here, or a delivery retried). */
  nudge(): void {
    this.#wake?.();
  }

  async round(signal?: AbortSignal): Promise<void> {
    const inFlight = new Set<Promise<void>>();
    try {
      for (;;) {
        if (!signal?.aborted && inFlight.size < this.config.webhooks.concurrency) await this.#share.turn(signal);
        if (!signal?.aborted && inFlight.size < this.config.webhooks.concurrency) {
          const started = performance.now();
          await this.#fanOut();
          const claimId = newId();
          const now = nowDate().toISOString();
          const leaseUntil = this.#leases.leaseUntil();
          const round = this.#bodies.claiming();
          const runs: WebhookDelivery[][] = [];
          try {
            for (const head of await this.store.webhookDeliveries.claim(now, leaseUntil, this.config.webhooks.concurrency - inFlight.size, claimId)) {
              this.#leases.hold(claimId, 1);
              const run = [head];
              runs.push(run);
              // A retry goes alone: an endpoint that keeps failing costs one claim per attempt, and its run follows its first success.
              const following = head.attempts > 1 ? [] : await this.store.webhookDeliveries.claimFollowing(head, RUN - 1, now, leaseUntil);
              this.#leases.hold(claimId, following.length);
              run.push(...following);
            }
          } finally {
            this.#bodies.claimed(round, runs.flat().map((d) => d.eventId));
          }
          // One read of the claim's endpoints and of the events whose bodies are not made yet.
          const webhooks = await this.store.webhooks.findMany(runs.map((r) => r[0]!.webhookId));
          const events = await this.store.webhookDeliveries.events(runs.flat().filter((d) => !this.#bodies.has(d.eventId)).map((d) => d.eventId));
          // On SQLite the statements ran on the event loop; PostgreSQL's wait is not the loop's.
          this.#onLoop(started);
          for (const run of runs) {
            const attempt: Promise<void> = this.#deliverRun(run, webhooks.get(run[0]!.webhookId), events, signal)
              .catch((err: unknown) => this.log.error({ err, deliveryId: run[0]!.id }, 'a webhook delivery could not be recorded; it is tried again when its lease ends'))
              .finally(() => {
                for (let i = 0; i < run.length; i++) this.#leases.release(claimId);
                inFlight.delete(attempt);
                this.#wake?.();
              });
            inFlight.add(attempt);
          }
        }
        if (inFlight.size === 0) {
          this.#share.behind(0); // caught up
          return;
        }
        // Until a run ends (its endpoint's next may be due) or the poll interval passes (another endpoint's may be).
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, this.config.webhooks.pollMs);
          this.#wake = () => {
            clearTimeout(timer);
            resolve();
          };
        });
        this.#wake = undefined;
      }
    } catch (err) {
      // The database is away: the rows wait there; the next round tries again.
      this.log.warn({ err }, 'the webhook dispatcher could not read the outbox');
    } finally {
      await Promise.allSettled([...inFlight]);
    }
  }

  /** Database work begun at `started` is done: on SQLite it ran on the event loop, and counts against the share. */
  #onLoop(started: number): void {
    if (this.config.database.dialect === 'sqlite') this.#share.spent(performance.now() - started);
  }

  /** Makes the deliveries of the events written since (db/webhook-deliveries.ts, fanOut), a batch at a time. */
  async #fanOut(): Promise<void> {
    // Most turns find nothing to fan out: no transaction (nor, on PostgreSQL, the instances' shared lock) for them.
    if (await this.store.webhookDeliveries.anyToFanOut()) await this.store.transaction((store) => store.webhookDeliveries.fanOut(FAN_OUT_BATCH, newId));
  }

  /**
   * One endpoint's run, in its order: each sent once the one before succeeded; the successes
   * recorded together (at the end, before a failure is, and at least every RECORD_EVERY_MS). A
   * failure is recorded (retry, or the endpoint switched off) and the rest of the run given back,
   * to wait behind it; so is the rest when the service stops.
   */
  async #deliverRun(run: WebhookDelivery[], webhook: Webhook | undefined, events: Map<string, WebhookEvent>, signal?: AbortSignal): Promise<void> {
    if (!webhook) return; // deleted meanwhile: its deliveries went with it
    const claimId = run[0]!.claimId!;
    let done: { id: string; at: string; outcome: SendOutcome }[] = [];
    let recordedAt = performance.now();
    const record = async () => {
      const now = done;
      done = [];
      recordedAt = performance.now();
      await this.store.webhookDeliveries.deliveredMany(claimId, now);
      this.#onLoop(recordedAt);
    };
    let sent = 0;
    let cleared = false;
    try {
      for (const d of run) {
        // Each delivery waits its turn while requests come in, as each claim does; the further behind, the larger its share.
        if (d.attempts <= 1) this.#share.behind(nowMs() - Date.parse(d.createdAt));
        if (sent > 0) await this.#share.turn(signal);
        if (signal?.aborted) break;
        const outcome = await this.#send(d, webhook, events.get(d.eventId));
        sent++;
        const now = nowDate().toISOString();
        if (!outcome.ok) {
          await record();
          await this.#failed(d, webhook.url, outcome, now);
          break;
        }
        done.push({ id: d.id, at: now, outcome });
        const logging = performance.now();
        this.log.info({ webhookId: webhook.id, deliveryId: d.id, event: d.eventType, status: outcome.statusCode }, 'webhook delivered');
        this.#share.spent(performance.now() - logging);
        if (webhook.failingSince !== null && !cleared) {
          // Read with the claim: an endpoint that was not failing then has nothing to clear (a failure
          // recorded since by another instance is cleared by the next success seen as failing).
          await record();
          await this.store.webhooks.healthy(webhook.id);
          cleared = true;
        } else if (performance.now() - recordedAt >= RECORD_EVERY_MS) await record();
      }
      await record();
    } finally {
      if (done.length) await record();
      // Not attempted: free again at once (their lease would otherwise hold the endpoint's queue until it lapsed).
      await this.store.webhookDeliveries.release(claimId, run.slice(sent).map((d) => d.id));
    }
  }

  /** Sends one delivery (its body made once for all endpoints, signed for this one). */
  async #send(d: WebhookDelivery, webhook: Webhook, event: WebhookEvent | undefined): Promise<SendOutcome> {
    const body = await this.#bodies.body(d.eventId, event);
    const timestamp = Math.floor(nowMs() / 1000);
    const secrets = [webhook.secret];
    if (webhook.previousSecret && webhook.previousSecretExpiresAt && Date.parse(webhook.previousSecretExpiresAt) > nowMs()) secrets.push(webhook.previousSecret);
    const signing = performance.now();
    const headers = { 'webhook-id': d.eventId, 'webhook-timestamp': String(timestamp), 'webhook-signature': signatureHeader(secrets, d.eventId, timestamp, body) };
    const { timeoutMs, allowPrivateTargets } = this.config.webhooks;
    const sending = postWebhook(webhook.url, headers, body, { timeoutMs, allowPrivate: allowPrivateTargets, onLoop: (ms) => this.#share.spent(ms) });
    // Signing, and sending's writing and reading (onLoop); the wait for the endpoint is not the loop's.
    this.#share.spent(performance.now() - signing);
    return sending;
  }

  async #failed(d: WebhookDelivery, url: string, outcome: SendOutcome, now: string): Promise<void> {
    const failingSince = await this.store.webhooks.failing(d.webhookId, now);
    if (failedTooLong(failingSince, now, this.config.webhooks.deactivateAfterMs)) {
      const switchedOff = await this.store.transaction(async (store) => {
        if (!(await store.webhooks.deactivate(d.webhookId, now))) return false;
        await store.webhookDeliveries.retryAt(d.id, d.claimId!, now, outcome);
        await store.webhookDeliveries.failPending(d.webhookId, `the endpoint was switched off after failing since ${failingSince}`);
        const details = { webhookId: d.webhookId, url, failingSince, lastError: outcome.error };
        await store.outbox.queueToAdmins({ action: WEBHOOK_DEACTIVATED, actorId: 'system', at: now, details }, now, newId);
        return true;
      });
      if (switchedOff) {
        this.log.error({ webhookId: d.webhookId, failingSince, err: outcome.error }, 'webhook switched off after failing too long; the admins are emailed');
        return;
      }
    }
    const next = new Date(Date.parse(now) + webhookBackoffMs(d.attempts, this.config.webhooks.retry)).toISOString();
    await this.store.webhookDeliveries.retryAt(d.id, d.claimId!, next, outcome);
    this.log.warn({ webhookId: d.webhookId, deliveryId: d.id, event: d.eventType, attempts: d.attempts, retryAt: next, err: outcome.error }, 'webhook not delivered; it will be retried');
  }
}
