import { AppError, errors } from '../errors.js';
import { gstinProblem, normalizeGstin } from './gstin.js';
import { emailRefusal, textRefusal } from './limits.js';

/** A company the shop prints for (interface.md, "Customers, and who may see a project"). */
export interface Customer {
  id: string;
  name: string;
  gstin: string | null;
  email: string | null;
  phone: string | null;
  billingAddress: string | null;
  /** The GST state code (two digits): the GSTIN's first two when there is one. */
  stateCode?: string | null;
  active: boolean;
  createdAt: string;
  updatedAt: string;
  /** The POC or ADMIN who owns the orders the customer's people place (null: none yet); only an ADMIN sets it. */
  accountManagerId?: string | null;
}

/** The fields a request may set; `active` is checked by role in the action. */
export type CustomerFields = Partial<Pick<Customer, 'name' | 'gstin' | 'email' | 'phone' | 'billingAddress' | 'stateCode' | 'active' | 'accountManagerId'>>;

/** The duplicate rule's key: trimmed, inner spaces collapsed, case-folded (so "Acme  Prints" and "acme prints" are one name). */
export const nameKey = (name: string): string => name.trim().replace(/\s+/gu, ' ').normalize('NFC').toLowerCase();

/** Optional text: trimmed, blank is null. */
const optional = (v: string | null | undefined): string | null | undefined => (v === undefined ? undefined : v?.trim() || null);

/**
 * A customer's fields as sent (POST: `creating`, name required; PATCH: each optional, null clears
 * the optional ones), checked and made canonical (trimmed; the GSTIN upper-cased), or the refusal.
 */
export function parseCustomer(
  input: { name?: string; gstin?: string | null; email?: string | null; phone?: string | null; billingAddress?: string | null; stateCode?: string | null; active?: boolean },
  creating: boolean,
): CustomerFields | AppError {
  const refusal =
    (creating || input.name !== undefined ? textRefusal('name', input.name ?? '', true) : null) ??
    textRefusal('email', input.email) ??
    textRefusal('phone', input.phone) ??
    textRefusal('billingAddress', input.billingAddress);
  if (refusal) return refusal;
  const fields: CustomerFields = {};
  if (input.name !== undefined) fields.name = input.name.trim().replace(/\s+/gu, ' ');
  const email = optional(input.email);
  if (email) {
    const bad = emailRefusal(email);
    if (bad) return bad;
  }
  if (email !== undefined) fields.email = email;
  const phone = optional(input.phone);
  if (phone !== undefined) fields.phone = phone;
  const billingAddress = optional(input.billingAddress);
  if (billingAddress !== undefined) fields.billingAddress = billingAddress;
  const gstin = optional(input.gstin);
  if (gstin) {
    const canonical = normalizeGstin(gstin);
    const problem = gstinProblem(canonical);
    if (problem === 'format') return new AppError(400, 'GSTIN must be 15 characters: 2 digits, a 10-character PAN, an entity character, Z and a check character');
    if (problem) return new AppError(400, 'GSTIN check character does not match: please check the number');
    fields.gstin = canonical;
  } else if (gstin !== undefined) fields.gstin = null;
  if (input.stateCode !== undefined) {
    if (input.stateCode !== null && !/^\d{2}$/.test(input.stateCode)) return errors.invalidField('stateCode', 'must be two digits, the GST state code');
    fields.stateCode = input.stateCode;
  }
  if (input.active !== undefined) fields.active = input.active;
  return fields;
}

/**
 * A customer's state with a GSTIN is the GSTIN's first two digits: filled in when not sent, refused
 * (400) when another is sent. `gstin` and `stateCode` are what the customer will have (sent, else kept).
 */
export function stateCodeFor(gstin: string | null, stateCode: string | null | undefined): string | null | undefined | AppError {
  if (!gstin) return stateCode;
  const state = gstin.slice(0, 2);
  if (stateCode !== undefined && stateCode !== state) return errors.invalidField('stateCode', `must be ${state}, the GSTIN's state code`);
  return state;
}
