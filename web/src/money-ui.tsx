import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { type Project, api, request } from './api';
import { ErrorMessage } from './components';
import { formatMoney } from './money';
import { useUser } from './session';
import { GST_RATES, projectTotals } from '../../src/domain/gst';
import { formatMinor, parseMajor } from '../../src/domain/money';
import type { presentInvoice, presentShopSettings } from '../../src/presenters/money';

/** Money documents in the web app: the shop settings' and register's calls, the lines' prices and totals, the PI and the invoice. */
export type ShopSettings = ReturnType<typeof presentShopSettings>;
export type InvoiceLine = ReturnType<typeof presentInvoice>;

export const moneyApi = {
  shopSettings: () => request<ShopSettings>('GET', '/api/settings/shop'),
  updateShopSettings: (body: Partial<Omit<ShopSettings, 'updatedAt'>>) => request<ShopSettings>('PATCH', '/api/settings/shop', body),
  invoices: (q: { from?: string; to?: string; cursor?: string }) =>
    request<{ items: InvoiceLine[]; nextCursor: string | null }>('GET', `/api/invoices?${new URLSearchParams(Object.entries(q).filter(([, v]) => v) as [string, string][])}`),
  issueInvoice: (projectId: string, invoiceDate?: string) => request<{ number: string; date: string; total: number }>('POST', `/api/projects/${encodeURIComponent(projectId)}/invoice`, invoiceDate ? { invoiceDate } : {}),
};

/** A line's prices as the form holds them: the unit price in major units ("2.50"), the HSN/SAC and the rate as typed. */
export interface PriceValues {
  unitPrice: string;
  hsnSac: string;
  gstRate: string;
}
export const emptyPrices = (): PriceValues => ({ unitPrice: '', hsnSac: '', gstRate: '' });
export const priceValuesOf = (l: { unitPrice: number | null; hsnSac: string | null; gstRate: number | null }, currency: string): PriceValues => ({
  unitPrice: l.unitPrice === null ? '' : formatMinor(l.unitPrice, currency),
  hsnSac: l.hsnSac ?? '',
  gstRate: l.gstRate === null ? '' : String(l.gstRate),
});

/** The prices as the API takes them; a unit price that is not a plain amount is sent as typed, so the API's refusal names it. */
export function priceBody(p: PriceValues, currency: string): { unitPrice: number | string | null; hsnSac: string | null; gstRate: number | null } {
  const text = p.unitPrice.trim();
  return { unitPrice: text ? (parseMajor(text, currency) ?? text) : null, hsnSac: p.hsnSac.trim() || null, gstRate: p.gstRate === '' ? null : Number(p.gstRate) };
}

/** The three price inputs of one line. */
export function PriceFields({ at, value, onChange, errors, currency }: { at: number; value: PriceValues; onChange: (v: PriceValues) => void; errors: Record<string, string>; currency: string }) {
  const set = (f: keyof PriceValues) => (e: { target: { value: string } }) => onChange({ ...value, [f]: e.target.value });
  const id = (f: string) => `line-${at}-${f}`;
  return (
    <>
      <div className="field">
        <label htmlFor={id('price')}>Unit price, {currency} (optional)</label>
        <input id={id('price')} value={value.unitPrice} onChange={set('unitPrice')} inputMode="decimal" autoComplete="off" aria-invalid={Boolean(errors[`items.${at}.unitPrice`])} />
        {errors[`items.${at}.unitPrice`] && <p className="field-error">{errors[`items.${at}.unitPrice`]}</p>}
      </div>
      <div className="field">
        <label htmlFor={id('hsn')}>HSN/SAC (optional)</label>
        <input id={id('hsn')} value={value.hsnSac} onChange={set('hsnSac')} inputMode="numeric" maxLength={8} autoComplete="off" aria-invalid={Boolean(errors[`items.${at}.hsnSac`])} />
        {errors[`items.${at}.hsnSac`] && <p className="field-error">{errors[`items.${at}.hsnSac`]}</p>}
      </div>
      <div className="field">
        <label htmlFor={id('gst')}>GST rate (optional)</label>
        <select id={id('gst')} value={value.gstRate} onChange={set('gstRate')}>
          <option value="">—</option>
          {GST_RATES.map((r) => (
            <option key={r} value={String(r)}>
              {r} %
            </option>
          ))}
        </select>
      </div>
    </>
  );
}

/**
 * The totals as the lines are typed: the service's own rules (domain/gst.ts), with the shop's and the
 * customer's states. `unpriced`: what to say while a line has no price, to someone who does not price.
 */
export function LiveTotals({ lines, customerId, currency, unpriced }: { lines: { quantity: string; prices: PriceValues }[]; customerId: string; currency: string; unpriced?: string | undefined }) {
  const shop = useQuery({ queryKey: ['shop-settings'], queryFn: moneyApi.shopSettings });
  const customer = useQuery({ queryKey: ['customer', customerId], queryFn: () => api.customer(customerId), enabled: Boolean(customerId) });
  const priced = lines.map((l, i) => {
    const quantity = /^\d+$/.test(l.quantity.trim()) ? Number(l.quantity.trim()) : null;
    const unitPrice = l.prices.unitPrice.trim() ? parseMajor(l.prices.unitPrice, currency) : null;
    return { id: String(i), quantity: quantity ?? 0, unitPrice: quantity === null ? null : unitPrice, gstRate: l.prices.gstRate === '' ? null : Number(l.prices.gstRate) };
  });
  const totals = projectTotals(priced, currency, shop.data?.gstin?.slice(0, 2) ?? null, customerId ? (customer.data?.stateCode ?? null) : null);
  if (!totals) return <p className="muted small-text" data-testid="live-totals">{unpriced ?? 'Totals appear when every line has a unit price and a GST rate.'}</p>;
  return (
    <dl className="facts" data-testid="live-totals" aria-live="polite">
      <div>
        <dt>Taxable value</dt>
        <dd>{formatMoney(totals.taxable, currency)}</dd>
      </div>
      {totals.igst > 0 || totals.cgst === 0 ? (
        <div>
          <dt>IGST</dt>
          <dd>{formatMoney(totals.igst, currency)}</dd>
        </div>
      ) : (
        <div>
          <dt>CGST + SGST</dt>
          <dd>
            {formatMoney(totals.cgst, currency)} + {formatMoney(totals.sgst, currency)}
          </dd>
        </div>
      )}
      <div>
        <dt>Total</dt>
        <dd data-testid="live-total">{formatMoney(totals.total, currency)}</dd>
      </div>
    </dl>
  );
}

/** The project page's money card: the totals, the PI's PDF, and for an ADMIN after dispatch the tax invoice. */
export function MoneyCard({ project: p, isAdmin }: { project: Project; isAdmin: boolean }) {
  const queryClient = useQueryClient();
  const [date, setDate] = useState('');
  const issue = useMutation({
    mutationFn: () => moneyApi.issueInvoice(p.id, date || undefined),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: ['project', p.id] }),
  });
  const t = p.totals;
  const isClient = useUser().role === 'CLIENT';
  const canIssue = isAdmin && (p.status === 'DISPATCHED' || p.status === 'DELIVERED') && (!p.invoice || p.invoice.voided);
  return (
    <section className="card" aria-labelledby="money-title" data-testid="money">
      <h2 id="money-title">Prices and invoice</h2>
      {t ? (
        <dl className="facts">
          <div>
            <dt>Taxable value</dt>
            <dd>{formatMoney(t.taxable, t.currency)}</dd>
          </div>
          <div>
            <dt>{t.igst > 0 ? 'IGST' : 'CGST + SGST'}</dt>
            <dd>{t.igst > 0 ? formatMoney(t.igst, t.currency) : `${formatMoney(t.cgst, t.currency)} + ${formatMoney(t.sgst, t.currency)}`}</dd>
          </div>
          <div>
            <dt>Total</dt>
            <dd data-testid="project-total">{formatMoney(t.total, t.currency)}</dd>
          </div>
        </dl>
      ) : (
        <p className="muted small-text">{isClient ? 'The shop has not priced this job yet.' : 'Give every line a unit price and a GST rate to make the PI and the invoice.'}</p>
      )}
      {t && (
        <p>
          <a href={`/api/projects/${encodeURIComponent(p.id)}/pi.pdf`} target="_blank" rel="noreferrer" data-testid="pi-pdf">
            Proforma invoice (PDF)
          </a>
        </p>
      )}
      {p.invoice && (
        <p data-testid="invoice">
          Tax invoice <strong>{p.invoice.number}</strong> of {p.invoice.date}, {t ? formatMoney(p.invoice.total, t.currency) : p.invoice.total}
          {p.invoice.voided && <span className="badge"> withdrawn</span>}
        </p>
      )}
      {canIssue && (
        <form
          className="invoice-form"
          onSubmit={(e) => {
            e.preventDefault();
            issue.mutate();
          }}
        >
          <div className="field">
            <label htmlFor="invoice-date">Invoice date (optional, default today)</label>
            <input id="invoice-date" type="date" value={date} onChange={(e) => setDate(e.target.value)} />
          </div>
          <ErrorMessage error={issue.error} />
          <button type="submit" className="primary" disabled={issue.isPending}>
            Issue tax invoice
          </button>
        </form>
      )}
    </section>
  );
}
