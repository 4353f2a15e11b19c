/**
 * Money, dates and times as the shop reads them outside the web app (emails, the CSV): money as
 * the web app shows it, INR in the Indian grouping (₹87,615.00); a calendar date "27 Nov 2026";
 * a moment in the shop's time zone (TIMEZONE). Pure: the time zone is an argument.
 */
import { formatMinor } from './money.js';

const moneyFormats = new Map<string, Intl.NumberFormat>();

/**
 * An amount in minor units as money: 8761500 INR is "₹87,615.00" (lakhs and crores, as the web
 * app and the shop write them); another currency in the international grouping with its own
 * symbol or code and digits ("$1,250.50", "¥5", "KWD 1.234"). The minor units become a decimal
 * text by integer arithmetic (formatMinor) and Intl formats that text as it is: no float.
 */
export function formatMoney(amount: number | bigint | string, currency: string): string {
  let format = moneyFormats.get(currency);
  if (!format) moneyFormats.set(currency, (format = new Intl.NumberFormat(currency === 'INR' ? 'en-IN' : 'en-US', { style: 'currency', currency })));
  // The ES2022 typings know only number | bigint; a decimal string is Intl.NumberFormat v3 (Node 20).
  return format.format(formatMinor(amount, currency) as unknown as number);
}

/** Month names fixed here rather than Intl's: en-GB's September became "Sept" in recent ICU data. */
const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'] as const;

/** A calendar date (YYYY-MM-DD, already the shop's day) as "27 Nov 2026"; anything else is returned as it is. */
export function formatShopDate(day: string): string {
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(day);
  const month = m && MONTHS[Number(m[2]) - 1];
  return m && month ? `${Number(m[3])} ${month} ${m[1]}` : day;
}

const zoneFormats = new Map<string, Intl.DateTimeFormat>();

/** The wall-clock fields of an instant in a time zone. */
function wallClock(instant: Date, timeZone: string): { year: number; month: number; day: number; hour: number; minute: number; second: number } {
  let format = zoneFormats.get(timeZone);
  if (!format) {
    format = new Intl.DateTimeFormat('en-US', { timeZone, hourCycle: 'h23', year: 'numeric', month: 'numeric', day: 'numeric', hour: 'numeric', minute: 'numeric', second: 'numeric' });
    zoneFormats.set(timeZone, format);
  }
  // en-US numeric, h23: "11/27/2026, 19:35:12" — month, day, year, hour, minute, second. Read as digits:
  // formatToParts made an object per part (2.4 KB a call; the CSV export calls it once a line).
  const text = format.format(instant);
  const n = [0, 0, 0, 0, 0, 0];
  let field = 0;
  let inNumber = false;
  for (let i = 0; i < text.length && field < 6; i++) {
    const digit = text.charCodeAt(i) - 48;
    if (digit >= 0 && digit <= 9) {
      n[field] = n[field]! * 10 + digit;
      inNumber = true;
    } else if (inNumber) {
      field++;
      inNumber = false;
    }
  }
  return { year: n[2]!, month: n[0]!, day: n[1]!, hour: n[3]!, minute: n[4]!, second: n[5]! };
}

const two = (n: number) => String(n).padStart(2, '0');

/** The zone's offset from UTC at that instant, in minutes (+330 for Asia/Kolkata, -300 or -240 for America/New_York). */
export function offsetMinutes(instant: Date, timeZone: string): number {
  const w = wallClock(instant, timeZone);
  const asUtc = Date.UTC(w.year, w.month - 1, w.day, w.hour, w.minute, w.second);
  return Math.round((asUtc - Math.floor(instant.getTime() / 1000) * 1000) / 60_000);
}

/**
 * An ISO 8601 timestamp (UTC, as stored) in the shop's time zone, with its offset:
 * "2026-11-27T14:05:12.345Z" in Asia/Kolkata is "2026-11-27T19:35:12.345+05:30"; in UTC "+00:00".
 * The same instant, so a spreadsheet or a script reads it exactly; the date part is the shop's date.
 */
export function isoInZone(iso: string, timeZone: string): string {
  const instant = new Date(iso);
  if (Number.isNaN(instant.getTime())) return iso;
  const offset = offsetMinutes(instant, timeZone);
  const local = new Date(instant.getTime() + offset * 60_000).toISOString().slice(0, -1);
  const sign = offset < 0 ? '-' : '+';
  return `${local}${sign}${two(Math.floor(Math.abs(offset) / 60))}:${two(Math.abs(offset) % 60)}`;
}

/** A moment as the shop reads it: "27 Nov 2026, 19:35" in its time zone. */
export function formatShopDateTime(iso: string, timeZone: string): string {
  const instant = new Date(iso);
  if (Number.isNaN(instant.getTime())) return iso;
  const w = wallClock(instant, timeZone);
  return `${w.day} ${MONTHS[w.month - 1]} ${w.year}, ${two(w.hour)}:${two(w.minute)}`;
}
