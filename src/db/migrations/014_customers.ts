import type { Kysely } from 'kysely';
import type { Dialect } from '../index.js';

/**
 * Customers (interface.md, "Customers, and who may see a project"): the companies the shop prints
 * for. `name_key` is the name case-folded (domain/customer.ts, nameKey): its unique index makes the
 * duplicate rule hold under a race. Users and projects gain a nullable `customer_id`.
 * Indexes: the customer list walks (name_key, id); the project list filtered by customer and a
 * CLIENT's visibility predicate walk (customer_id, created_at, id); a customer's CLIENTs and the
 * emails' recipients read users by customer_id.
 */
export function customers(dialect: Dialect) {
  const pg = dialect === 'postgres';
  const ts = pg ? 'timestamptz' : 'text';
  const bool = pg ? 'boolean' : 'integer';
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema
        .createTable('customers')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('name', 'text', (c) => c.notNull())
        .addColumn('name_key', 'text', (c) => c.notNull())
        .addColumn('gstin', 'text')
        .addColumn('email', 'text')
        .addColumn('phone', 'text')
        .addColumn('billing_address', 'text')
        .addColumn('active', bool, (c) => c.notNull())
        .addColumn('created_at', ts, (c) => c.notNull())
        .addColumn('updated_at', ts, (c) => c.notNull())
        .execute();
      await db.schema.createIndex('customers_name_key').unique().on('customers').columns(['name_key']).execute();
      await db.schema.createIndex('customers_active_name_key_id').on('customers').columns(['active', 'name_key', 'id']).execute();

      await db.schema.alterTable('users').addColumn('customer_id', 'text', (c) => c.references('customers.id')).execute();
      await db.schema.createIndex('users_customer_id').on('users').columns(['customer_id']).execute();

      await db.schema.alterTable('projects').addColumn('customer_id', 'text', (c) => c.references('customers.id')).execute();
      await db.schema.createIndex('projects_customer_created_at_id').on('projects').columns(['customer_id', 'created_at', 'id']).execute();
    },
  };
}
