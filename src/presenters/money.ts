import type { InvoiceRow } from '../db/invoices.js';
import type { CsvValue } from '../domain/csv.js';
import { placeOfSupply } from '../domain/indian.js';
import { formatMinor } from '../domain/money.js';
import type { ShopSettings } from '../domain/shop.js';

export const presentShopSettings = (s: ShopSettings) => ({
  name: s.name,
  address: s.address,
  gstin: s.gstin,
  phone: s.phone,
  email: s.email,
  bankDetails: s.bankDetails,
  invoicePrefix: s.invoicePrefix,
  updatedAt: s.updatedAt,
});

/** One line of the invoice register; `projectNumber` is the project's job number where the service has one. */
export const presentInvoice = (i: InvoiceRow, projectNumber: number | null = i.projectNumber) => ({
  number: i.number,
  date: i.date,
  projectId: i.projectId,
  projectNumber,
  customerId: i.customerId,
  customerName: i.customerName,
  customerGstin: i.customerGstin,
  placeOfSupply: placeOfSupply(i.stateCode),
  taxable: i.taxable,
  cgst: i.cgst,
  sgst: i.sgst,
  igst: i.igst,
  total: i.total,
  currency: i.currency,
  fileId: i.fileId,
  voidedAt: i.voidedAt,
});

/** GET /api/invoices.csv's columns (interface.md, "The invoice register"). */
export const INVOICE_CSV_COLUMNS = ['number', 'date', 'customer', 'customerGstin', 'placeOfSupply', 'taxable', 'cgst', 'sgst', 'igst', 'total', 'currency', 'voided'] as const;

/** An invoice as a CSV line's values: amounts in major units (domain/money.ts, no floating point). */
export const invoiceCsvValues = (i: InvoiceRow): CsvValue[] => [
  i.number,
  i.date,
  i.customerName,
  i.customerGstin,
  placeOfSupply(i.stateCode),
  formatMinor(i.taxable, i.currency),
  formatMinor(i.cgst, i.currency),
  formatMinor(i.sgst, i.currency),
  formatMinor(i.igst, i.currency),
  formatMinor(i.total, i.currency),
  i.currency,
  i.voidedAt !== null,
];
