import { useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { type JobFields, type Project, api } from '../api';
import { Field, placeError } from './index';
import { formatNumber } from '../format';
import { LiveTotals, type PriceValues, PriceFields, emptyPrices, priceBody, priceValuesOf } from '../money-ui';
import { ITEMS, ITEM_MAX_LENGTH, MAX_LENGTH } from '../../../src/domain/limits';
import { parseWhole } from '../numbers';
import { useUser } from '../session';

/** The quantity as sent (jobRefusals has refused anything else before). */
const quantityOf = (text: string) => {
  const q = parseWhole(text);
  return 'value' in q ? q.value : Number.NaN;
};

/** A job line as the form holds it: every field text, the quantity too, until sent. */
export interface LineValues {
  id?: string;
  description: string;
  quantity: string;
  unit: string;
  size: string;
  stock: string;
  colours: string;
  finishing: string;
  notes: string;
  prices: PriceValues;
}
export interface JobValues {
  customerId: string;
  reference: string;
  dueDate: string;
  deliveryAddress: string;
  items: LineValues[];
  /** The project's currency (its PI's, else the service's): what unit prices are typed in; not sent. */
  currency: string;
}

const OPTIONAL_LINE_FIELDS = ['size', 'stock', 'colours', 'finishing', 'notes'] as const;
const LINE_LABELS: Record<(typeof OPTIONAL_LINE_FIELDS)[number], string> = { size: 'Size', stock: 'Stock', colours: 'Colours', finishing: 'Finishing', notes: 'Notes' };

export const emptyLine = (): LineValues => ({ description: '', quantity: '', unit: ITEMS.defaultUnit, size: '', stock: '', colours: '', finishing: '', notes: '', prices: emptyPrices() });

export const jobValuesOf = (p?: Project): JobValues => ({
  customerId: p?.customerId ?? '',
  reference: p?.reference ?? '',
  dueDate: p?.dueDate ?? '',
  deliveryAddress: p?.deliveryAddress ?? '',
  currency: p?.totals?.currency ?? p?.pi?.currency ?? 'INR',
  items: (p?.items ?? []).map((l) => ({
    id: l.id,
    description: l.description,
    quantity: String(l.quantity),
    unit: l.unit,
    size: l.size ?? '',
    stock: l.stock ?? '',
    colours: l.colours ?? '',
    finishing: l.finishing ?? '',
    notes: l.notes ?? '',
    prices: priceValuesOf(l, p?.totals?.currency ?? p?.pi?.currency ?? 'INR'),
  })),
});

/**
 * What the form refuses before sending, keyed like the API's fields ("items.2.quantity"): a line
 * without a description, a quantity that is not a whole number from 1 to 10,000,000 (typed with
 * grouping commas or without: "20,000", "2,00,000").
 */
export function jobRefusals(v: JobValues): Record<string, string> {
  const refusals: Record<string, string> = {};
  v.items.forEach((l, at) => {
    if (!l.description.trim()) refusals[`items.${at}.description`] = `Line ${at + 1} description is required`;
    const q = parseWhole(l.quantity);
    if ('refusal' in q) refusals[`items.${at}.quantity`] = `Line ${at + 1} quantity ${q.refusal}`;
    else if (q.value < ITEMS.minQuantity || q.value > ITEMS.maxQuantity) refusals[`items.${at}.quantity`] = `Line ${at + 1} quantity must be from ${ITEMS.minQuantity} to ${formatNumber(ITEMS.maxQuantity)}`;
  });
  return refusals;
}

/** The job's fields as the API takes them: blank texts cleared (null), lines whole (interface.md: the items are sent as a whole array). */
export function jobBody(v: JobValues): JobFields {
  return {
    customerId: v.customerId || null,
    reference: v.reference.trim() || null,
    dueDate: v.dueDate || null,
    deliveryAddress: v.deliveryAddress.trim() || null,
    items: v.items.map((l) => ({
      ...(l.id ? { id: l.id } : {}),
      description: l.description,
      quantity: quantityOf(l.quantity),
      unit: l.unit.trim() || ITEMS.defaultUnit,
      ...Object.fromEntries(OPTIONAL_LINE_FIELDS.map((f) => [f, l[f].trim() || null])),
      ...priceBody(l.prices, v.currency),
    })) as JobFields['items'],
  };
}

/**
 * An API refusal by its field: "Line 3 quantity must be at least 1" is items.2.quantity, the rest
 * as placeError places them (Due date, Reference, Customer…).
 */
export function placeJobError(err: unknown, values: Record<string, string>): { fields: Record<string, string>; form: string | null } {
  if (err instanceof Error) {
    const line = /^Line (\d+)(?: (\w+))? /.exec(err.message);
    if (line) return { fields: { [`items.${Number(line[1]) - 1}${line[2] ? `.${line[2]}` : ''}`]: err.message }, form: null };
    if (/^Items /.test(err.message)) return { fields: { items: err.message }, form: null };
  }
  return placeError(err, { ...values, customerId: '', reference: '', dueDate: '', deliveryAddress: '' });
}

/** The customer (searchable), reference, due date, delivery address and the lines of the job. */
export function JobFieldsEditor({ values, onChange, errors }: { values: JobValues; onChange: (v: JobValues) => void; errors: Record<string, string> }) {
  const set = (field: Exclude<keyof JobValues, 'items'>) => (e: { target: { value: string } }) => onChange({ ...values, [field]: e.target.value });
  const setLine = (at: number, field: keyof LineValues) => (e: { target: { value: string } }) =>
    onChange({ ...values, items: values.items.map((l, i) => (i === at ? { ...l, [field]: e.target.value } : l)) });
  // The shop prices the lines: a CLIENT is not asked to (the prices loaded are sent back as they are).
  const prices = useUser().role !== 'CLIENT';
  return (
    <>
      <CustomerSelect value={values.customerId} onChange={(customerId) => onChange({ ...values, customerId })} error={errors.customerId} />
      <Field label="Reference (optional)" error={errors.reference} hint="The customer’s own order or PO number.">
        {(p) => <input {...p} value={values.reference} onChange={set('reference')} autoComplete="off" maxLength={MAX_LENGTH.reference} />}
      </Field>
      <Field label="Due date (optional)" error={errors.dueDate} hint="The promised delivery date.">
        {(p) => <input {...p} type="date" value={values.dueDate} onChange={set('dueDate')} />}
      </Field>
      <Field label="Delivery address (optional)" error={errors.deliveryAddress}>
        {(p) => <textarea {...p} rows={2} value={values.deliveryAddress} onChange={set('deliveryAddress')} maxLength={MAX_LENGTH.deliveryAddress} />}
      </Field>
      <fieldset className="job-lines">
        <legend>Items</legend>
        {errors.items && <p className="field-error">{errors.items}</p>}
        {values.items.length === 0 && <p className="muted small-text">No lines yet.</p>}
        {values.items.map((l, at) => (
          <div className="job-line" key={l.id ?? `new-${at}`} role="group" aria-label={`Line ${at + 1}`} data-testid={`line-${at + 1}`}>
            <div className="job-line-head">
              <strong>Line {at + 1}</strong>
              <button type="button" className="link-button" onClick={() => onChange({ ...values, items: values.items.filter((_, i) => i !== at) })}>
                Remove<span className="visually-hidden"> line {at + 1}</span>
              </button>
            </div>
            <div className="job-line-fields">
              <Field label="Description" error={errors[`items.${at}.description`] ?? errors[`items.${at}`]}>
                {(p) => <input {...p} value={l.description} onChange={setLine(at, 'description')} maxLength={ITEM_MAX_LENGTH.description} autoComplete="off" />}
              </Field>
              <Field label="Quantity" error={errors[`items.${at}.quantity`]}>
                {(p) => <input {...p} value={l.quantity} onChange={setLine(at, 'quantity')} inputMode="numeric" autoComplete="off" />}
              </Field>
              <Field label="Unit" error={errors[`items.${at}.unit`]}>
                {(p) => <input {...p} value={l.unit} onChange={setLine(at, 'unit')} maxLength={ITEM_MAX_LENGTH.unit} autoComplete="off" />}
              </Field>
              {OPTIONAL_LINE_FIELDS.map((f) => (
                <Field key={f} label={`${LINE_LABELS[f]} (optional)`} error={errors[`items.${at}.${f}`]}>
                  {(p) => <input {...p} value={l[f]} onChange={setLine(at, f)} maxLength={ITEM_MAX_LENGTH[f]} autoComplete="off" />}
                </Field>
              ))}
              {prices && <PriceFields at={at} value={l.prices} currency={values.currency} errors={errors} onChange={(prices) => onChange({ ...values, items: values.items.map((x, i) => (i === at ? { ...x, prices } : x)) })} />}
            </div>
          </div>
        ))}
        {values.items.length > 0 && <LiveTotals lines={values.items.map((l) => ({ quantity: l.quantity, prices: l.prices }))} customerId={values.customerId} currency={values.currency} unpriced={prices ? undefined : 'The shop has not priced this job yet.'} />}
        {values.items.length < ITEMS.maxLines ? (
          <button type="button" className="secondary small" onClick={() => onChange({ ...values, items: [...values.items, emptyLine()] })}>
            Add a line
          </button>
        ) : (
          <p className="muted small-text">A job has at most {ITEMS.maxLines} lines.</p>
        )}
      </fieldset>
    </>
  );
}

/** The customer, chosen from the active ones by a name search (the current one kept even when inactive). */
function CustomerSelect({ value, onChange, error }: { value: string; onChange: (id: string) => void; error?: string | undefined }) {
  const [q, setQ] = useState('');
  const customers = useQuery({ queryKey: ['customers', { q, active: 'true', limit: 50 }], queryFn: () => api.customers({ q, limit: 50 }) });
  const current = useQuery({ queryKey: ['customer', value], queryFn: () => api.customer(value), enabled: Boolean(value) });
  const options = customers.data?.items ?? [];
  const chosen = value && !options.some((c) => c.id === value) ? current.data : undefined;
  return (
    <div className="customer-select">
      <Field label="Find a customer" hint="Type part of the name to narrow the list below.">
        {(p) => <input {...p} type="search" value={q} onChange={(e) => setQ(e.target.value)} autoComplete="off" />}
      </Field>
      <Field label="Customer (optional)" error={error}>
        {(p) => (
          <select {...p} value={value} onChange={(e) => onChange(e.target.value)}>
            <option value="">No customer</option>
            {chosen && <option value={chosen.id}>{chosen.name}</option>}
            {options.map((c) => (
              <option key={c.id} value={c.id}>
                {c.name}
              </option>
            ))}
          </select>
        )}
      </Field>
    </div>
  );
}

export const OverdueBadge = () => <span className="badge badge-overdue">Overdue</span>;
