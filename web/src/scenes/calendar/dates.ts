/** Calendar days as YYYY-MM-DD, reckoned in UTC so no time zone shifts a day (the days are the shop's, as due dates are). */

const toDate = (day: string) => new Date(`${day}T00:00:00Z`);
const toDay = (d: Date) => d.toISOString().slice(0, 10);

export const addDays = (day: string, n: number): string => toDay(new Date(toDate(day).getTime() + n * 86_400_000));
/** Monday of the day's week. */
export const mondayOf = (day: string): string => addDays(day, -((toDate(day).getUTCDay() + 6) % 7));
export const addMonths = (day: string, n: number): string => {
  const d = toDate(day);
  return toDay(new Date(Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + n, 1)));
};
export const monthOf = (day: string) => day.slice(0, 7);

/** The days a view shows: a week from Monday, or the whole weeks that hold the month. */
export function daysOf(view: 'month' | 'week', anchor: string): string[] {
  if (view === 'week') return Array.from({ length: 7 }, (_, i) => addDays(mondayOf(anchor), i));
  const first = `${monthOf(anchor)}-01`;
  const last = addDays(addMonths(first, 1), -1);
  const days: string[] = [];
  for (let d = mondayOf(first); d <= last || days.length % 7; d = addDays(d, 1)) days.push(d);
  return days;
}

const monthTitle = new Intl.DateTimeFormat(undefined, { month: 'long', year: 'numeric', timeZone: 'UTC' });
const dayTitle = new Intl.DateTimeFormat(undefined, { weekday: 'long', day: 'numeric', month: 'long', timeZone: 'UTC' });
const weekday = new Intl.DateTimeFormat(undefined, { weekday: 'short', timeZone: 'UTC' });
export const formatMonth = (day: string) => monthTitle.format(toDate(day));
export const formatLongDay = (day: string) => dayTitle.format(toDate(day));
export const formatWeekday = (day: string) => weekday.format(toDate(day));
export const dayOfMonth = (day: string) => Number(day.slice(8, 10));
