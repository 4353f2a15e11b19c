import { sql } from 'kysely';
import type { Database } from '../../src/db/index.js';
import { nameKey } from '../../src/domain/customer.js';
import { newId } from '../../src/ids.js';

/**
 * Many customers and projects at once, straight into the database (rows as the repositories write
 * them, in multi-row INSERTs): the CSV export's memory test and the search bench (issue 22).
 * Deterministic: project n is "Job n <word>", reference "PO-<n, 6 digits>", customer n % customers
 * ("Customer <k, 5 digits> <word> Prints"), due dates spread around `today` (a third overdue),
 * every third with a PI of n × 100 paise in INR.
 */
export interface SeedOptions {
  projects: number;
  customers: number;
  /** The POCs the projects are spread over (round robin). */
  pocIds: string[];
  /** YYYY-MM-DD: due dates fall from 120 days before to 240 days after. */
  today: string;
  /** Every `noCustomerEvery`-th project has no customer (default 10). */
  noCustomerEvery?: number;
  /** Characters of filler after each project's name (default none): bigger rows, for the tests of streaming. */
  namePadding?: number;
  /** The PIs' status (default SUBMITTED). */
  piStatus?: 'SUBMITTED' | 'VERIFIED';
}

const WORDS = ['Leaflets', 'Posters', 'Brochures', 'Catalogue', 'Labels', 'Cartons', 'Calendars', 'Diaries', 'Banners', 'Menus', 'Invitations', 'Stickers'];
const STATUSES = ['REQUESTED', 'APPROVED', 'PRINTING', 'DISPATCHED', 'DELIVERED', 'CANCELLED'];
const BATCH = 400;

export const seededCustomerName = (k: number) => `Customer ${String(k).padStart(5, '0')} ${WORDS[k % WORDS.length]} Prints`;
export const seededReference = (n: number) => `PO-${String(n).padStart(6, '0')}`;

const addDays = (date: string, days: number) => new Date(Date.parse(`${date}T00:00:00Z`) + days * 86_400_000).toISOString().slice(0, 10);

/** Inserts the customers, then the projects; answers the customers' ids in order. */
export async function seedProjects(database: Database, o: SeedOptions): Promise<{ customerIds: string[] }> {
  const db = database.db;
  const customerIds: string[] = [];
  const base = Date.parse('2025-01-01T00:00:00Z');
  for (let from = 0; from < o.customers; from += BATCH) {
    const rows = [];
    for (let k = from; k < Math.min(o.customers, from + BATCH); k++) {
      const id = newId();
      customerIds.push(id);
      const name = seededCustomerName(k);
      const at = new Date(base + k * 1000).toISOString();
      rows.push({ id, name, name_key: nameKey(name), gstin: null, email: null, phone: null, billing_address: null, active: true, created_at: at, updated_at: at });
    }
    await db.insertInto('customers').values(rows).execute();
  }
  const every = o.noCustomerEvery ?? 10;
  const padding = o.namePadding ? ` ${'sample text '.repeat(Math.ceil(o.namePadding / 12)).slice(0, o.namePadding)}` : '';
  // Job numbers after those given (migration 025), and the counter moved past them.
  const { last_number: first } = await db.selectFrom('project_counter').select('last_number').where('id', '=', 1).executeTakeFirstOrThrow();
  for (let from = 0; from < o.projects; from += BATCH) {
    const rows = [];
    for (let n = from; n < Math.min(o.projects, from + BATCH); n++) {
      const at = new Date(base + n * 60_000).toISOString();
      const pi = n % 3 === 0;
      rows.push({
        id: newId(),
        number: first + n + 1,
        name: `Job ${n} ${WORDS[n % WORDS.length]}${padding}`,
        description: null,
        poc_id: o.pocIds[n % o.pocIds.length]!,
        status: STATUSES[n % STATUSES.length]!,
        pi_status: pi ? (o.piStatus ?? 'SUBMITTED') : 'PENDING',
        approval_status: null,
        approval_note: null,
        approval_decided_by_id: null,
        approval_decided_at: null,
        created_at: at,
        updated_at: at,
        reference: seededReference(n),
        due_date: n % 7 === 6 ? null : addDays(o.today, (n % 361) - 120),
        delivery_address: null,
        customer_id: n % every === every - 1 || customerIds.length === 0 ? null : customerIds[n % customerIds.length]!,
        pi_number: pi ? `PI-${n}` : null,
        pi_amount: pi ? (n + 1) * 100 : null,
        pi_currency: pi ? 'INR' : null,
        pi_valid_until: null,
        pi_submitted_at: pi ? at : null,
        pi_submitted_by_id: pi ? o.pocIds[n % o.pocIds.length]! : null,
      });
    }
    await db.insertInto('projects').values(rows).execute();
  }
  await db.updateTable('project_counter').set({ last_number: first + o.projects }).where('id', '=', 1).execute();
  // Fresh statistics, as a database in use has them: the planners choose by them.
  await sql`analyze`.execute(db);
  return { customerIds };
}
