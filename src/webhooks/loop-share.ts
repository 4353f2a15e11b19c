import dc from 'node:diagnostics_channel';
import { performance } from 'node:perf_hooks';

/** What a LoopShare reads: the clock (ms) and how many HTTP requests this process has begun so far; replaced in tests. */
export interface LoopClock {
  now(): number;
  requests(): number;
}

let requestsBegun = 0;
// Every HTTP server of the process (the service's): Node announces each request it begins.
dc.subscribe('http.server.request.start', () => {
  requestsBegun++;
});

const processLoop: LoopClock = { now: () => performance.now(), requests: () => requestsBegun };

/** Work this far behind keeps the base share: a burst's backlog is delivered behind it, as before. */
export const BEHIND_GRACE_MS = 10_000;
/** From the grace on, the share grows linearly to MOST_SHARE over this long. */
export const BEHIND_RAMP_MS = 110_000;
/** The most background work takes while requests come in, however far behind: requests keep half the loop. */
export const MOST_SHARE = 0.5;

/** The share of the loop background work `behindMs` behind may take while requests come in. */
export function shareBehind(base: number, behindMs: number): number {
  const late = Math.min(1, Math.max(0, (behindMs - BEHIND_GRACE_MS) / BEHIND_RAMP_MS));
  return Math.max(base, base + (MOST_SHARE - base) * late);
}

/**
 * Keeps background work (the webhook dispatcher: each body holds a project's documents, a megabyte
 * or more to read, present, sign and send) to a share of the event loop while requests are coming
 * in; without requests it goes at full speed. So a burst of changes is answered at about the rate
 * it would be without webhooks and delivered behind it, and a load that never stops still gets its
 * deliveries, at that share of the loop.
 *
 * The background work reports the time it spends (spent) and how far behind it is (behind: the age of
 * what it is doing); "requests are coming in" is any request begun in the current window of
 * `windowMs` or the one before. A share fixed at a few per cent lets a steady load's backlog grow
 * without bound, so the share grows with the backlog's age (shareBehind): a burst is still answered
 * first, and a load that never stops is delivered within about a minute or two.
 */
export class LoopShare {
  #since: number;
  #requestsAtStart: number;
  #busyBefore = false;
  #ownMs = 0;
  #behindMs = 0;

  constructor(
    /** The share (0–1) of the time the background work may take while requests come in. */
    private readonly share: number,
    private readonly windowMs = 250,
    private readonly clock: LoopClock = processLoop,
  ) {
    this.#since = clock.now();
    this.#requestsAtStart = clock.requests();
  }

  /** Background work took `ms` of the loop. */
  spent(ms: number): void {
    this.#ownMs += ms;
  }

  /** The work in hand is this old (ms since its change; 0: caught up). */
  behind(ms: number): void {
    this.#behindMs = Math.max(0, ms);
  }

  /** How long background work should wait before its next step (0: go on now). */
  waitMs(): number {
    const share = shareBehind(this.share, this.#behindMs);
    const elapsed = this.clock.now() - this.#since;
    const busy = this.#busyBefore || this.clock.requests() > this.#requestsAtStart;
    const wait = busy ? Math.min(this.windowMs, this.#ownMs / share - elapsed) : 0;
    if (elapsed >= this.windowMs) {
      // A new window; what this one's background work took beyond its share is carried over while busy.
      this.#ownMs = busy ? Math.max(0, this.#ownMs - elapsed * share) : 0;
      this.#busyBefore = this.clock.requests() > this.#requestsAtStart;
      this.#since = this.clock.now();
      this.#requestsAtStart = this.clock.requests();
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
