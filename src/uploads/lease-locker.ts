import { randomUUID } from 'node:crypto';
import { ERRORS, type Lock, type Locker, type RequestRelease } from '@tus/server';
import type { Store } from '../db/store.js';
import { nowMs } from '../clock.js';

export interface LeaseLockerOptions {
  /** How long a lease lasts without renewal: an instance that died frees its uploads after this. */
  ttlMs: number;
  /** How often a holder renews its lease and looks whether a newer request asked for it. */
  renewMs: number;
  /** The bound on waiting for a lease; past it the request fails with tus's lock timeout. */
  acquireTimeoutMs: number;
}

export const LEASE_DEFAULTS: LeaseLockerOptions = { ttlMs: 10_000, renewMs: 1_000, acquireTimeoutMs: 30_000 };

/** Between two tries at a lease held elsewhere: short at first (a request finishing), then every quarter second. */
const FIRST_RETRY_MS = 20;
const MAX_RETRY_MS = 250;

/**
 * tus's Locker on a lease row in the database (table upload_locks), so one upload is written by one
 * request at a time across every instance sharing the database (SQLite or PostgreSQL). A holder
 * renews its lease while it holds it; a request that waits marks the row, and the holder, which
 * looks at each renewal, is asked to let go (tus's requestRelease: the client reconnected while its
 * old PATCH still holds the lock). Within one instance the ask and the wake-up are immediate.
 */
export class LeaseLocker implements Locker {
  readonly options: LeaseLockerOptions;
  /** This instance's locks held now, by upload id: asked to let go directly, without the database. */
  readonly held = new Map<string, LeaseLock>();
  /** Locks of this instance waiting for an upload: woken when it is released here. */
  readonly waiting = new Map<string, Set<() => void>>();

  constructor(
    readonly store: Pick<Store, 'uploadLocks'>,
    readonly log: { error(obj: object, msg: string): void },
    options: Partial<LeaseLockerOptions> = {},
  ) {
    this.options = { ...LEASE_DEFAULTS, ...options };
  }

  newLock(id: string): Lock {
    return new LeaseLock(this, id);
  }

  wake(id: string): void {
    for (const wake of this.waiting.get(id) ?? []) wake();
  }
}

class LeaseLock implements Lock {
  readonly #holder = randomUUID();
  #renewal: NodeJS.Timeout | undefined;
  #renewing: Promise<void> = Promise.resolve();
  #requestRelease: RequestRelease = () => {};

  constructor(
    private readonly locker: LeaseLocker,
    private readonly id: string,
  ) {}

  async lock(stopSignal: AbortSignal, requestRelease: RequestRelease): Promise<void> {
    const { store, options } = this.locker;
    const deadline = nowMs() + options.acquireTimeoutMs;
    let retryMs = FIRST_RETRY_MS;
    let askedAt = 0;
    while (!(await store.uploadLocks.acquire(this.id, this.#holder, nowMs(), options.ttlMs))) {
      // Ask the holder to let go, again every renewal period (the holder may have changed).
      if (nowMs() - askedAt >= options.renewMs) {
        askedAt = nowMs();
        this.locker.held.get(this.id)?.askToRelease();
        await store.uploadLocks.requestRelease(this.id, this.#holder);
      }
      const left = deadline - nowMs();
      if (left <= 0 || stopSignal.aborted) throw ERRORS.ERR_LOCK_TIMEOUT;
      await this.#pause(Math.min(retryMs, left), stopSignal);
      retryMs = Math.min(retryMs * 2, MAX_RETRY_MS);
    }
    this.#requestRelease = requestRelease;
    this.locker.held.set(this.id, this);
    this.#renewal = setInterval(() => (this.#renewing = this.#renew()), options.renewMs);
    this.#renewal.unref();
  }

  async unlock(): Promise<void> {
    clearInterval(this.#renewal);
    await this.#renewing;
    if (this.locker.held.get(this.id) === this) this.locker.held.delete(this.id);
    // A release that fails (database away) leaves the lease to expire on its own within ttlMs.
    await this.locker.store.uploadLocks
      .release(this.id, this.#holder)
      .catch((err: unknown) => this.locker.log.error({ err, uploadId: this.id }, 'could not release a resumable upload lock'));
    this.locker.wake(this.id);
  }

  async #renew(): Promise<void> {
    const { store, options, log } = this.locker;
    try {
      const lease = await store.uploadLocks.renew(this.id, this.#holder, nowMs(), options.ttlMs);
      // Lost (expired during a database outage and taken) or asked for: this request stops writing.
      if (!lease || lease.releaseRequested) this.askToRelease();
    } catch (err) {
      log.error({ err, uploadId: this.id }, 'could not renew a resumable upload lock');
    }
  }

  /** Passes a newer request's ask on to the request holding this lock. */
  askToRelease(): void {
    Promise.resolve()
      .then(() => this.#requestRelease())
      .catch((err: unknown) => this.locker.log.error({ err, uploadId: this.id }, 'asking a resumable upload lock to be released failed'));
  }

  /** Waits up to ms, less when the upload is released in this instance or the request stops. */
  #pause(ms: number, stopSignal: AbortSignal): Promise<void> {
    return new Promise((resolve) => {
      const waiting = this.locker.waiting.get(this.id) ?? new Set();
      this.locker.waiting.set(this.id, waiting);
      const done = () => {
        clearTimeout(timer);
        stopSignal.removeEventListener('abort', done);
        waiting.delete(done);
        if (!waiting.size && this.locker.waiting.get(this.id) === waiting) this.locker.waiting.delete(this.id);
        resolve();
      };
      const timer = setTimeout(done, ms);
      stopSignal.addEventListener('abort', done, { once: true });
      waiting.add(done);
    });
  }
}
