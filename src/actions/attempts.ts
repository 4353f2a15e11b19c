import type { Deps } from '../deps.js';
import { errors } from '../errors.js';
import { nowMs as currentMs } from '../clock.js';

/** A key an attempt counts against ("email:…", "address:…"), and the failures it may have in the window. */
export interface AttemptKey {
  key: string;
  max: number;
}

/** What checking the secret found: the value, or the failure to count and answer. */
export type Outcome<T> = { ok: true; value: T } | { ok: false; error: Error };

/**
 * A place taken this long ago belongs to an attempt that died with its process: no check takes
 * that long, even behind a full queue of password hashes (passwords.ts).
 */
const STALE_MS = 5 * 60_000;
/**
 * How long an attempt waits for a place before it is answered 503. The attempts ahead of it take
 * as long as their password hashes: on a busy two-core machine 40 sign-ins to one account took 16 s.
 */
const MAX_WAIT_MS = 60_000;
/** How often a waiting attempt looks again: places given back on other instances wake nobody here. */
const POLL_MS = 200;

/**
 * Forgets the throttling rows that say nothing any more: their window ended and no attempt holds
 * one of their places (the `login-failure pruning` job: jobs.ts). Without it every email and
 * address ever tried would keep a row.
 */
export async function forgetEndedWindows(deps: Pick<Deps, 'store' | 'config'>, nowMs = currentMs()): Promise<void> {
  const windowMs = deps.config.login.windowMinutes * 60_000;
  await deps.store.loginFailures.deleteEnded({ windowStart: new Date(nowMs - windowMs).toISOString(), staleBefore: nowMs - STALE_MS });
}

/** This process's attempts waiting for a place, per key: a place given back here wakes the first at once. */
const waiting = new Map<string, (() => void)[]>();

function waitForPlace(key: string, ms: number): Promise<void> {
  return new Promise((resolve) => {
    const wake = () => {
      clearTimeout(timer);
      const list = waiting.get(key);
      const at = list?.indexOf(wake) ?? -1;
      if (at >= 0) list!.splice(at, 1);
      if (list?.length === 0) waiting.delete(key);
      resolve();
    };
    const timer = setTimeout(wake, ms);
    waiting.set(key, [...(waiting.get(key) ?? []), wake]);
  });
}

const wakeNext = (key: string) => waiting.get(key)?.[0]?.();

/**
 * Runs one check of a secret (a password, a reset token) under throttling that counts failures,
 * not attempts: a right answer is refused only once the failures in the window
 * (LOGIN_WINDOW_MINUTES) reached a key's `max`, however many arrive at once. So that no more are
 * checked at once than failures are left, each attempt under way holds a place on every key
 * (in the database: on every instance); an attempt that finds no place waits for one (queued,
 * not refused), and is answered `refuse` (429 with the seconds until the window ends) once the
 * failures reached the limit, or 503 after MAX_WAIT_MS. The right answer clears the failures of
 * the keys in `clearOnSuccess`.
 */
export async function throttledCheck<T>(
  deps: Pick<Deps, 'store' | 'config'>,
  keys: AttemptKey[],
  refuse: (retryAfterSeconds: number) => Error,
  check: () => Promise<Outcome<T>>,
  options: { clearOnSuccess?: string[] } = {},
): Promise<T> {
  const store = deps.store.loginFailures;
  const windowMs = deps.config.login.windowMinutes * 60_000;
  const clock = () => {
    const nowMs = currentMs();
    return { now: new Date(nowMs).toISOString(), nowMs, windowStart: new Date(nowMs - windowMs).toISOString(), staleBefore: nowMs - STALE_MS };
  };
  const giveBack = async (key: string, outcome: 'failure' | 'clear' | 'neither') => {
    try {
      await store.settle(key, outcome, clock());
    } finally {
      wakeNext(key);
    }
  };

  const deadline = currentMs() + MAX_WAIT_MS;
  for (;;) {
    const at = clock();
    const held: string[] = [];
    let blocked: AttemptKey | undefined;
    for (const k of keys) {
      if (await store.reserve(k.key, k.max, at)) held.push(k.key);
      else {
        blocked = k;
        break;
      }
    }
    if (!blocked) break;
    // Never hold one key's place while waiting for another's.
    for (const key of held) await giveBack(key, 'neither');
    const state = await store.state(blocked.key, at);
    if (state.failures >= blocked.max) {
      wakeNext(blocked.key); // the next in line learns it too, without waiting for its poll
      throw refuse(Math.max(1, Math.ceil((Date.parse(state.windowStartedAt) + windowMs - currentMs()) / 1000)));
    }
    if (currentMs() >= deadline) throw errors.passwordWorkBusy();
    // A place came free meanwhile: try again at once; else wait for one.
    if (state.failures + state.pending >= blocked.max) await waitForPlace(blocked.key, Math.min(POLL_MS, deadline - currentMs()));
  }

  let outcome: Outcome<T>;
  try {
    outcome = await check();
  } catch (err) {
    for (const k of keys) await giveBack(k.key, 'neither').catch(() => {}); // the check's own failure is the one to answer
    throw err;
  }
  for (const k of keys) await giveBack(k.key, !outcome.ok ? 'failure' : options.clearOnSuccess?.includes(k.key) ? 'clear' : 'neither');
  if (!outcome.ok) throw outcome.error;
  return outcome.value;
}
