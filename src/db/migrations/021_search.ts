import { type Kysely, sql } from 'kysely';
import type { Dialect } from '../index.js';

/**
 * Search that scales (issue 22): `q` ("contains", case-insensitive, over the project's name and
 * reference, the POC's name and the customer's name) answered from indexes rather than by reading
 * every project. db/projects.ts asks the indexes for candidates and keeps the exact LIKE test, so
 * what `q` matches is unchanged on both databases.
 *
 * PostgreSQL: pg_trgm GIN indexes on lower(name) and lower(reference) of projects and on the
 * names of customers and users (LIKE '%…%' uses them from 3 characters on), without GIN's pending
 * list (fastupdate off): rows written since the last VACUUM would otherwise be searched one by one
 * (40 ms a search after 100,000 inserts, 0.3 ms once merged); a print shop writes few projects a
 * minute, so the index's slower writes cost nothing that shows. CREATE EXTENSION
 * needs a privilege: without it (or without the extension) the migration leaves the indexes out;
 * search still works, by reading the rows (docs/performance.md).
 *
 * SQLite: an FTS5 table with the trigram tokenizer over the projects' name and reference, kept in
 * step by triggers. Its rowid is a key of `project_search_keys` (an INTEGER PRIMARY KEY, stable),
 * not the projects' implicit rowid, which VACUUM may renumber. Customers and users are few: their
 * names are read whole.
 */
export function search(dialect: Dialect) {
  return { up: dialect === 'postgres' ? postgresUp : sqliteUp };
}

async function sqliteUp(db: Kysely<unknown>): Promise<void> {
  await sql`create table project_search_keys (key integer primary key, project_id text not null unique references projects(id) on delete cascade)`.execute(db);
  await sql`create virtual table projects_search using fts5(name, reference, tokenize = 'trigram')`.execute(db);
  await sql`insert into project_search_keys (project_id) select id from projects order by created_at, id`.execute(db);
  await sql`insert into projects_search (rowid, name, reference) select k.key, p.name, p.reference from project_search_keys k join projects p on p.id = k.project_id`.execute(db);
  await sql`create trigger projects_search_insert after insert on projects begin
    insert into project_search_keys (project_id) values (new.id);
    insert into projects_search (rowid, name, reference) values ((select key from project_search_keys where project_id = new.id), new.name, new.reference);
  end`.execute(db);
  await sql`create trigger projects_search_update after update of name, reference on projects begin
    update projects_search set name = new.name, reference = new.reference where rowid = (select key from project_search_keys where project_id = new.id);
  end`.execute(db);
  await sql`create trigger projects_search_delete before delete on projects begin
    delete from projects_search where rowid = (select key from project_search_keys where project_id = old.id);
  end`.execute(db);
}

async function postgresUp(db: Kysely<unknown>): Promise<void> {
  const schema = await trigramSchema(db);
  if (schema === null) return;
  const ops = sql`${sql.id(schema)}.gin_trgm_ops`;
  await sql`create index projects_name_trgm on projects using gin (lower(name) ${ops}) with (fastupdate = off)`.execute(db);
  await sql`create index projects_reference_trgm on projects using gin (lower(reference) ${ops}) with (fastupdate = off)`.execute(db);
  await sql`create index customers_name_trgm on customers using gin (lower(name) ${ops}) with (fastupdate = off)`.execute(db);
  await sql`create index users_name_trgm on users using gin (lower(name) ${ops}) with (fastupdate = off)`.execute(db);
}

/**
 * The schema pg_trgm is installed in, installing it in `public` when it is not yet (so that
 * services on other schemas of the database share it); null when it cannot be. The attempt runs in
 * a savepoint: a refused CREATE EXTENSION must not abort the migration's transaction.
 */
async function trigramSchema(db: Kysely<unknown>): Promise<string | null> {
  const installed = async () =>
    (await sql<{ schema: string }>`select n.nspname as schema from pg_extension e join pg_namespace n on n.oid = e.extnamespace where e.extname = 'pg_trgm'`.execute(db)).rows[0]?.schema ?? null;
  const before = await installed();
  if (before !== null) return before;
  await sql`savepoint pg_trgm_install`.execute(db);
  try {
    await sql`create extension if not exists pg_trgm with schema public`.execute(db);
    await sql`release savepoint pg_trgm_install`.execute(db);
  } catch {
    // No privilege, no extension or no public schema (or another service installing it at this moment): read again below.
    await sql`rollback to savepoint pg_trgm_install`.execute(db);
  }
  return installed();
}
