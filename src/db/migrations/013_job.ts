import { type Kysely, type SqlBool, sql } from 'kysely';

/**
 * The job itself (interface.md, "The job itself"): a project's reference, due date and delivery
 * address as columns, its lines as rows of their own. Lines are a table rather than a JSON
 * column so that both databases can ask about them in plain SQL (which jobs print on a stock,
 * how many pieces are due this week), each with its own id and a place (`position`, from 0).
 *
 * `due_date` is text, YYYY-MM-DD: it compares and sorts as dates on both databases, with no zone
 * attached (PostgreSQL's date would come back as a JavaScript Date at some zone's midnight).
 * Indexes: `sort=due` walks (due_date, id), for everyone or one POC; the due filters and the
 * dashboard's due counts walk only the open projects that have a due date (partial indexes: the
 * delivered past, which grows without end, is never read to find what is overdue).
 */
export function job() {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      for (const column of ['reference', 'due_date', 'delivery_address']) {
        await db.schema.alterTable('projects').addColumn(column, 'text').execute();
      }

      await db.schema
        .createTable('project_items')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('project_id', 'text', (c) => c.notNull().references('projects.id').onDelete('cascade'))
        .addColumn('position', 'integer', (c) => c.notNull())
        .addColumn('description', 'text', (c) => c.notNull())
        .addColumn('quantity', 'integer', (c) => c.notNull())
        .addColumn('unit', 'text', (c) => c.notNull())
        .addColumn('size', 'text')
        .addColumn('stock', 'text')
        .addColumn('colours', 'text')
        .addColumn('finishing', 'text')
        .addColumn('notes', 'text')
        .execute();
      await db.schema.createIndex('project_items_project_position').unique().on('project_items').columns(['project_id', 'position']).execute();

      await db.schema.createIndex('projects_due_date_id').on('projects').columns(['due_date', 'id']).execute();
      await db.schema.createIndex('projects_poc_due_date_id').on('projects').columns(['poc_id', 'due_date', 'id']).execute();
      // The predicate is OPEN_WITH_DUE_DATE of db/projects.ts, word for word: SQLite uses a partial index only for a query that states it.
      const open = sql<SqlBool>`status not in ('DELIVERED', 'CANCELLED') and due_date is not null`;
      await db.schema.createIndex('projects_open_due_date_id').on('projects').columns(['due_date', 'id']).where(open).execute();
      await db.schema.createIndex('projects_poc_open_due_date_id').on('projects').columns(['poc_id', 'due_date', 'id']).where(open).execute();
    },
  };
}
