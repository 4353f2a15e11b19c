import { groupIndian } from '../../src/domain/indian.js';
import { minorDigits, parseMajor } from '../../src/domain/money.js';

/**
 * Numbers as people type them in India: "20,000", "1,75,230", "1,75,230.50", and the
 * international "175,230.50" too. No app imports, so test/web-format.test.ts imports it.
 *
 * The commas are read as grouping only where they group: after the first one or two (Indian) or
 * one to three (international) digits, every group has two (Indian) or three digits, and the last
 * group before the point has three. "1,7,5230" or "17,52,30" is refused with a message that says
 * so, rather than read as some other number.
 */

/** A typed number's parse: its plain text (digits and at most one point), or what is wrong, to follow the field's label. */
export type Typed = { plain: string } | { refusal: string };

const INDIAN = /^\d{1,2}(,\d{2})*,\d{3}$/;
const INTERNATIONAL = /^\d{1,3}(,\d{3})+$/;

// Grouping the Indian way (175230 → 1,75,230) is the shop documents' own (src/domain/indian.ts).
/** Groups digits by thousands: 175230 → 175,230. */
export const groupThousands = (digits: string): string => digits.replace(/\B(?=(\d{3})+$)/g, ',');

/** The text without its grouping commas (and surrounding spaces), or why it is not a number as typed. */
export function ungroup(text: string): Typed {
  const t = text.trim();
  if (!t) return { refusal: 'is required' };
  const m = /^([\d,]+)(?:\.(\d*))?$/.exec(t);
  if (!m || !/\d/.test(m[1]!)) {
    if (/^-/.test(t)) return { refusal: 'must be more than 0' };
    if (/^[\d,]*\.[\d.,]*$/.test(t)) return { refusal: 'must have its commas before the point and at most one point, such as 1,75,230.50' };
    return { refusal: 'must be a number, such as 1,75,230 or 175230' };
  }
  const whole = m[1]!;
  const fraction = m[2];
  if (whole.includes(',') && !INDIAN.test(whole) && !INTERNATIONAL.test(whole)) {
    const digits = whole.replace(/,/g, '');
    const ways = [...new Set([groupIndian(digits), groupThousands(digits)])].filter((w) => w !== digits);
    return { refusal: `has its commas in the wrong places: write ${[...ways, digits].join(' or ')}` };
  }
  return { plain: fraction === undefined ? whole.replace(/,/g, '') : `${whole.replace(/,/g, '')}.${fraction}` };
}

/** A whole number as typed ("20,000"), or what is wrong with it. */
export function parseWhole(text: string): { value: number } | { refusal: string } {
  const typed = ungroup(text);
  if ('refusal' in typed) return typed;
  if (!/^\d+$/.test(typed.plain)) return { refusal: 'must be a whole number' };
  return { value: Number(typed.plain) };
}

/**
 * An amount typed in major units ("1,75,230.50" rupees) as minor units (17523050 paise), or what
 * is wrong with it. String arithmetic only (parseMajor).
 */
export function parseAmount(text: string, currency: string): { value: number } | { refusal: string } {
  const typed = ungroup(text);
  if ('refusal' in typed) return typed;
  const digits = minorDigits(currency);
  const fraction = typed.plain.split('.')[1];
  if (fraction !== undefined && fraction.length > digits) {
    return { refusal: digits ? `may have at most ${digits} digits after the point` : 'must be a whole number (this currency has no minor units)' };
  }
  const value = parseMajor(typed.plain, currency);
  if (value === null) return { refusal: 'is too large' };
  if (value < 1) return { refusal: 'must be more than 0' };
  return { value };
}
