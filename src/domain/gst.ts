/**
 * GST on a job's priced lines (interface.md, "Money documents"), in integers only: amounts are whole
 * minor units, a line's tax is rounded half up to a whole minor unit, the project's figures are the
 * lines' sums. Intra-state (the customer's state is the shop's, or either is unknown) splits the tax
 * into CGST and SGST, each at half the rate; inter-state charges IGST at the full rate.
 */

export const GST_RATES = [0, 5, 12, 18, 28] as const;
export type GstRate = (typeof GST_RATES)[number];

/**
 * The largest taxable value of one line (quantity × unit price): with 50 lines and 28 % tax the
 * project's total stays far inside the safe integers (50 × 10¹³ × 1.28 < 2⁵³).
 */
export const MAX_LINE_TAXABLE = 10_000_000_000_000;

export interface PricedLine {
  id: string;
  quantity: number;
  unitPrice: number | null;
  gstRate: number | null;
}

export interface LineTotals {
  id: string;
  taxable: number;
  cgst: number;
  sgst: number;
  igst: number;
}

export interface Totals {
  currency: string;
  taxable: number;
  cgst: number;
  sgst: number;
  igst: number;
  total: number;
  lines: LineTotals[];
}

/** round(n / d) half up, for n ≥ 0 and d > 0, in integers (bigint: n may pass 2⁵³ before the division). */
export function divideHalfUp(n: bigint, d: bigint): bigint {
  return (n * 2n + d) / (d * 2n);
}

/** Whether the supply is inside one state: the same state code, or either unknown. */
export function isIntraState(shopState: string | null, customerState: string | null): boolean {
  return !shopState || !customerState || shopState === customerState;
}

export function lineTotals(line: { id: string; quantity: number; unitPrice: number; gstRate: number }, intra: boolean): LineTotals {
  const taxable = BigInt(line.quantity) * BigInt(line.unitPrice);
  const rate = BigInt(line.gstRate);
  if (intra) {
    const half = Number(divideHalfUp(taxable * rate, 200n));
    return { id: line.id, taxable: Number(taxable), cgst: half, sgst: half, igst: 0 };
  }
  return { id: line.id, taxable: Number(taxable), cgst: 0, sgst: 0, igst: Number(divideHalfUp(taxable * rate, 100n)) };
}

/** The project's totals when every line has a unit price and a GST rate (and there is at least one line), else null. */
export function projectTotals(lines: readonly PricedLine[], currency: string, shopState: string | null, customerState: string | null): Totals | null {
  if (!lines.length || lines.some((l) => l.unitPrice === null || l.gstRate === null)) return null;
  const intra = isIntraState(shopState, customerState);
  const each = lines.map((l) => lineTotals({ id: l.id, quantity: l.quantity, unitPrice: l.unitPrice!, gstRate: l.gstRate! }, intra));
  const sum = (k: 'taxable' | 'cgst' | 'sgst' | 'igst') => each.reduce((s, l) => s + l[k], 0);
  const taxable = sum('taxable');
  const cgst = sum('cgst');
  const sgst = sum('sgst');
  const igst = sum('igst');
  return { currency, taxable, cgst, sgst, igst, total: taxable + cgst + sgst + igst, lines: each };
}

/** The state a GSTIN is registered in: its first two digits. */
export const stateOfGstin = (gstin: string | null): string | null => (gstin ? gstin.slice(0, 2) : null);
