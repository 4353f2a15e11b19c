import type { Deps } from '../deps.js';
import { nowIso } from '../deps.js';
import { isUniqueViolation } from '../db/index.js';
import type { CustomerClient, CustomerFilter } from '../db/customers.js';
import { type Customer, type CustomerFields, parseCustomer, stateCodeFor } from '../domain/customer.js';
import type { Actor } from '../domain/model.js';
import { AppError, errors } from '../errors.js';
import { newId } from '../ids.js';
import { recordActivity } from './record-activity.js';

/** What a request may send for a customer. */
export interface CustomerInput {
  name?: string;
  gstin?: string | null;
  email?: string | null;
  phone?: string | null;
  billingAddress?: string | null;
  stateCode?: string | null;
  active?: boolean;
  accountManagerId?: string | null;
}

/** ADMIN and POC keep the customer list; a CLIENT only reads their own company. */
const keepsCustomers = (actor: Actor) => actor.role === 'ADMIN' || actor.role === 'POC';

async function fieldsOf(deps: Pick<Deps, 'store'>, actor: Actor, { accountManagerId, ...input }: CustomerInput, creating: boolean): Promise<CustomerFields> {
  const fields = parseCustomer(input, creating);
  if (fields instanceof AppError) throw fields;
  if (accountManagerId !== undefined) fields.accountManagerId = await accountManagerOf(deps, actor, accountManagerId);
  return fields;
}

/**
 * The account manager as sent (interface.md, "Job numbers, orders placed by a customer…"): only an
 * ADMIN sets it (anyone else 403); null clears; else an active POC or ADMIN (400 naming it).
 */
async function accountManagerOf(deps: Pick<Deps, 'store'>, actor: Actor, id: string | null): Promise<string | null> {
  if (actor.role !== 'ADMIN') throw errors.forbidden();
  if (id === null || id === '') return null;
  const user = await deps.store.users.findById(id);
  if (!user || !user.active || (user.role !== 'POC' && user.role !== 'ADMIN')) throw errors.invalidField('accountManagerId', 'must be the id of an active POC or ADMIN');
  return user.id;
}

/** GET /api/customers: by name; ADMIN and POC all of them, a CLIENT only their own (none without a customer). */
export async function listCustomers(deps: Pick<Deps, 'store'>, actor: Actor, filter: CustomerFilter): Promise<{ items: Customer[]; nextCursor: string | null }> {
  if (keepsCustomers(actor)) return deps.store.customers.list(filter);
  if (!actor.customerId) return { items: [], nextCursor: null };
  return deps.store.customers.list({ ...filter, id: actor.customerId });
}

/** GET /api/customers/:id: with its CLIENTs for ADMIN and POC; a CLIENT reads only their own, without them (anyone else's is a 404). */
export async function getCustomer(deps: Pick<Deps, 'store'>, actor: Actor, id: string): Promise<{ customer: Customer; clients?: CustomerClient[] }> {
  if (!keepsCustomers(actor) && actor.customerId !== id) throw errors.customerNotFound();
  const customer = await deps.store.customers.findById(id);
  if (!customer) throw errors.customerNotFound();
  if (!keepsCustomers(actor)) return { customer };
  return { customer, clients: await deps.store.customers.clients(id) };
}

/** POST /api/customers (ADMIN and POC): active unless an ADMIN says otherwise; a duplicate name (case-insensitive) is a 409, also under a race (the unique index). */
export async function createCustomer(deps: Pick<Deps, 'store'>, actor: Actor, input: CustomerInput): Promise<Customer> {
  if (!keepsCustomers(actor)) throw errors.forbidden();
  if (input.active !== undefined && actor.role !== 'ADMIN') throw errors.forbidden();
  const fields = await fieldsOf(deps, actor, input, true);
  const now = nowIso();
  const customer: Customer = {
    id: newId(),
    name: fields.name!,
    gstin: fields.gstin ?? null,
    email: fields.email ?? null,
    phone: fields.phone ?? null,
    billingAddress: fields.billingAddress ?? null,
    stateCode: settled(stateCodeFor(fields.gstin ?? null, fields.stateCode)) ?? null,
    active: fields.active ?? true,
    createdAt: now,
    updatedAt: now,
    accountManagerId: fields.accountManagerId ?? null,
  };
  return uniqueName(() =>
    deps.store.transaction(async (store) => {
      if (await store.customers.nameTaken(customer.name)) throw errors.customerNameExists();
      await store.customers.insert(customer);
      await recordActivity(store, actor, { type: 'customer', id: customer.id }, 'CUSTOMER_CREATED', { name: customer.name }, now);
      return customer;
    }),
  );
}

/** PATCH /api/customers/:id (ADMIN and POC; `active` only by an ADMIN). CUSTOMER_UPDATED names the fields that changed. */
export async function updateCustomer(deps: Pick<Deps, 'store'>, actor: Actor, id: string, input: CustomerInput): Promise<Customer> {
  if (!keepsCustomers(actor)) throw errors.forbidden();
  if (input.active !== undefined && actor.role !== 'ADMIN') throw errors.forbidden();
  const fields = await fieldsOf(deps, actor, input, false);
  const now = nowIso();
  return uniqueName(() =>
    deps.store.transaction(async (store) => {
      const current = await store.customers.findById(id);
      if (!current) throw errors.customerNotFound();
      if (fields.name !== undefined && (await store.customers.nameTaken(fields.name, id))) throw errors.customerNameExists();
      const gstin = fields.gstin !== undefined ? fields.gstin : current.gstin;
      const stateCode = settled(stateCodeFor(gstin, fields.stateCode));
      if (stateCode !== undefined) fields.stateCode = stateCode;
      const changed = (Object.keys(fields) as (keyof CustomerFields)[]).filter((k) => fields[k] !== current[k]);
      if (!changed.length) return current;
      const updated = await store.customers.update(id, fields, now);
      await recordActivity(store, actor, { type: 'customer', id }, 'CUSTOMER_UPDATED', { changed }, now);
      return updated!;
    }),
  );
}

/** The state code's rule's answer, its refusal thrown. */
function settled<T>(value: T | AppError): T {
  if (value instanceof AppError) throw value;
  return value;
}

/** Two requests naming the same new customer at once: the unique index decides, the loser gets the 409. */
async function uniqueName<T>(fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (err) {
    if (isUniqueViolation(err)) throw errors.customerNameExists();
    throw err;
  }
}
