import { formatMinor } from './money.js';

/**
 * How the shop's documents write money, states and invoice numbers for India (interface.md, "Money
 * documents"): Indian digit grouping, the total in words (crore, lakh, thousand, hundred), GST state
 * names by their codes, the financial year (April to March) and the invoice number.
 */

/** Indian digit grouping of a whole number's digits: the last three, then pairs ("12500000" → "1,25,00,000"). */
export function groupIndian(digits: string): string {
  if (digits.length <= 3) return digits;
  const head = digits.slice(0, -3);
  const pairs = head.replace(/\B(?=(\d{2})+(?!\d))/g, ',');
  return `${pairs},${digits.slice(-3)}`;
}

/** Minor units as the shop's documents print them: 12500050 INR → "1,25,000.50"; the currency's own digits. */
export function formatAmountIndian(amount: number | bigint, currency: string): string {
  const text = formatMinor(amount, currency);
  const sign = text.startsWith('-') ? '-' : '';
  const [whole, fraction] = text.replace('-', '').split('.');
  return sign + groupIndian(whole!) + (fraction !== undefined ? `.${fraction}` : '');
}

const ONES = ['', 'One', 'Two', 'Three', 'Four', 'Five', 'Six', 'Seven', 'Eight', 'Nine', 'Ten', 'Eleven', 'Twelve', 'Thirteen', 'Fourteen', 'Fifteen', 'Sixteen', 'Seventeen', 'Eighteen', 'Nineteen'];
const TENS = ['', '', 'Twenty', 'Thirty', 'Forty', 'Fifty', 'Sixty', 'Seventy', 'Eighty', 'Ninety'];

/** 1–99 in words, tens hyphenated ("Forty-Two"). */
function belowHundred(n: number): string {
  if (n < 20) return ONES[n]!;
  const unit = n % 10;
  return TENS[Math.floor(n / 10)]! + (unit ? `-${ONES[unit]}` : '');
}

/** 1–999 in words, no "and" ("One Hundred Five"). */
function belowThousand(n: number): string {
  const hundreds = Math.floor(n / 100);
  const rest = n % 100;
  return [hundreds ? `${ONES[hundreds]} Hundred` : '', rest ? belowHundred(rest) : ''].filter(Boolean).join(' ');
}

/** A whole number in words the Indian way: crore, lakh, thousand, hundred ("One Crore Twenty-Five Lakh"); "Zero" for 0. Crores above 99 are counted in words again ("One Hundred Crore"). */
export function numberInWords(value: bigint): string {
  if (value === 0n) return 'Zero';
  const parts: string[] = [];
  const crore = value / 10_000_000n;
  let rest = Number(value % 10_000_000n);
  if (crore > 0n) parts.push(`${numberInWords(crore)} Crore`);
  const lakh = Math.floor(rest / 100_000);
  rest %= 100_000;
  const thousand = Math.floor(rest / 1000);
  rest %= 1000;
  if (lakh) parts.push(`${belowHundred(lakh)} Lakh`);
  if (thousand) parts.push(`${belowHundred(thousand)} Thousand`);
  if (rest) parts.push(belowThousand(rest));
  return parts.join(' ');
}

/**
 * An INR amount in paise in words as the PI and invoice print it: "One Lakh Twenty-Five Thousand
 * Rupees and Fifty Paise Only"; "Rupee" for exactly one; "and … Paise" only when there are paise.
 * Null for another currency (the documents print the figure only).
 */
export function amountInWords(amount: number | bigint, currency: string): string | null {
  if (currency !== 'INR') return null;
  const paise = BigInt(amount);
  const rupees = paise / 100n;
  const rest = paise % 100n;
  const words = `${numberInWords(rupees)} ${rupees === 1n ? 'Rupee' : 'Rupees'}`;
  return `${words}${rest ? ` and ${belowHundred(Number(rest))} Paise` : ''} Only`;
}

/** GST state codes (the first two digits of a GSTIN) and their names. */
export const GST_STATES: Readonly<Record<string, string>> = {
  '01': 'Jammu and Kashmir',
  '02': 'Himachal Pradesh',
  '03': 'Punjab',
  '04': 'Chandigarh',
  '05': 'Uttarakhand',
  '06': 'Haryana',
  '07': 'Delhi',
  '08': 'Rajasthan',
  '09': 'Uttar Pradesh',
  '10': 'Bihar',
  '11': 'Sikkim',
  '12': 'Arunachal Pradesh',
  '13': 'Nagaland',
  '14': 'Manipur',
  '15': 'Mizoram',
  '16': 'Tripura',
  '17': 'Meghalaya',
  '18': 'Assam',
  '19': 'West Bengal',
  '20': 'Jharkhand',
  '21': 'Odisha',
  '22': 'Chhattisgarh',
  '23': 'Madhya Pradesh',
  '24': 'Gujarat',
  '25': 'Daman and Diu',
  '26': 'Dadra and Nagar Haveli and Daman and Diu',
  '27': 'Maharashtra',
  '28': 'Andhra Pradesh (before division)',
  '29': 'Karnataka',
  '30': 'Goa',
  '31': 'Lakshadweep',
  '32': 'Kerala',
  '33': 'Tamil Nadu',
  '34': 'Puducherry',
  '35': 'Andaman and Nicobar Islands',
  '36': 'Telangana',
  '37': 'Andhra Pradesh',
  '38': 'Ladakh',
  '97': 'Other Territory',
  '99': 'Centre Jurisdiction',
};

export const isStateCode = (code: unknown): code is string => typeof code === 'string' && /^\d{2}$/.test(code);

/** The place of supply as printed: "Karnataka (29)"; a code without a known name as the code alone, "(42)"; null without a state. */
export function placeOfSupply(stateCode: string | null): string | null {
  if (!stateCode) return null;
  const name = GST_STATES[stateCode];
  return name ? `${name} (${stateCode})` : `(${stateCode})`;
}

/** The financial year (April to March) of a YYYY-MM-DD date: 2026-04-01 → "2026-27", 2027-03-31 → "2026-27". */
export function financialYear(date: string): string {
  const year = Number(date.slice(0, 4));
  const month = Number(date.slice(5, 7));
  const start = month >= 4 ? year : year - 1;
  return `${start}-${String((start + 1) % 100).padStart(2, '0')}`;
}

/** The invoice number: `<prefix>/<financial year>/<sequence>`, the sequence at least four digits ("INV/2026-27/0001"). */
export function invoiceNumber(prefix: string, fy: string, sequence: number): string {
  return `${prefix}/${fy}/${String(sequence).padStart(4, '0')}`;
}

/** The invoice prefix's rule: 1–10 letters, digits or '-'. */
export const isInvoicePrefix = (value: unknown): value is string => typeof value === 'string' && /^[A-Za-z0-9-]{1,10}$/.test(value);
