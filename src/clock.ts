/**
 * The service's one clock: every timestamp it stores and every time it compares (leases, windows,
 * expiries) is read here. `CLOCK_OFFSET_MS` (config.ts, for tests only) moves this process's clock,
 * so a test can run instances whose clocks disagree, as real machines' do; it is set once at
 * start-up (service.ts). Nothing that orders changes across instances reads it: commit order is the
 * event log's position (README, "Order across instances").
 */
let offsetMs = 0;

/** Set once, from config.clockOffsetMs, before the service does anything. */
export function setClockOffset(ms: number): void {
  offsetMs = ms;
}

/** Milliseconds since the epoch, by this instance's clock. */
export const nowMs = (): number => Date.now() + offsetMs;

/** The current instant, by this instance's clock. */
export const nowDate = (): Date => new Date(nowMs());
