import { nowMs } from './clock.js';
import type { Log } from './logger.js';

/**
 * Keeps this instance's claims (of webhook deliveries, of emails) alive while it works on them: a
 * claim's lease is short (WORK_LEASE_MS), and every third of it one statement renews the leases of
 * every claim still at work. So a live instance keeps what it holds however long an attempt takes,
 * and the work of an instance that died (kill -9, a lost machine) is free for another within one
 * lease. A renewal that fails (the database away) is logged; should the lease lapse meanwhile,
 * another instance may take the work and it is done twice: at least once, as the outbox promises.
 */
export class LeaseHeartbeat {
  /** Claim id → its rows still at work. */
  readonly #held = new Map<string, number>();
  #timer: NodeJS.Timeout | undefined;
  #beating: Promise<void> | null = null;

  constructor(
    /** Renews the claims' leases until the given time (one statement). */
    private readonly renew: (claimIds: string[], leaseUntil: string) => Promise<void>,
    readonly leaseMs: number,
    private readonly log: Pick<Log, 'warn'>,
  ) {}

  /** When a lease taken or renewed now ends. */
  leaseUntil(): string {
    return new Date(nowMs() + this.leaseMs).toISOString();
  }

  /** The claim's `rows` are at work: renewed until each is released. */
  hold(claimId: string, rows: number): void {
    if (rows <= 0) return;
    this.#held.set(claimId, (this.#held.get(claimId) ?? 0) + rows);
    if (!this.#timer) {
      this.#timer = setInterval(() => this.#beat(), Math.max(100, Math.floor(this.leaseMs / 3)));
      this.#timer.unref();
    }
  }

  /** One of the claim's rows is done (its outcome recorded, or given up). */
  release(claimId: string): void {
    const left = (this.#held.get(claimId) ?? 1) - 1;
    if (left > 0) this.#held.set(claimId, left);
    else this.#held.delete(claimId);
    if (!this.#held.size) {
      clearInterval(this.#timer);
      this.#timer = undefined;
    }
  }

  #beat(): void {
    if (this.#beating || !this.#held.size) return;
    this.#beating = this.renew([...this.#held.keys()], this.leaseUntil())
      .catch((err: unknown) => this.log.warn({ err }, 'could not renew the leases of the work in hand; another instance may take it over when they lapse'))
      .finally(() => {
        this.#beating = null;
      });
  }
}
