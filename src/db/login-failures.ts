import { sql } from 'kysely';
import type { DB } from './index.js';

/** Sign-in throttling (migration 010): failures and attempts under way per key, in a window. */
export function loginFailuresRepo(db: DB) {
  return {
    /**
     * Counts one attempt against each key, starting a new window where the old one has ended, and
     * returns each key's count after it: one statement per key, atomic in both databases, so
     * simultaneous attempts each see a different count.
     */
    async count(keys: string[], now: string, windowStart: string): Promise<{ key: string; failures: number; windowStartedAt: string }[]> {
      const counted = [];
      for (const key of keys) {
        const row = await db
          .insertInto('login_failures')
          .values({ key, failures: 1, window_started_at: now })
          .onConflict((oc) =>
            oc.column('key').doUpdateSet((eb) => ({
              failures: sql<number>`case when ${eb.ref('login_failures.window_started_at')} > ${windowStart} then ${eb.ref('login_failures.failures')} + 1 else 1 end`,
              window_started_at: sql<string>`case when ${eb.ref('login_failures.window_started_at')} > ${windowStart} then ${eb.ref('login_failures.window_started_at')} else ${eb.ref('excluded.window_started_at')} end`,
            })),
          )
          .returning(['failures', 'window_started_at'])
          .executeTakeFirstOrThrow();
        counted.push({ key, failures: Number(row.failures), windowStartedAt: row.window_started_at });
      }
      return counted;
    },
    /** Takes back one counted attempt (it turned out not to be a failure). */
    async uncount(key: string): Promise<void> {
      await db
        .updateTable('login_failures')
        .set((eb) => ({ failures: eb('failures', '-', 1) }))
        .where('key', '=', key)
        .where('failures', '>', 0)
        .execute();
    },
    async clear(key: string): Promise<void> {
      await db.deleteFrom('login_failures').where('key', '=', key).execute();
    },
    /**
     * Forgets the keys whose window ended (their failures count no more) and that hold no place
     * for an attempt under way (none taken, or only stale ones): what such a row says, no row says
     * too. An attempt that finds its row gone meanwhile makes it again (reserve, count).
     */
    async deleteEnded(at: { windowStart: string; staleBefore: number }): Promise<void> {
      await db
        .deleteFrom('login_failures')
        .where('window_started_at', '<=', at.windowStart)
        .where((eb) => eb.or([eb('pending', '<=', 0), eb('pending_at', '<=', at.staleBefore)]))
        .execute();
    },
    /**
     * Takes one of the key's places for an attempt under way, only while the failures in the
     * window and the places taken are fewer than `max`: one conditional update, atomic on both
     * databases (PostgreSQL checks the condition again on the row it waited for). Places taken
     * before `staleBefore` (ms) count no more. True when the place was taken.
     */
    async reserve(key: string, max: number, at: { now: string; nowMs: number; windowStart: string; staleBefore: number }): Promise<boolean> {
      await db
        .insertInto('login_failures')
        .values({ key, failures: 0, window_started_at: at.now })
        .onConflict((oc) => oc.column('key').doNothing())
        .execute();
      const failures = sql<number>`(case when window_started_at > ${at.windowStart} then failures else 0 end)`;
      const pending = sql<number>`(case when pending_at > ${at.staleBefore} then pending else 0 end)`;
      const row = await db
        .updateTable('login_failures')
        .set({ pending: sql<number>`${pending} + 1`, pending_at: at.nowMs })
        .where('key', '=', key)
        .where(sql<number>`${failures} + ${pending}`, '<', max)
        .returning('key')
        .executeTakeFirst();
      return row !== undefined;
    },
    /** The key's failures in the window (and when it ends) and its places taken, for an attempt that found no place. */
    async state(key: string, at: { windowStart: string; staleBefore: number }): Promise<{ failures: number; windowStartedAt: string; pending: number }> {
      const row = await db.selectFrom('login_failures').select(['failures', 'window_started_at', 'pending', 'pending_at']).where('key', '=', key).executeTakeFirst();
      return throttleState(row ? { failures: Number(row.failures), windowStartedAt: row.window_started_at, pending: Number(row.pending), pendingAt: Number(row.pending_at) } : null, at);
    },
    /**
     * Gives the place back with the attempt's outcome: a failure is counted (a new window starts
     * with the first failure after the last one ended), `clear` forgets the failures (the right
     * password), `neither` only gives the place back (the attempt could not be judged).
     */
    async settle(key: string, outcome: 'failure' | 'clear' | 'neither', at: { now: string; windowStart: string }): Promise<void> {
      const continues = sql<boolean>`window_started_at > ${at.windowStart} and failures > 0`;
      await db
        .updateTable('login_failures')
        .set({
          pending: sql<number>`case when pending > 0 then pending - 1 else 0 end`,
          ...(outcome === 'failure'
            ? {
                failures: sql<number>`case when ${continues} then failures + 1 else 1 end`,
                window_started_at: sql<string>`case when ${continues} then window_started_at else ${at.now} end`,
              }
            : outcome === 'clear'
              ? { failures: 0 }
              : {}),
        })
        .where('key', '=', key)
        .execute();
    },
  };
}

/** A key's row (or none) as the throttle reads it: its failures within the window (and when that began) and its places taken not yet stale. */
export function throttleState(
  row: { failures: number; windowStartedAt: string; pending: number; pendingAt: number } | null,
  at: { windowStart: string; staleBefore: number },
): { failures: number; windowStartedAt: string; pending: number } {
  if (!row) return { failures: 0, windowStartedAt: at.windowStart, pending: 0 };
  const inWindow = Date.parse(row.windowStartedAt) > Date.parse(at.windowStart);
  return { failures: inWindow ? row.failures : 0, windowStartedAt: row.windowStartedAt, pending: row.pendingAt > at.staleBefore ? row.pending : 0 };
}
