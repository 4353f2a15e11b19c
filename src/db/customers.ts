import { type Selectable, sql } from 'kysely';
import type { Customer, CustomerFields } from '../domain/customer.js';
import { nameKey } from '../domain/customer.js';
import { errors } from '../errors.js';
import type { DB } from './index.js';
import type { CustomersTable } from './schema.js';

export interface CustomerFilter {
  /** Name contains (case-insensitive). */
  q?: string;
  /** true: the active ones, false: the inactive ones, undefined: all. */
  active?: boolean;
  /** Only this one (a CLIENT's own customer). */
  id?: string;
  limit: number;
  cursor?: string;
}

/** A CLIENT attached to a customer, as the customer's detail lists them. */
export interface CustomerClient {
  id: string;
  name: string;
  email: string;
  active: boolean;
}

const toCustomer = (r: Selectable<CustomersTable>): Customer => ({
  id: r.id,
  name: r.name,
  gstin: r.gstin,
  email: r.email,
  phone: r.phone,
  billingAddress: r.billing_address,
  stateCode: r.state_code ?? null,
  active: Boolean(r.active),
  createdAt: r.created_at,
  updatedAt: r.updated_at,
  accountManagerId: r.account_manager_id,
});

/** Keyset pagination by name: over (name_key, id). Opaque to clients, decoded strictly. */
const CURSOR_PREFIX = 'name';
const ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const encodeCursor = (c: { key: string; id: string }) => Buffer.from(JSON.stringify([CURSOR_PREFIX, c.key, c.id])).toString('base64url');
function decodeCursor(cursor: string | undefined): { key: string; id: string } | undefined {
  if (!cursor) return undefined;
  try {
    const decoded: unknown = /^[A-Za-z0-9_-]+$/.test(cursor) ? JSON.parse(Buffer.from(cursor, 'base64url').toString()) : null;
    if (Array.isArray(decoded) && decoded.length === 3 && decoded[0] === CURSOR_PREFIX && typeof decoded[1] === 'string' && typeof decoded[2] === 'string' && ID.test(decoded[2])) {
      return { key: decoded[1], id: decoded[2] };
    }
  } catch {
    // falls through to the refusal
  }
  throw errors.invalidCursor();
}

const escapeLike = (s: string) => s.replace(/[\\%_]/g, (c) => `\\${c}`);

/** Customers (migration 014). The unique index on name_key is the duplicate rule: callers map its violation to 409. */
export function customersRepo(db: DB) {
  return {
    async insert(c: Customer): Promise<void> {
      await db
        .insertInto('customers')
        .values({
          id: c.id,
          name: c.name,
          name_key: nameKey(c.name),
          gstin: c.gstin,
          email: c.email,
          phone: c.phone,
          billing_address: c.billingAddress,
          state_code: c.stateCode ?? null,
          active: c.active,
          created_at: c.createdAt,
          updated_at: c.updatedAt,
          account_manager_id: c.accountManagerId ?? null,
        })
        .execute();
    },
    async findById(id: string): Promise<Customer | undefined> {
      const row = await db.selectFrom('customers').selectAll().where('id', '=', id).executeTakeFirst();
      return row && toCustomer(row);
    },
    /** Whether another customer has this name (case-insensitively). */
    async nameTaken(name: string, exceptId?: string): Promise<boolean> {
      const row = await db
        .selectFrom('customers')
        .select('id')
        .where('name_key', '=', nameKey(name))
        .$if(exceptId !== undefined, (q) => q.where('id', '!=', exceptId!))
        .executeTakeFirst();
      return row !== undefined;
    },
    /** By name (case-insensitive order, ties by id), one page after the cursor. */
    async list(f: CustomerFilter): Promise<{ items: Customer[]; nextCursor: string | null }> {
      const cursor = decodeCursor(f.cursor);
      const rows = await db
        .selectFrom('customers')
        .selectAll()
        .$if(f.active !== undefined, (q) => q.where('active', '=', f.active!))
        .$if(f.id !== undefined, (q) => q.where('id', '=', f.id!))
        .$if(Boolean(f.q), (q) => q.where(sql<boolean>`name_key like ${`%${escapeLike(nameKey(f.q!))}%`} escape '\\'`))
        .$if(cursor !== undefined, (q) => q.where((eb) => eb(eb.refTuple('name_key', 'id'), '>', eb.tuple(cursor!.key, cursor!.id))))
        .orderBy('name_key')
        .orderBy('id')
        .limit(f.limit + 1)
        .execute();
      const shown = rows.slice(0, f.limit);
      const last = shown[shown.length - 1];
      return { items: shown.map(toCustomer), nextCursor: rows.length > f.limit && last ? encodeCursor({ key: last.name_key, id: last.id }) : null };
    },
    async update(id: string, f: CustomerFields, now: string): Promise<Customer | undefined> {
      const row = await db
        .updateTable('customers')
        .set({
          name: f.name,
          name_key: f.name === undefined ? undefined : nameKey(f.name),
          gstin: f.gstin,
          email: f.email,
          phone: f.phone,
          billing_address: f.billingAddress,
          state_code: f.stateCode,
          active: f.active,
          account_manager_id: f.accountManagerId,
          updated_at: now,
        })
        .where('id', '=', id)
        .returningAll()
        .executeTakeFirst();
      return row && toCustomer(row);
    },
    /** The CLIENT users attached to a customer, by name. */
    async clients(customerId: string): Promise<CustomerClient[]> {
      const rows = await db
        .selectFrom('users')
        .select(['id', 'name', 'email', 'active'])
        .where('customer_id', '=', customerId)
        .where('role', '=', 'CLIENT')
        .orderBy('name')
        .orderBy('id')
        .execute();
      return rows.map((r) => ({ id: r.id, name: r.name, email: r.email, active: Boolean(r.active) }));
    },
  };
}
