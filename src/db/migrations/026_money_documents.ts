import { type Kysely, sql } from 'kysely';
import type { Dialect } from '../index.js';

/**
 * Money documents (interface.md, "Money documents"):
 * - `shop_settings`: one row (`id` 'shop'), what the shop's documents print; made here with the default prefix.
 * - lines gain `unit_price` (minor units), `hsn_sac` (text: leading zeros count) and `gst_rate`;
 *   customers gain `state_code`, filled from the GSTIN's first two digits where there is one.
 * - `invoice_counters`: one row per financial year, its last sequence issued, updated in the issuing
 *   transaction (PostgreSQL: the row is locked from the number's choice to the commit, so instances
 *   and simultaneous requests take turns and a failed issue leaves no gap).
 * - `invoices`: every number issued, with the figures as issued (the register reads them, never the
 *   project's lines of today); (financial_year, sequence) and number unique, so a repeat cannot be stored.
 */
export function moneyDocuments(dialect: Dialect) {
  const pg = dialect === 'postgres';
  const ts = pg ? 'timestamptz' : 'text';
  const big = pg ? 'bigint' : 'integer';
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema
        .createTable('shop_settings')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('name', 'text')
        .addColumn('address', 'text')
        .addColumn('gstin', 'text')
        .addColumn('phone', 'text')
        .addColumn('email', 'text')
        .addColumn('bank_details', 'text')
        .addColumn('invoice_prefix', 'text', (c) => c.notNull())
        .addColumn('updated_at', ts)
        .execute();
      await sql`insert into shop_settings (id, invoice_prefix) values ('shop', 'INV')`.execute(db);

      await db.schema.alterTable('project_items').addColumn('unit_price', big).execute();
      await db.schema.alterTable('project_items').addColumn('hsn_sac', 'text').execute();
      await db.schema.alterTable('project_items').addColumn('gst_rate', 'integer').execute();

      await db.schema.alterTable('customers').addColumn('state_code', 'text').execute();
      await sql`update customers set state_code = substr(gstin, 1, 2) where gstin is not null`.execute(db);

      await db.schema
        .createTable('invoice_counters')
        .addColumn('financial_year', 'text', (c) => c.primaryKey())
        .addColumn('last_sequence', 'integer', (c) => c.notNull())
        .execute();

      await db.schema
        .createTable('invoices')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('number', 'text', (c) => c.notNull().unique())
        .addColumn('financial_year', 'text', (c) => c.notNull())
        .addColumn('sequence', 'integer', (c) => c.notNull())
        .addColumn('invoice_date', 'text', (c) => c.notNull())
        .addColumn('project_id', 'text', (c) => c.notNull().references('projects.id'))
        .addColumn('customer_id', 'text')
        .addColumn('customer_name', 'text', (c) => c.notNull())
        .addColumn('customer_gstin', 'text')
        .addColumn('state_code', 'text')
        .addColumn('taxable', big, (c) => c.notNull())
        .addColumn('cgst', big, (c) => c.notNull())
        .addColumn('sgst', big, (c) => c.notNull())
        .addColumn('igst', big, (c) => c.notNull())
        .addColumn('total', big, (c) => c.notNull())
        .addColumn('currency', 'text', (c) => c.notNull())
        // The INVOICE document; no foreign key: the invoice row is written just before the document's record, in one transaction.
        .addColumn('file_id', 'text', (c) => c.notNull())
        .addColumn('issued_by_id', 'text', (c) => c.notNull())
        .addColumn('created_at', ts, (c) => c.notNull())
        .execute();
      await db.schema.createIndex('invoices_year_sequence').unique().on('invoices').columns(['financial_year', 'sequence']).execute();
      await db.schema.createIndex('invoices_project_created').on('invoices').columns(['project_id', 'created_at']).execute();
      await db.schema.createIndex('invoices_date').on('invoices').columns(['invoice_date']).execute();
    },
  };
}
