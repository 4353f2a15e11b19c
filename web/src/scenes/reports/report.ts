import { request } from '../../api';
import { todayIso } from '../../money';

/** GET /api/reports as the page reads it (interface.md, Reports); amounts in whole minor units (a string past 2^53). */
export interface Report {
  from: string;
  to: string;
  currency: string;
  onTime: { delivered: number; withDueDate: number; onTime: number; rate: number | null };
  turnaround: { medianDays: number | null; p90Days: number | null };
  byMonth: { month: string; created: number; delivered: number; invoiced: number | string; received: number | string }[];
  outstanding: { customerId: string | null; customerName: string | null; balance: number | string; oldestDays: number }[];
  aging: Record<AgingBucket, number | string>;
  otherCurrencies: Record<string, number>;
}

export const AGING_BUCKETS = ['0-30', '31-60', '61-90', '90+'] as const;
export type AgingBucket = (typeof AGING_BUCKETS)[number];

export interface Range {
  from: string;
  to: string;
}

/** The report over a range. Its key starts with 'stats' so the dashboard's live refresh (stats-updated) refetches it too. */
export const reportQuery = (range: Range) => ({
  queryKey: ['stats', 'reports', range.from, range.to],
  queryFn: () => request<Report>('GET', `/api/reports?from=${range.from}&to=${range.to}`),
});

export const reportCsvUrl = (report: 'byMonth' | 'outstanding', range: Range) => `/api/reports.csv?report=${report}&from=${range.from}&to=${range.to}`;

export const PRESETS = ['this-month', 'last-month', 'financial-year', 'custom'] as const;
export type Preset = (typeof PRESETS)[number];
export const PRESET_LABELS: Record<Preset, string> = {
  'this-month': 'This month',
  'last-month': 'Last month',
  'financial-year': 'This financial year',
  custom: 'Custom',
};

const pad = (n: number) => String(n).padStart(2, '0');
const lastDay = (year: number, month: number) => new Date(Date.UTC(year, month, 0)).getUTCDate();

/** A preset's range on `today` (YYYY-MM-DD): the financial year runs April to March. */
export function presetRange(preset: Exclude<Preset, 'custom'>, today: string = todayIso()): Range {
  const [year, month] = today.split('-').map(Number) as [number, number];
  if (preset === 'this-month') return { from: `${year}-${pad(month)}-01`, to: today };
  if (preset === 'last-month') {
    const [y, m] = month === 1 ? [year - 1, 12] : [year, month - 1];
    return { from: `${y}-${pad(m)}-01`, to: `${y}-${pad(m)}-${pad(lastDay(y, m))}` };
  }
  const start = month >= 4 ? year : year - 1;
  return { from: `${start}-04-01`, to: today };
}

/** A sum of amounts that may be digits past 2^53, as a bigint. */
export const sumAmounts = (amounts: (number | string)[]) => amounts.reduce<bigint>((a, b) => a + BigInt(b), 0n);

/** An amount as a chart's bar height, in major units (a chart draws floats; the table beside it gives the exact figure). */
export const chartMajor = (amount: number | string, digits = 2) => Number(amount) / 10 ** digits;

/** "2026-03" as "Mar 2026". */
export const monthLabel = (month: string) => new Date(`${month}-15T12:00:00`).toLocaleDateString(undefined, { month: 'short', year: 'numeric' });
