import { formatMinor } from '../../src/domain/money.js';

/** Number formats by currency: INR in the Indian grouping (₹1,25,000.00), others in the reader's locale. */
const moneyFormats = new Map<string, Intl.NumberFormat>();
const moneyFormat = (currency: string) => {
  let f = moneyFormats.get(currency);
  if (!f) moneyFormats.set(currency, (f = new Intl.NumberFormat(currency === 'INR' ? 'en-IN' : undefined, { style: 'currency', currency })));
  return f;
};

/**
 * An amount in minor units as money: 12500000 INR is "₹1,25,000.00". The minor units become a
 * decimal text ("125000.00") by integer and string arithmetic (formatMinor), and Intl formats
 * that text as it is (Intl.NumberFormat v3 takes a decimal string), so no digit goes through a float.
 */
export function formatMoney(amount: number | string | bigint, currency: string): string {
  // The ES2022 typings know only number | bigint; the string form is Intl.NumberFormat v3 (Node 20, current browsers).
  return moneyFormat(currency).format(formatMinor(amount, currency) as unknown as number);
}

/** Today's date in the browser's time zone, YYYY-MM-DD (the bound of a date input). */
export function todayIso(now: Date = new Date()): string {
  return `${now.getFullYear()}-${String(now.getMonth() + 1).padStart(2, '0')}-${String(now.getDate()).padStart(2, '0')}`;
}
