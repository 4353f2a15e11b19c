import { addDays, isCalendarDate, todayIn } from './due.js';
import { offsetMinutes } from './shop-format.js';

/*
 * Reports (interface.md, "Additions of 2026-11-27", Reports): the pure rules behind the figures.
 * Days are YYYY-MM-DD in the shop's time zone (TIMEZONE); instants are the ISO strings every table
 * stores. Turning an instant into its day goes through a table of the days' starting instants
 * (DayTable) instead of Intl for each row: a report over a year reads tens of thousands of rows.
 */

/** Most a report may span: `to` no later than the same date five years after `from`. */
export const MAX_REPORT_YEARS = 5;

export const AGING_BUCKETS = ['0-30', '31-60', '61-90', '90+'] as const;
export type AgingBucket = (typeof AGING_BUCKETS)[number];

/** The bucket of a balance by the days since its PI's verification. */
export const agingBucket = (days: number): AgingBucket => (days <= 30 ? '0-30' : days <= 60 ? '31-60' : days <= 90 ? '61-90' : '90+');

/** Every month ("YYYY-MM") from `from`'s to `to`'s, both included. */
export function monthsBetween(from: string, to: string): string[] {
  const months: string[] = [];
  let [year, month] = from.split('-').map(Number) as [number, number];
  const last = to.slice(0, 7);
  for (;;) {
    const m = `${String(year).padStart(4, '0')}-${String(month).padStart(2, '0')}`;
    if (m > last) return months;
    months.push(m);
    month++;
    if (month === 13) [year, month] = [year + 1, 1];
  }
}

/** The p-th percentile by nearest rank: the value at rank ceil(p/100 × n) of the values sorted ascending; null for none. */
export function nearestRank(values: readonly number[], p: number): number | null {
  if (!values.length) return null;
  const sorted = [...values].sort((a, b) => a - b);
  const rank = Math.max(1, Math.ceil((p * sorted.length) / 100));
  return sorted[rank - 1]!;
}

/** part / whole as a fraction rounded half up to 4 decimals (0.66666 → 0.6667); null when whole is 0. Integer arithmetic, then one division. */
export function rate(part: number, whole: number): number | null {
  if (whole === 0) return null;
  // round(part × 10000 / whole) half up, in integers: floor((2 × part × 10000 + whole) / (2 × whole)).
  return Math.floor((2 * part * 10_000 + whole) / (2 * whole)) / 10_000;
}

/** Calendar days from `a` to `b` (YYYY-MM-DD; negative when b is before a). */
export const daysBetween = (a: string, b: string): number => (Date.parse(`${b}T00:00:00Z`) - Date.parse(`${a}T00:00:00Z`)) / 86_400_000;

/** The first day of `today`'s month `monthsBack` months earlier. */
export function firstOfMonthBefore(today: string, monthsBack: number): string {
  const [year, month] = today.split('-').map(Number) as [number, number];
  const index = year * 12 + (month - 1) - monthsBack;
  return `${String(Math.floor(index / 12)).padStart(4, '0')}-${String((index % 12) + 1).padStart(2, '0')}-01`;
}

/** The same date `years` later (29 February → 28 February in a year without one). */
export function addYears(date: string, years: number): string {
  const [y, m, d] = date.split('-') as [string, string, string];
  const same = `${String(Number(y) + years).padStart(4, '0')}-${m}-${d}`;
  const real: boolean = isCalendarDate(same);
  return real ? same : `${same.slice(0, 8)}28`;
}

/** The refusal of a report's range, naming the parameter, or null. Dates already checked as calendar dates. */
export function rangeRefusal(from: string, to: string): string | null {
  if (from > to) return 'to must not be before from';
  if (to > addYears(from, MAX_REPORT_YEARS)) return `from and to must be at most ${MAX_REPORT_YEARS} years apart`;
  return null;
}

/** The default range: the first day of the month 11 months ago to today. */
export const defaultRange = (today: string) => ({ from: firstOfMonthBefore(today, 11), to: today });

/** The instant (ms since the epoch) at which `day` begins in `timeZone` (the first instant whose date there is `day`). */
export function dayStart(day: string, timeZone: string): number {
  const midnightUtc = Date.parse(`${day}T00:00:00Z`);
  // The zone's offset near that midnight, then once more at the instant found (an offset change
  // that day moves it); a day that starts at 01:00 (a change at midnight) is caught by the last check.
  let t = midnightUtc - offsetAt(midnightUtc, timeZone);
  t = midnightUtc - offsetAt(t, timeZone);
  while (todayIn(timeZone, new Date(t)) < day) t += 15 * 60_000;
  while (todayIn(timeZone, new Date(t - 1)) >= day) t -= 15 * 60_000;
  return t;
}

/** The zone's offset from UTC at an instant, in ms (IST: +19,800,000): the shop's own rule (shop-format.ts). */
const offsetAt = (ms: number, timeZone: string): number => offsetMinutes(new Date(ms), timeZone) * 60_000;

/**
 * The days of a zone from `first` to `last`, with the instant each begins: `dayOf` finds an
 * instant's day by binary search. Instants outside are answered through Intl, as they are rare.
 */
export class DayTable {
  #days: string[] = [];
  #starts: number[] = [];

  constructor(
    first: string,
    last: string,
    readonly timeZone: string,
  ) {
    this.#cover(first, addDays(last, 1));
  }

  /** Adds the days from `first` through `last` (a run next to or overlapping the table's) with their starts. */
  #cover(first: string, last: string): void {
    const days: string[] = [];
    const starts: number[] = [];
    for (let day = first; day <= last; day = addDays(day, 1)) {
      if (this.#days.length && day >= this.#days[0]! && day <= this.#days[this.#days.length - 1]!) continue;
      days.push(day);
      starts.push(dayStart(day, this.timeZone));
    }
    if (!this.#days.length || (days.length && days[0]! > this.#days[0]!)) {
      this.#days = this.#days.concat(days);
      this.#starts = this.#starts.concat(starts);
    } else {
      this.#days = days.concat(this.#days);
      this.#starts = starts.concat(this.#starts);
    }
  }

  /** The instant `day` begins (ms), from the table when it holds it. */
  start(day: string): number {
    const i = this.#days.indexOf(day);
    return i >= 0 ? this.#starts[i]! : dayStart(day, this.timeZone);
  }

  /**
   * The day of an instant (an ISO string). An instant outside the table grows it to its day (one
   * zone lookup per day added, not per row: rows before the range, such as the creation of a
   * project delivered in it, are many).
   */
  dayOf(iso: string): string {
    const ms = Date.parse(iso);
    if (ms < this.#starts[0]!) this.#cover(todayIn(this.timeZone, new Date(ms)), this.#days[0]!);
    else if (ms >= this.#starts[this.#starts.length - 1]!) this.#cover(this.#days[this.#days.length - 1]!, addDays(todayIn(this.timeZone, new Date(ms)), 1));
    const starts = this.#starts;
    let lo = 0;
    let hi = starts.length - 1;
    // The last start at or before ms: starts[lo] <= ms < starts[hi].
    while (hi - lo > 1) {
      const mid = (lo + hi) >> 1;
      if (starts[mid]! <= ms) lo = mid;
      else hi = mid;
    }
    return this.#days[lo]!;
  }
}

/** A delivered project as the report reads it: when it was created and delivered (instants), and its due date. */
export interface Delivery {
  createdAt: string;
  deliveredAt: string;
  dueDate: string | null;
}

/** On-time delivery and turnaround over the deliveries in a range (all of them delivered in it). */
export function deliveryFigures(deliveries: readonly Delivery[], days: DayTable) {
  let withDueDate = 0;
  let onTime = 0;
  const turnaround: number[] = [];
  const byMonth = new Map<string, number>();
  for (const d of deliveries) {
    const delivered = days.dayOf(d.deliveredAt);
    byMonth.set(delivered.slice(0, 7), (byMonth.get(delivered.slice(0, 7)) ?? 0) + 1);
    turnaround.push(daysBetween(days.dayOf(d.createdAt), delivered));
    if (d.dueDate === null) continue;
    withDueDate++;
    if (delivered <= d.dueDate) onTime++;
  }
  return {
    onTime: { delivered: deliveries.length, withDueDate, onTime, rate: rate(onTime, withDueDate) },
    turnaround: { medianDays: nearestRank(turnaround, 50), p90Days: nearestRank(turnaround, 90) },
    deliveredByMonth: byMonth,
  };
}

/** A verified PI still not paid in full as of the report's last day. */
export interface OpenBalance {
  customerId: string | null;
  customerName: string | null;
  /** PI amount less the payments received by the last day; positive. */
  balance: bigint;
  /** The instant of its verify-pi action (of a group's oldest). */
  verifiedAt: string;
}

/** A sum as a JSON number while it is exact, else as its digits: never rounded. */
export const exactAmount = (n: bigint): number | string => (n <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(n) : n.toString());

/**
 * The instants (ISO) the days 30, 60 and 90 days before `asOf` begin: a verification at or after
 * the first is at most 30 days old on `asOf` (agingBucket's '0-30'), before it and at or after the
 * second '31-60', and so on; the bounds the database groups balances by (db/reports.ts).
 */
export function agingStarts(asOf: string, days: DayTable): [string, string, string] {
  const at = (back: number) => new Date(days.start(addDays(asOf, -back))).toISOString();
  return [at(30), at(60), at(90)];
}

/**
 * Who owes what as of `asOf` (largest first; ties by name, the customer-less last) and the balances
 * by age. A balance may be one PI or a group of one customer's PIs in one bucket with the group's
 * oldest verification (agingStarts): the sums, the oldest ages and the buckets come out the same.
 */
export function balanceFigures(balances: readonly OpenBalance[], asOf: string, days: DayTable) {
  const byCustomer = new Map<string | null, { customerId: string | null; customerName: string | null; balance: bigint; oldestDays: number }>();
  const aging: Record<AgingBucket, bigint> = { '0-30': 0n, '31-60': 0n, '61-90': 0n, '90+': 0n };
  for (const b of balances) {
    if (b.balance <= 0n) continue;
    const age = Math.max(0, daysBetween(days.dayOf(b.verifiedAt), asOf));
    aging[agingBucket(age)] += b.balance;
    const entry = byCustomer.get(b.customerId) ?? { customerId: b.customerId, customerName: b.customerName, balance: 0n, oldestDays: 0 };
    entry.balance += b.balance;
    entry.oldestDays = Math.max(entry.oldestDays, age);
    byCustomer.set(b.customerId, entry);
  }
  const outstanding = [...byCustomer.values()]
    .sort((a, b) =>
      a.balance !== b.balance
        ? a.balance > b.balance
          ? -1
          : 1
        : (a.customerName === null ? 1 : 0) - (b.customerName === null ? 1 : 0) || (a.customerName ?? '').localeCompare(b.customerName ?? ''),
    )
    .map((o) => ({ ...o, balance: exactAmount(o.balance) }));
  return {
    outstanding,
    aging: Object.fromEntries(AGING_BUCKETS.map((k) => [k, exactAmount(aging[k])])) as Record<AgingBucket, number | string>,
  };
}
