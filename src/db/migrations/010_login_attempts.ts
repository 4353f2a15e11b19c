import type { Kysely } from 'kysely';
import type { Dialect } from '../index.js';

/**
 * Throttling counts failures, not attempts (actions/attempts.ts): an attempt under way holds one of
 * its key's places (`pending`) until its outcome is known, so that no more are checked at once than
 * failures are left, on any instance. `pending_at` (milliseconds since the epoch) is when the last
 * place was taken: places older than five minutes belong to an attempt that died with its process.
 */
export function loginAttempts(dialect: Dialect) {
  const int8 = dialect === 'postgres' ? 'bigint' : 'integer';
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema.alterTable('login_failures').addColumn('pending', 'integer', (c) => c.notNull().defaultTo(0)).execute();
      await db.schema.alterTable('login_failures').addColumn('pending_at', int8, (c) => c.notNull().defaultTo(0)).execute();
    },
  };
}
