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

/**
 * Makes the COMMIT of a transaction fail when it inserted a `storage_names` row whose key starts
 * with `prefix` (its statements succeed; only the commit is refused), as a deferred constraint
 * would: on SQLite a deferred foreign key that such a row breaks, on PostgreSQL a deferred
 * constraint trigger. The returned function removes it.
 */
export async function failCommitsOf(svc: TestService, prefix: string): Promise<() => Promise<void>> {
  const db = svc.deps.database.db;
  if (svc.deps.database.dialect === 'sqlite') {
    await sql.raw('create table commit_fails_parent (id text primary key)').execute(db);
    await sql.raw('alter table storage_names add column commit_fails text references commit_fails_parent (id) deferrable initially deferred').execute(db);
    await sql.raw(`create trigger storage_names_commit_fails after insert on storage_names when new.key like '${prefix}%' begin update storage_names set commit_fails = 'missing' where key = new.key; end`).execute(db);
    return async () => {
      await sql.raw('drop trigger storage_names_commit_fails').execute(db);
      await sql.raw('alter table storage_names drop column commit_fails').execute(db);
      await sql.raw('drop table commit_fails_parent').execute(db);
    };
  }
  await sql.raw(`create function storage_names_commit_fails() returns trigger language plpgsql as $$ begin raise exception 'refused at commit'; end $$`).execute(db);
  await sql
    .raw(`create constraint trigger storage_names_commit_fails after insert on storage_names deferrable initially deferred for each row when (new.key like '${prefix}%') execute function storage_names_commit_fails()`)
    .execute(db);
  return async () => {
    await sql.raw('drop trigger storage_names_commit_fails on storage_names').execute(db);
    await sql.raw('drop function storage_names_commit_fails()').execute(db);
  };
}
