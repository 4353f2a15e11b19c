import { type Kysely, sql } from 'kysely';
import type { Dialect } from '../index.js';

/**
 * The team's version: one row whose number goes up with every change to a user that GET /api/team
 * shows. The database bumps it itself (triggers), in the same transaction as the change, whoever
 * makes it (any instance, the command line, a restore): an instance's cached team answer is current
 * exactly while the number it was built at is still the stored one, which one primary-key read tells.
 *
 * Only the columns the answer shows count: a new password or updated_at alone leaves the answer as it was.
 */
const SHOWN_COLUMNS = 'id, name, email, phone, role, location, branch, active, created_at';

export function teamVersion(dialect: Dialect) {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema
        .createTable('team_version')
        .addColumn('id', 'integer', (c) => c.primaryKey())
        .addColumn('version', dialect === 'postgres' ? 'bigint' : 'integer', (c) => c.notNull())
        .execute();
      await sql`insert into team_version (id, version) values (1, 1)`.execute(db);

      if (dialect === 'sqlite') {
        for (const [name, event] of [
          ['insert', 'insert'],
          ['update', `update of ${SHOWN_COLUMNS}`],
          ['delete', 'delete'],
        ] as const) {
          await sql
            .raw(`create trigger users_bump_team_version_${name} after ${event} on users begin update team_version set version = version + 1 where id = 1; end`)
            .execute(db);
        }
        return;
      }
      // search_path from the migration's own, so the function finds the table whatever the caller's path.
      await sql
        .raw(
          `create function bump_team_version() returns trigger language plpgsql set search_path from current as $$
           begin update team_version set version = version + 1 where id = 1; return null; end $$`,
        )
        .execute(db);
      await sql
        .raw(`create trigger users_bump_team_version after insert or update of ${SHOWN_COLUMNS} or delete on users for each statement execute function bump_team_version()`)
        .execute(db);
    },
  };
}
