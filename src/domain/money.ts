/**
 * Money (interface.md, "The PI and payments"): amounts are whole numbers of a currency's minor
 * units (paise for INR), never floating point. Pure functions shared by the API, the CSV export,
 * the emails and the web app: the currency's minor-unit digits, the checks of an amount and of a
 * currency code, and the conversions between minor units and a major-unit text ("125000.00"),
 * done with integer and string arithmetic only.
 */

/**
 * The largest amount taken (a PI's, a payment's), and the largest sum of one project's payments:
 * 10^12 minor units (₹1,000 crore, ¥1 trillion), beyond any print job, so a typo or a hostile
 * client cannot make figures that mean nothing (issue 33, item 11). Far below
 * Number.MAX_SAFE_INTEGER, so every amount, sum and balance is exact as a JavaScript number and as
 * a JSON number in any client; totals over many projects are summed without overflow
 * (db/stats.ts) whatever older rows hold (the bound was 9,007,199,254,740,000 before).
 */
export const MAX_AMOUNT = 1_000_000_000_000;

/** ISO 4217 codes as Intl knows them, read once. */
let known: Set<string> | undefined;

/** An ISO 4217 currency code in capitals that Intl knows (INR, USD, JPY, KWD). */
export function isCurrencyCode(value: unknown): value is string {
  if (typeof value !== 'string' || !/^[A-Z]{3}$/.test(value)) return false;
  known ??= new Set(Intl.supportedValuesOf('currency'));
  return known.has(value);
}

/** Digits by currency, read from Intl once each: a NumberFormat per call made the CSV export allocate native memory on every line. */
const digitsOf = new Map<string, number>();

/** How many minor-unit digits the currency has: INR 2, JPY 0, KWD 3 (Intl's data, which follows ISO 4217). */
export function minorDigits(currency: string): number {
  let digits = digitsOf.get(currency);
  if (digits === undefined) digitsOf.set(currency, (digits = new Intl.NumberFormat('en', { style: 'currency', currency }).resolvedOptions().maximumFractionDigits ?? 2));
  return digits;
}

/** Why this is not an amount (a whole number of minor units, more than 0, at most MAX_AMOUNT), or null. */
export function amountRefusal(value: unknown): string | null {
  if (typeof value !== 'number' || !Number.isInteger(value)) return 'must be a whole number of minor units (paise for INR)';
  if (value < 1) return 'must be more than 0';
  if (value > MAX_AMOUNT) return `must be at most ${MAX_AMOUNT}`;
  return null;
}

/**
 * Minor units as a major-unit text with a dot and the currency's digits: 12500000 INR is
 * "125000.00", 5 JPY "5", 1234 KWD "1.234", -150 INR "-1.50". Integer and string arithmetic
 * only; a bigint or a string of digits is taken too (a total beyond the safe integers).
 */
export function formatMinor(amount: number | bigint | string, currency: string): string {
  const value = BigInt(amount);
  const digits = minorDigits(currency);
  const sign = value < 0n ? '-' : '';
  const text = (value < 0n ? -value : value).toString().padStart(digits + 1, '0');
  if (digits === 0) return sign + text;
  return `${sign}${text.slice(0, -digits)}.${text.slice(-digits)}`;
}

/**
 * A major-unit text as minor units ("125000" or "125000.5" INR is 12500050), or null when it is
 * not a plain positive number with at most the currency's digits after the dot (no signs,
 * exponents or separators: what a person types in a form). String arithmetic only.
 */
export function parseMajor(text: string, currency: string): number | null {
  const digits = minorDigits(currency);
  const m = /^(\d+)(?:\.(\d*))?$/.exec(text.trim());
  if (!m) return null;
  const fraction = m[2] ?? '';
  if (fraction.length > digits) return null;
  const minor = BigInt(m[1]! + fraction.padEnd(digits, '0'));
  return minor <= BigInt(MAX_AMOUNT) ? Number(minor) : null;
}
