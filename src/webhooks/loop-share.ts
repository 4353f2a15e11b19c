import { performance } from 'node:perf_hooks';

/** What a LoopShare reads: the clock and the event loop's active time since a mark (both in ms); replaced in tests. */
export interface LoopClock {
  now(): number;
  /** A mark of the loop's active time so far. */
  mark(): unknown;
  /** The loop's active time (ms) since `mark`. */
  activeSince(mark: unknown): number;
}

const processLoop: LoopClock = {
  now: () => performance.now(),
  mark: () => performance.eventLoopUtilization(),
  activeSince: (mark) => performance.eventLoopUtilization(mark as ReturnType<typeof performance.eventLoopUtilization>).active,
};

/**
 * Keeps background work (the webhook dispatcher: each body holds a project's documents, a megabyte
 * or more to present, sign and send) to a share of the event loop while other work (requests) keeps
 * the loop busy; when the loop is otherwise idle it goes at full speed. So a burst of changes is
 * answered at the rate it would be without webhooks and delivered behind it, and a sustained load
 * still gets its deliveries, at that share of the loop.
 *
 * The background work reports the time it spends (spent); the rest of the loop's active time is the
 * others'. Measured over windows of `windowMs`.
 */
export class LoopShare {
  #mark: unknown;
  #since: number;
  #ownMs = 0;

  constructor(
    /** The share (0–1) of the window the background work may take while the others keep the loop busy. */
    private readonly share: number,
    /** Others are busy when they keep the loop active this share of the window or more. */
    private readonly busyShare = 0.5,
    private readonly windowMs = 250,
    private readonly clock: LoopClock = processLoop,
  ) {
    this.#mark = clock.mark();
    this.#since = clock.now();
  }

  /** Background work took `ms` of the loop. */
  spent(ms: number): void {
    this.#ownMs += ms;
  }

  /** How long background work should wait before its next step (0: go on now). */
  waitMs(): number {
    const elapsed = this.clock.now() - this.#since;
    const others = Math.max(0, this.clock.activeSince(this.#mark) - this.#ownMs);
    const busy = others >= elapsed * this.busyShare;
    const wait = busy ? Math.min(this.windowMs, this.#ownMs / this.share - elapsed) : 0;
    if (elapsed >= this.windowMs) {
      // A new window; what this one's background work took beyond its share is carried over.
      const over = busy ? Math.max(0, this.#ownMs - elapsed * this.share) : 0;
      this.#mark = this.clock.mark();
      this.#since = this.clock.now();
      this.#ownMs = over;
    }
    return Math.max(0, wait);
  }

  /** Resolves when background work may take its next step (at once, or after a wait; early when `signal` aborts). */
  async turn(signal?: AbortSignal): Promise<void> {
    for (let wait = this.waitMs(); wait > 0 && !signal?.aborted; wait = this.waitMs()) {
      await new Promise<void>((resolve) => {
        const timer = setTimeout(done, wait);
        function done() {
          clearTimeout(timer);
          signal?.removeEventListener('abort', done);
          resolve();
        }
        signal?.addEventListener('abort', done, { once: true });
      });
    }
  }
}
