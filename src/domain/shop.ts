import { AppError, errors } from '../errors.js';
import { gstinProblem, normalizeGstin } from './gstin.js';
import { isInvoicePrefix } from './indian.js';
import { emailRefusal } from './limits.js';

/** What the shop's documents print (interface.md, "Money documents": shop settings). */
export interface ShopSettings {
  name: string | null;
  address: string | null;
  gstin: string | null;
  phone: string | null;
  email: string | null;
  bankDetails: string | null;
  invoicePrefix: string;
  updatedAt: string | null;
}

/** A tax invoice as issued: its number and the figures printed on it. */
export interface Invoice {
  id: string;
  number: string;
  financialYear: string;
  sequence: number;
  date: string;
  projectId: string;
  customerId: string | null;
  customerName: string;
  customerGstin: string | null;
  stateCode: string | null;
  taxable: number;
  cgst: number;
  sgst: number;
  igst: number;
  total: number;
  currency: string;
  fileId: string;
  issuedById: string;
  createdAt: string;
}

export type ShopSettingsInput = Partial<Record<'name' | 'address' | 'gstin' | 'phone' | 'email' | 'bankDetails' | 'invoicePrefix', unknown>>;

/** Bounds of the free-text settings (characters). */
export const SHOP_TEXT_MAX = { name: 200, address: 1000, phone: 50, email: 254, bankDetails: 1000 } as const;

/** PATCH /api/settings/shop's body, checked: trimmed, blank is null (not the prefix); the first refusal names its field. */
export function parseShopSettings(input: ShopSettingsInput): Partial<Omit<ShopSettings, 'updatedAt'>> | AppError {
  const out: Partial<Omit<ShopSettings, 'updatedAt'>> = {};
  for (const field of ['name', 'address', 'phone', 'email', 'bankDetails'] as const) {
    const value = input[field];
    if (value === undefined) continue;
    if (value !== null && typeof value !== 'string') return errors.invalidField(field, 'must be text');
    const text = value?.trim() || null;
    if (text !== null && [...text].length > SHOP_TEXT_MAX[field]) return errors.invalidField(field, `must be at most ${SHOP_TEXT_MAX[field]} characters`);
    out[field] = text;
  }
  if (out.email) {
    const bad = emailRefusal(out.email);
    if (bad) return bad;
  }
  if (input.gstin !== undefined) {
    if (input.gstin !== null && typeof input.gstin !== 'string') return errors.invalidField('gstin', 'must be text');
    const gstin = input.gstin ? normalizeGstin(input.gstin) : '';
    if (gstin) {
      const problem = gstinProblem(gstin);
      if (problem === 'format') return new AppError(400, 'GSTIN must be 15 characters: 2 digits, a 10-character PAN, an entity character, Z and a check character');
      if (problem) return new AppError(400, 'GSTIN check character does not match: please check the number');
    }
    out.gstin = gstin || null;
  }
  if (input.invoicePrefix !== undefined) {
    if (!isInvoicePrefix(input.invoicePrefix)) return errors.invalidField('invoicePrefix', "must be 1 to 10 letters, digits or '-'");
    out.invoicePrefix = input.invoicePrefix;
  }
  return out;
}
