import { request } from '../../api';

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

import type { Range } from './range';
export type { Range };

/** The report over a range. Its key starts with 'stats' so the dashboard's live refresh (stats-updated) refetches it too. */
export const reportQuery = (range: Range) => ({
  queryKey: ['stats', 'reports', range.from, range.to],
  queryFn: () => request<Report>('GET', `/api/reports?from=${range.from}&to=${range.to}`),
});

export const reportCsvUrl = (report: 'byMonth' | 'outstanding', range: Range) => `/api/reports.csv?report=${report}&from=${range.from}&to=${range.to}`;

export { PRESETS, PRESET_LABELS, type Preset, monthEnd, presetRange } from './range';

/** A sum of amounts that may be digits past 2^53, as a bigint. */
export const sumAmounts = (amounts: (number | string)[]) => amounts.reduce<bigint>((a, b) => a + BigInt(b), 0n);

/** An amount as a chart's bar height, in major units (a chart draws floats; the table beside it gives the exact figure). */
export const chartMajor = (amount: number | string, digits = 2) => Number(amount) / 10 ** digits;

/** "2026-03" as "Mar 2026". */
export const monthLabel = (month: string) => new Date(`${month}-15T12:00:00`).toLocaleDateString(undefined, { month: 'short', year: 'numeric' });
