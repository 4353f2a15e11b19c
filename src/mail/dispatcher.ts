import type { Config } from '../config.js';
import { detailsFor } from '../domain/shop-notes.js';
import type { ClaimedMail } from '../db/mail.js';
import type { Store } from '../db/store.js';
import type { Log } from '../logger.js';
import { digestOf, digestReachOf, isEmptyDigest } from '../domain/due-digest.js';
import type { User } from '../domain/model.js';
import { maySeeProject, seesInternal, viewerOf } from '../domain/visibility.js';
import { dueDigestDayOf } from './outbox.js';
import { emailRuleOf } from './rules.js';
import { type MailEvent, dueDigestEmail, projectEmail, webhookDeactivatedEmail } from './templates.js';
import type { MailTransport, OutgoingMail, SentMail } from './types.js';
import { nowDate, nowMs } from '../clock.js';
import { newId } from '../ids.js';
import { LeaseHeartbeat } from '../lease-heartbeat.js';

/** The outbox event of an email telling the admins a webhook was switched off. */
export const WEBHOOK_DEACTIVATED = 'WEBHOOK_DEACTIVATED';

/** Rows claimed per round, sent one after the other, each within SEND_TIMEOUT_MS; the heartbeat keeps their lease meanwhile. */
const CLAIM_LIMIT = 10;
const SEND_TIMEOUT_MS = 60_000;
/** How often a standing backlog is logged again. */
const BACKLOG_LOG_EVERY_MS = 5 * 60_000;
/** The most projects one due-date digest lists (the projects page has the rest). */
const DIGEST_MAX_PROJECTS = 100;

/** A transport's send, bounded: a server that never answers fails the attempt instead of holding the row. */
export async function sendWithin(transport: MailTransport, mail: OutgoingMail, ms = SEND_TIMEOUT_MS): Promise<SentMail> {
  let timer: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([
      transport.send(mail),
      new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error(`no answer from the mail transport within ${ms} ms`)), ms);
      }),
    ]);
  } finally {
    clearTimeout(timer);
  }
}

/** Wait before attempt n + 1: doubling from baseMs, at most maxMs, with ±20 % jitter so instances do not retry in step. */
export const backoffMs = (attempts: number, retry: Config['mail']['retry'], random = Math.random()): number =>
  Math.round(Math.min(retry.maxMs, retry.baseMs * 2 ** Math.max(0, attempts - 1)) * (0.8 + 0.4 * random));

/**
 * Delivers the outbox: each round (the `mail dispatch` job, every MAIL_POLL_MS: jobs.ts) claims
 * due rows (db/mail.ts claim: SKIP LOCKED on PostgreSQL, so several instances never take the same
 * row), composes each email from what the database says now (the recipient still active, still
 * allowed to see the project and still wanting the category), sends it, and marks it sent, or due again after a backoff. A restart
 * loses nothing: unsent rows wait in the database, and a claim left by a dead instance lapses with its
 * lease within seconds (WORK_LEASE_MS; the live holder's heartbeat renews it: lease-heartbeat.ts).
 */
export class MailDispatcher {
  #lastBacklogLog = 0;

  readonly #leases: LeaseHeartbeat;

  constructor(
    private readonly store: Store,
    private readonly config: Pick<Config, 'mail' | 'publicUrl' | 'timeZone' | 'workLeaseMs'>,
    readonly transport: MailTransport,
    private readonly log: Log,
  ) {
    this.#leases = new LeaseHeartbeat((claims, until) => store.outbox.renew(claims, until), config.workLeaseMs, log);
  }

  /** Emails due and not yet sent (retries included): how many, and since when the oldest is due (for /metrics and logs). */
  backlog(): Promise<{ count: number; oldestDueAt: string | null }> {
    return this.store.outbox.backlog(nowDate().toISOString(), this.config.mail.batchSeconds);
  }

  /**
   * Claims and delivers due emails until none is left, or until `signal` aborts (the service
   * stops; the email in hand is finished first). Returns how many were handled.
   */
  async runOnce(signal?: AbortSignal): Promise<number> {
    let handled = 0;
    for (;;) {
      const claimId = newId();
      const claimed = await this.store.outbox.claim(nowDate().toISOString(), this.#leases.leaseUntil(), CLAIM_LIMIT, claimId);
      this.#leases.hold(claimId, claimed.length);
      let left = claimed.length;
      try {
        for (const row of claimed) {
          await this.#deliver(row);
          left--;
          this.#leases.release(claimId);
        }
      } finally {
        // Rows not reached (the database failed above): no longer renewed, their lease lapses.
        for (; left > 0; left--) this.#leases.release(claimId);
      }
      handled += claimed.length;
      if (claimed.length < CLAIM_LIMIT || signal?.aborted) return handled;
    }
  }

  /** One round of the job: delivers what is due, then looks at the backlog. Never rejects: an outbox out of reach is logged and tried on the next round. */
  async round(signal?: AbortSignal): Promise<void> {
    try {
      await this.runOnce(signal);
      await this.#watchBacklog();
    } catch (err) {
      // The database is away: the rows wait there; the next round tries again.
      this.log.warn({ err }, 'the mail dispatcher could not read the outbox');
    }
  }

  async #watchBacklog(): Promise<void> {
    if (nowMs() - this.#lastBacklogLog < BACKLOG_LOG_EVERY_MS) return;
    const { count, oldestDueAt } = await this.backlog();
    if (oldestDueAt && nowMs() - Date.parse(oldestDueAt) > this.config.mail.backlogWarnSeconds * 1000) {
      this.#lastBacklogLog = nowMs();
      this.log.warn({ count, oldestDueAt }, `mail backlog: ${count} email(s) waiting, the oldest due since ${oldestDueAt}`);
    }
  }

  async #deliver(row: ClaimedMail): Promise<void> {
    const now = () => nowDate().toISOString();
    const mail = await this.#compose(row);
    if (!mail) {
      await this.store.outbox.finish(row.id, 'dropped', now());
      return;
    }
    try {
      const sent = await sendWithin(this.transport, mail);
      await this.store.outbox.finish(row.id, 'sent', now());
      this.log.info({ outboxId: row.id, to: mail.to.address, subject: mail.subject, transport: this.transport.name, detail: sent.detail }, 'email sent');
    } catch (err) {
      const message = err instanceof Error ? err.message : String(err);
      const { retry } = this.config.mail;
      if (row.attempts >= retry.maxAttempts) {
        await this.store.outbox.finish(row.id, 'failed', now(), message);
        this.log.error({ outboxId: row.id, to: mail.to.address, attempts: row.attempts, err }, 'email given up after its last attempt');
        return;
      }
      const dueAt = new Date(nowMs() + backoffMs(row.attempts, retry)).toISOString();
      await this.store.outbox.retryAt(row.id, dueAt, message);
      this.log.warn({ outboxId: row.id, to: mail.to.address, attempts: row.attempts, retryAt: dueAt, err }, 'email not sent; it will be retried');
    }
  }

  /**
   * The email as it stands now, or null when nobody should get it any more (recipient gone, inactive,
   * or opted out of every change in it). The project is read here, not when the changes were queued,
   * so the email's closing "where it stands now" holds when it is sent.
   */
  async #compose(row: ClaimedMail): Promise<OutgoingMail | null> {
    const recipient = await this.store.users.findById(row.recipientId);
    if (!recipient?.active) return null;
    const digestDay = dueDigestDayOf(row.events);
    if (digestDay !== null) return this.#composeDueDigest(recipient, digestDay);
    if (!row.projectId) return this.#composeNotice({ name: recipient.name, address: recipient.email }, row, recipient.role);
    // Who may see the project is asked now, not when the change was queued: a CLIENT moved to another
    // customer (or a project moved away from theirs, or a POC no longer its owner) within the window
    // gets nothing about it, as the email would show the project as it stands after they lost access.
    const project = await this.store.projects.findById(row.projectId);
    if (!project || !maySeeProject(viewerOf(recipient), project)) return null;
    const optouts = await this.store.emailOptouts.list(recipient.id);
    // An internal note queued for someone who no longer sees internal notes (made a CLIENT since) is left out.
    const seesNotes = seesInternal(viewerOf(recipient));
    const events = row.events.filter((e) => {
      const rule = emailRuleOf(e.action);
      return rule !== null && !optouts.includes(rule.category) && (seesNotes || e.details.internal !== true);
    });
    if (!events.length) return null;
    const names = new Map<string, string>();
    for (const id of new Set(events.map((e) => e.actorId))) names.set(id, (await this.store.users.findById(id))?.name ?? 'someone');
    // A CLIENT's email leaves out the shop's own notes (domain/shop-notes.ts), as their activity does.
    const listed: MailEvent[] = events.map((e) => ({ action: e.action, actorName: names.get(e.actorId)!, at: e.at, details: detailsFor(recipient, e.action, e.details) }));
    return projectEmail({ name: recipient.name, address: recipient.email }, project, listed, this.config.publicUrl);
  }

  /**
   * A due-date digest as things stand now: null when the person switched it off or no longer gets
   * one, or when nothing is overdue or due that day any more. Their projects are the ones they may
   * see (db/visibility.ts), and for a POC only those they own.
   */
  async #composeDueDigest(recipient: User, day: string): Promise<OutgoingMail | null> {
    const reach = digestReachOf(recipient.role);
    if (!reach || (await this.store.emailOptouts.list(recipient.id)).includes('dueDigest')) return null;
    const found = await this.store.projects.dueBy(viewerOf(recipient), day, { pocId: reach === 'own' ? recipient.id : undefined, limit: DIGEST_MAX_PROJECTS + 1 });
    const digest = digestOf(found.slice(0, DIGEST_MAX_PROJECTS), day);
    if (isEmptyDigest(digest)) return null;
    return dueDigestEmail({ name: recipient.name, address: recipient.email }, day, digest, reach, this.config.publicUrl, found.length > DIGEST_MAX_PROJECTS);
  }

  /** An email about no project: a webhook switched off (webhooks/dispatcher.ts), for admins only. */
  #composeNotice(to: OutgoingMail['to'], row: ClaimedMail, role: string): OutgoingMail | null {
    const event = row.events[0];
    if (event?.action !== WEBHOOK_DEACTIVATED || role !== 'ADMIN') return null;
    const { url, failingSince, lastError } = event.details as { url: string; failingSince: string; lastError: string | null };
    return webhookDeactivatedEmail(to, { url, failingSince, lastError }, this.config.publicUrl, this.config.timeZone);
  }
}
