/**
 * India's GST identification number (GSTIN): 15 characters, 2 digits of state code, the holder's
 * PAN (5 letters, 4 digits, 1 letter), an entity number [1-9A-Z], the letter Z, and a check
 * character computed over the first 14 (base 36, weights 1 and 2 alternating, each product's
 * quotient and remainder by 36 summed; check = (36 − sum mod 36) mod 36).
 */

const ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ';
const FORMAT = /^[0-9]{2}[A-Z]{5}[0-9]{4}[A-Z][1-9A-Z]Z[0-9A-Z]$/;

/** The check character for the first 14 characters (upper case), or null when one is not of the alphabet. */
export function gstinCheckCharacter(first14: string): string | null {
  let sum = 0;
  for (let i = 0; i < first14.length; i++) {
    const value = ALPHABET.indexOf(first14[i]!);
    if (value < 0) return null;
    const product = value * (i % 2 === 0 ? 1 : 2);
    sum += Math.floor(product / 36) + (product % 36);
  }
  return ALPHABET[(36 - (sum % 36)) % 36]!;
}

/** Why a GSTIN is refused ("format" or "check character"), or null when it is valid. Expects the canonical form (normalizeGstin). */
export function gstinProblem(gstin: string): 'format' | 'check character' | null {
  if (!FORMAT.test(gstin)) return 'format';
  return gstinCheckCharacter(gstin.slice(0, 14)) === gstin[14] ? null : 'check character';
}

/** The canonical form: surrounding spaces removed and upper case (people type it either way; it is stored and shown in upper case). */
export const normalizeGstin = (input: string): string => input.trim().toUpperCase();
