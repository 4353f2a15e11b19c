import type { CsvValue } from '../domain/csv.js';
import { isOverdue } from '../domain/due.js';
import type { ProjectWithNames } from '../domain/model.js';
import { formatMinor } from '../domain/money.js';
import { balanceOf } from '../domain/pi.js';

/** The columns of GET /api/projects.csv, in order (interface.md, "The job itself"). */
export const PROJECT_CSV_COLUMNS = [
  'id',
  'name',
  'customer',
  'reference',
  'status',
  'piStatus',
  'dueDate',
  'overdue',
  'poc',
  'piNumber',
  'piAmount',
  'currency',
  'paid',
  'balance',
  'createdAt',
  'rush',
  'held',
  'holdReason',
  'number',
] as const;

/**
 * One project as a CSV line's values: names rather than ids for the customer and the POC, amounts
 * in major units with the currency's digits (domain/money.ts, no floating point). `currency` is the
 * PI's, or `defaultCurrency` (the CURRENCY setting, that of payments received before a PI) without one.
 */
export function projectCsvValues(p: ProjectWithNames, today: string, defaultCurrency: string): CsvValue[] {
  const currency = p.pi?.currency ?? defaultCurrency;
  const balance = balanceOf(p.pi, p.paid);
  return [
    p.id,
    p.name,
    p.customerName,
    p.reference,
    p.status,
    p.piStatus,
    p.dueDate,
    isOverdue(p, today),
    p.pocName,
    p.pi?.number ?? null,
    p.pi ? formatMinor(p.pi.amount, currency) : null,
    currency,
    formatMinor(p.paid, currency),
    balance === null ? null : formatMinor(balance, currency),
    p.createdAt,
    p.rush,
    p.hold !== null,
    p.hold?.reason ?? null,
    p.number,
  ];
}
