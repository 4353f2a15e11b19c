import type { Deps } from '../deps.js';
import { todayOf } from '../deps.js';
import { addDays } from '../domain/due.js';
import { csvHeader, csvLine } from '../domain/csv.js';
import type { Actor } from '../domain/model.js';
import { formatMinor } from '../domain/money.js';
import { DayTable, agingStarts, balanceFigures, defaultRange, deliveryFigures, exactAmount, monthsBetween, rangeRefusal } from '../domain/reports.js';
import { AppError, errors } from '../errors.js';

export const REPORT_CSVS = ['byMonth', 'outstanding'] as const;
export type ReportCsv = (typeof REPORT_CSVS)[number];
export const REPORT_CSV_COLUMNS: Record<ReportCsv, readonly string[]> = {
  byMonth: ['month', 'created', 'delivered', 'invoiced', 'received'],
  outstanding: ['customer', 'balance', 'oldestDays'],
};

type ReportDeps = Pick<Deps, 'store' | 'config' | 'clock'>;

/** The range asked for, with its defaults; refused (400) when inverted or too long. ADMINs only. */
function rangeOf(deps: ReportDeps, actor: Actor, query: { from?: string; to?: string }) {
  if (actor.role !== 'ADMIN') throw errors.forbidden();
  const defaults = defaultRange(todayOf(deps));
  const from = query.from ?? defaults.from;
  const to = query.to ?? defaults.to;
  const refusal = rangeRefusal(from, to);
  if (refusal) throw new AppError(400, refusal);
  return { from, to };
}

/**
 * What the reads of a report from `from` through `to` are given: its months, the zone's day table,
 * its first and last instants (start, end: the day after `to` begins) and the months' bounds (each
 * month's first day in the range, the range's first day for the first, then the end).
 */
export function shopReportArgs(config: { timeZone: string }, from: string, to: string) {
  const months = monthsBetween(from, to);
  const days = new DayTable(from, to, config.timeZone);
  const iso = (day: string) => new Date(days.start(day)).toISOString();
  const start = iso(from);
  const end = iso(addDays(to, 1));
  const bounds = [start, ...months.slice(1).map((m) => iso(`${m}-01`)), end];
  return { from, to, months, days, start, end, bounds };
}

/**
 * GET /api/reports (interface.md, Reports): the shop's figures from `from` through `to`, days in
 * TIMEZONE. Six aggregate reads whatever the number of projects; the days of the instants read
 * are found in one table of the zone's day starts (domain/reports.ts).
 */
export async function shopReport(deps: ReportDeps, actor: Actor, query: { from?: string; to?: string }) {
  const { from, to } = rangeOf(deps, actor, query);
  const { currency } = deps.config;
  const { months, days, start, end, bounds } = shopReportArgs(deps.config, from, to);
  const reports = deps.store.reports;
  const [deliveries, created, received, invoiced, balances, otherPayments] = await Promise.all([
    reports.deliveries(actor, start, end),
    reports.createdIn(actor, bounds),
    reports.receivedByMonth(from, to, currency),
    reports.invoicedByMonth(from, to, currency),
    reports.openBalances(actor, to, end, currency, agingStarts(to, days)),
    reports.otherCurrencyPayments(from, to, currency),
  ]);
  const delivery = deliveryFigures(deliveries, days);
  const balance = balanceFigures(
    balances.filter((b) => b.currency === currency),
    to,
    days,
  );
  // Projects whose money is in another currency, counted apart: an open balance as of `to`, or a payment in the range.
  const others = new Map<string, Set<string>>();
  const otherBalances = balances.flatMap((b) => (b.currency !== currency && b.projectId !== null ? [{ currency: b.currency, projectId: b.projectId }] : []));
  for (const { currency: c, projectId } of [...otherBalances, ...otherPayments]) {
    others.set(c, (others.get(c) ?? new Set()).add(projectId));
  }
  return {
    from,
    to,
    currency,
    onTime: delivery.onTime,
    turnaround: delivery.turnaround,
    byMonth: months.map((month, i) => ({
      month,
      created: created[i] ?? 0,
      delivered: delivery.deliveredByMonth.get(month) ?? 0,
      invoiced: exactAmount(invoiced.get(month) ?? 0n),
      received: exactAmount(received.get(month) ?? 0n),
    })),
    outstanding: balance.outstanding,
    aging: balance.aging,
    otherCurrencies: Object.fromEntries([...others].sort(([a], [b]) => a.localeCompare(b)).map(([c, ids]) => [c, ids.size])),
  };
}

export type ShopReport = Awaited<ReturnType<typeof shopReport>>;

/**
 * GET /api/reports.csv: one report's figures as CSV lines (the export's rules, domain/csv.ts),
 * amounts in the currency's major units. The figures are made (and the request refused) before
 * the first line, so a refusal is still a JSON answer.
 */
export function* reportCsvLines(figures: ShopReport, report: ReportCsv): Generator<string> {
  const money = (amount: number | string) => formatMinor(amount, figures.currency);
  yield csvHeader(REPORT_CSV_COLUMNS[report]);
  if (report === 'byMonth') {
    for (const m of figures.byMonth) yield csvLine([m.month, m.created, m.delivered, money(m.invoiced), money(m.received)]);
  } else {
    for (const o of figures.outstanding) yield csvLine([o.customerName, money(o.balance), o.oldestDays]);
  }
}

/** The file name a report's CSV is offered under. */
export const reportCsvFilename = (report: ReportCsv, figures: ShopReport) => `report-${report}-${figures.from}-${figures.to}.csv`;
