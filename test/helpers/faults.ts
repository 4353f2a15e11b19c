import { sql } from 'kysely';
import type { TestService } from './service.js';

/**
 * Makes every `write` (insert or update) of a row of `table` fail with `message`, through a trigger
 * in the service's own database (SQLite or its PostgreSQL schema), as a full disk or a broken
 * constraint would; the returned function removes it. Reads, and the other kind of write, go on.
 */
export async function failWrites(svc: TestService, table: string, write: 'insert' | 'update', message: string): Promise<() => Promise<void>> {
  const db = svc.deps.database.db;
  const name = `${table}_${write}_fails`;
  if (svc.deps.database.dialect === 'sqlite') {
    await sql.raw(`create trigger ${name} before ${write} on ${table} begin select raise(abort, '${message}'); end`).execute(db);
    return async () => void (await sql.raw(`drop trigger ${name}`).execute(db));
  }
  await sql.raw(`create function ${name}() returns trigger language plpgsql as $$ begin raise exception '${message}'; end $$`).execute(db);
  await sql.raw(`create trigger ${name} before ${write} on ${table} for each row execute function ${name}()`).execute(db);
  return async () => {
    await sql.raw(`drop trigger ${name} on ${table}`).execute(db);
    await sql.raw(`drop function ${name}()`).execute(db);
  };
}
