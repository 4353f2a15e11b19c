import { AppError } from '../errors.js';
import { labelOf } from './labels.js';

/**
 * How long the free-text fields may be, and what a password must be. The specification sets no
 * bounds; these are ours (README, "Validation"), shared by the API's checks and the web app's
 * forms so both say the same. POST /api/team keeps exactly the specification's checks.
 */
/** A hold's reason (interface.md, "Holds, rush, reorders"). */
export const MAX_HOLD_REASON = 500;

export const MAX_LENGTH = {
  name: 200,
  description: 5000,
  note: 1000,
  email: 254,
  phone: 40,
  location: 200,
  branch: 200,
  /** The customer's own order or PO number. */
  reference: 100,
  deliveryAddress: 1000,
  /** The PI's number (POST /api/projects/:id/submit-pi). */
  number: 100,
  /** How a payment came (bank transfer, cheque, UPI, …). */
  method: 100,
  /** A customer's billing address. */
  billingAddress: 1000,
  /** Why a document was withdrawn. */
  reason: 500,
  /** A comment's text (interface.md, Comments: 1–5,000 characters). */
  body: 5000,
} as const;
export type LimitedField = keyof typeof MAX_LENGTH;

/** A job's lines (interface.md, "The job itself"): how many, the quantity's range, the unit when none is given. */
export const ITEMS = { maxLines: 50, minQuantity: 1, maxQuantity: 10_000_000, defaultUnit: 'pcs' } as const;

/** How long each text of a line may be. */
export const ITEM_MAX_LENGTH = {
  description: 500,
  unit: 20,
  size: 100,
  stock: 200,
  colours: 100,
  finishing: 200,
  notes: 1000,
} as const;
export type ItemTextField = keyof typeof ITEM_MAX_LENGTH;

/** At least 8 characters; at most 72 bytes, all bcrypt reads (a longer one would be cut silently). */
export const PASSWORD = { minLength: 8, maxBytes: 72 } as const;

/** A text field over its bound, or required and blank: the refusal ("Name is required", "Name must be at most 200 characters"), else null. */
export function textRefusal(field: LimitedField, value: string | null | undefined, required = false): AppError | null {
  const trimmed = value?.trim() ?? '';
  if (required && !trimmed) return new AppError(400, `${labelOf(field)} is required`);
  if ([...trimmed].length > MAX_LENGTH[field]) return new AppError(400, `${labelOf(field)} must be at most ${MAX_LENGTH[field]} characters`);
  return null;
}

/** A new password set through our own endpoints and the CLI (not the specification's POST /api/team). */
export function passwordRefusal(password: string): AppError | null {
  if ([...password].length < PASSWORD.minLength) return new AppError(400, `Password must be at least ${PASSWORD.minLength} characters`);
  if (new TextEncoder().encode(password).length > PASSWORD.maxBytes) return new AppError(400, `Password must be at most ${PASSWORD.maxBytes} bytes`);
  return null;
}

/**
 * A whole address: something, @, and a domain of dot-separated labels ending in a label of at least
 * two characters, not all digits (priya@example.com, not priya@example or priya@example.). Deliverability is not ours
 * to judge; this catches the typing slip. The web app's team forms use it; the API's POST
 * /api/team keeps the specification's checks, which ask only for a non-empty email.
 */
export function emailRefusal(email: string): AppError | null {
  if (!/^[^\s@]+@(?:[^\s@.]+\.)+(?!\d+$)[^\s@.]{2,}$/u.test(email.trim())) return new AppError(400, 'Email must be a full address, like name@example.com');
  return null;
}
