import { type Kysely, sql } from 'kysely';
import type { Dialect } from '../index.js';

/**
 * The floor's rules (issue 35): job numbers, holds and rush, reorders, customers' account managers.
 *
 * Job numbers: `projects.number`, from 1 in creation order. The next one comes from the single row
 * of `project_counter`, updated in the transaction that creates the project: on PostgreSQL the
 * UPDATE locks that row until commit, so simultaneous creations on any number of instances take
 * turns and a rolled-back creation gives its number back (the only gap is none at all, unless a
 * creation fails after another took the next number). A sequence would be faster but leaves a gap
 * for every failed creation. SQLite writes one transaction at a time. Existing projects are
 * numbered here by (created_at, id), and the counter starts after them.
 *
 * Holds: `held` says whether `hold_reason`, `hold_since` and `hold_by_id` are set (all written
 * together by db/projects.ts); a plain column so that `sort=priority` walks one index,
 * (held, rush, due_date, created_at desc, id desc), one segment (held × rush × dated) at a time.
 */
export function floor(dialect: Dialect) {
  const pg = dialect === 'postgres';
  const ts = pg ? 'timestamptz' : 'text';
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema.alterTable('projects').addColumn('number', 'integer', (c) => c.notNull().defaultTo(0)).execute();
      await sql`update projects set number = numbered.n from (select id, row_number() over (order by created_at, id) as n from projects) numbered where numbered.id = projects.id`.execute(db);
      if (pg) await sql`alter table projects alter column number drop default`.execute(db);
      await db.schema.createIndex('projects_number').unique().on('projects').column('number').execute();
      await db.schema
        .createTable('project_counter')
        .addColumn('id', 'integer', (c) => c.primaryKey())
        .addColumn('last_number', 'integer', (c) => c.notNull())
        .execute();
      await sql`insert into project_counter (id, last_number) select 1, coalesce(max(number), 0) from projects`.execute(db);

      await db.schema.alterTable('projects').addColumn('rush', 'boolean', (c) => c.notNull().defaultTo(false)).execute();
      await db.schema.alterTable('projects').addColumn('held', 'boolean', (c) => c.notNull().defaultTo(false)).execute();
      await db.schema.alterTable('projects').addColumn('hold_reason', 'text').execute();
      await db.schema.alterTable('projects').addColumn('hold_since', ts).execute();
      await db.schema.alterTable('projects').addColumn('hold_by_id', 'text', (c) => c.references('users.id')).execute();
      await db.schema.alterTable('projects').addColumn('repeat_of_id', 'text', (c) => c.references('projects.id')).execute();
      await sql`create index projects_priority on projects (held, rush, due_date, created_at desc, id desc)`.execute(db);
      // The dashboard's held and rush counts read only the open projects held or rush.
      await sql`create index projects_open_held on projects (held) where held and status not in ('DELIVERED', 'CANCELLED')`.execute(db);
      await sql`create index projects_open_rush on projects (rush) where rush and status not in ('DELIVERED', 'CANCELLED')`.execute(db);

      await db.schema.alterTable('customers').addColumn('account_manager_id', 'text', (c) => c.references('users.id')).execute();
    },
  };
}
