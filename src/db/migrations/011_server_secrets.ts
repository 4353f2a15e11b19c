import type { Kysely } from 'kysely';

/**
 * Secrets every instance must share and keep across restarts, made on first use (db/secrets.ts:
 * secrets): the key realtime event ids are sealed with (realtime/event-ids.ts). Kept with the
 * data they belong to, so a backup restores them too.
 */
export function serverSecrets() {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema
        .createTable('server_secrets')
        .addColumn('name', 'text', (c) => c.primaryKey())
        .addColumn('value', 'text', (c) => c.notNull())
        .execute();
    },
  };
}
