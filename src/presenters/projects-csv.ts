import { type CsvValue, csvField } from '../domain/csv.js';
import { CSV_ROW as C } from '../db/projects-csv.js';
import { isOverdue } from '../domain/due.js';
import type { Project, ProjectWithNames } from '../domain/model.js';
import { formatMinor } from '../domain/money.js';
import { balanceOf } from '../domain/pi.js';
import { isoInZone } from '../domain/shop-format.js';

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
 * createdAt is written with the shop's offset (TIMEZONE), so its date is the one the screen shows.
 */
export function projectCsvValues(p: ProjectWithNames, today: string, defaultCurrency: string, timeZone: string): CsvValue[] {
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
    isoInZone(p.createdAt, timeZone),
    p.rush,
    p.hold !== null,
    p.hold?.reason ?? null,
    p.number,
  ];
}

/**
 * One line of the export from a row as the database gave it (db/projects-csv.ts, CSV_ROW): what
 * csvLine(projectCsvValues(…)) writes for the same project, byte for byte, made from the row's
 * fields directly (an export allocated ~12 KB a line through the project objects).
 */
export function projectCsvLine(r: readonly unknown[], today: string, defaultCurrency: string, timeZone: string): string {
  // A PI is there once submitted: its number, amount and submitter are set together (as db/rows.ts reads it).
  const hasPi = r[C.piNumber] !== null && r[C.piAmount] !== null && r[C.piCurrency] !== null && r[C.piSubmittedAt] !== null && r[C.piSubmittedById] !== null;
  const currency = hasPi ? (r[C.piCurrency] as string) : defaultCurrency;
  const amount = hasPi ? Number(r[C.piAmount]) : 0;
  const paid = Number(r[C.paid] ?? 0);
  const status = r[C.status] as Project['status'];
  const dueDate = r[C.dueDate] as string | null;
  const held = Boolean(r[C.held]) && r[C.holdReason] !== null && r[C.holdSince] !== null;
  return (
    csvField(r[C.id] as string) +
    ',' +
    csvField(r[C.name] as string) +
    ',' +
    csvField(r[C.customerName] as string | null) +
    ',' +
    csvField(r[C.reference] as string | null) +
    ',' +
    csvField(status) +
    ',' +
    csvField(r[C.piStatus] as string) +
    ',' +
    csvField(dueDate) +
    ',' +
    csvField(isOverdue({ dueDate, status }, today)) +
    ',' +
    csvField(r[C.pocName] as string | null) +
    ',' +
    csvField(hasPi ? (r[C.piNumber] as string) : null) +
    ',' +
    csvField(hasPi ? formatMinor(amount, currency) : null) +
    ',' +
    csvField(currency) +
    ',' +
    csvField(formatMinor(paid, currency)) +
    ',' +
    csvField(hasPi ? formatMinor(amount - paid, currency) : null) +
    ',' +
    csvField(isoInZone(r[C.createdAt] as string, timeZone)) +
    ',' +
    csvField(Boolean(r[C.rush])) +
    ',' +
    csvField(held) +
    ',' +
    csvField(held ? (r[C.holdReason] as string) : null) +
    ',' +
    csvField(r[C.number] as number) +
    '\r\n'
  );
}
