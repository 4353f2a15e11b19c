import { type SelectQueryBuilder, sql } from 'kysely';
import type { DB } from './index.js';
import type { Tables } from './schema.js';

/** The tables a list's filters and order may name: the project, its POC and its customer. */
export type ListTables = Tables & { poc: Tables['users']; customer: Tables['customers'] };
export type ListQuery<O> = SelectQueryBuilder<ListTables, 'projects' | 'poc' | 'customer', O>;

/** How a list's rows are selected and read: the walk of the list's order (db/projects.ts) needs of a row only its place. */
export interface ListRows<O, R> {
  base(): ListQuery<O>;
  read(q: ListQuery<O>): Promise<R[]>;
  key(r: R): { id: string; created_at: string; due_date: string | null };
}

/** Where each field is in a CSV row (csvRowsOf's select, in this order). */
export const CSV_ROW = {
  id: 0,
  createdAt: 1,
  dueDate: 2,
  name: 3,
  customerName: 4,
  reference: 5,
  status: 6,
  piStatus: 7,
  pocName: 8,
  piNumber: 9,
  piAmount: 10,
  piCurrency: 11,
  piSubmittedAt: 12,
  piSubmittedById: 13,
  paid: 14,
  rush: 15,
  held: 16,
  holdReason: 17,
  holdSince: 18,
  number: 19,
} as const;

/**
 * The CSV's columns and no more (GET /api/projects.csv): the POC's and customer's names by LEFT
 * JOIN on primary keys, the payments' sum by a correlated subquery (payments' project_id index).
 * The columns are in CSV_ROW's order: rows are read as arrays.
 */
export const csvRowsOf = (db: DB) =>
  db
    .selectFrom('projects')
    .leftJoin('users as poc', 'poc.id', 'projects.poc_id')
    .leftJoin('customers as customer', 'customer.id', 'projects.customer_id')
    .select((eb) => [
      'projects.id',
      'projects.created_at',
      'projects.due_date',
      'projects.name',
      'customer.name as customer_name',
      'projects.reference',
      'projects.status',
      'projects.pi_status',
      'poc.name as poc_name',
      'projects.pi_number',
      'projects.pi_amount',
      'projects.pi_currency',
      'projects.pi_submitted_at',
      'projects.pi_submitted_by_id',
      eb.selectFrom('payments').select(sql<number | string | null>`cast(sum(payments.amount) as bigint)`.as('paid')).whereRef('payments.project_id', '=', 'projects.id').as('paid'),
      'projects.rush',
      'projects.held',
      'projects.hold_reason',
      'projects.hold_since',
      'projects.number',
    ]);

export type CsvSelection = ReturnType<typeof csvRowsOf> extends SelectQueryBuilder<infer _D, infer _T, infer O> ? O : never;
