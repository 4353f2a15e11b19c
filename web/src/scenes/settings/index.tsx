import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { type FormEvent, useEffect, useState } from 'react';
import { ErrorMessage, PageTitle, QueryError } from '../../components';
import { type ShopSettings, moneyApi } from '../../money-ui';
import { useUser } from '../../session';

const FIELDS = [
  ['name', 'Shop name', 'Printed on the PI and the invoice.'],
  ['address', 'Address', ''],
  ['gstin', 'GSTIN', 'Its first two digits are the shop’s state: CGST and SGST inside it, IGST outside.'],
  ['phone', 'Phone', ''],
  ['email', 'Email', ''],
  ['bankDetails', 'Bank details', 'Printed on the PI and the invoice, for payment.'],
  ['invoicePrefix', 'Invoice prefix', '1 to 10 letters, digits or “-”: numbers read PREFIX/2026-27/0001.'],
] as const;
type Values = Record<(typeof FIELDS)[number][0], string>;
const valuesOf = (s: ShopSettings): Values => ({ name: s.name ?? '', address: s.address ?? '', gstin: s.gstin ?? '', phone: s.phone ?? '', email: s.email ?? '', bankDetails: s.bankDetails ?? '', invoicePrefix: s.invoicePrefix });

/** The shop's settings: everyone reads them, an ADMIN changes them. */
export function ShopSettingsPage() {
  const user = useUser();
  const queryClient = useQueryClient();
  const settings = useQuery({ queryKey: ['shop-settings'], queryFn: moneyApi.shopSettings });
  const [values, setValues] = useState<Values | null>(null);
  useEffect(() => {
    if (settings.data && !values) setValues(valuesOf(settings.data));
  }, [settings.data, values]);
  const save = useMutation({
    mutationFn: (v: Values) => moneyApi.updateShopSettings({ ...Object.fromEntries(Object.entries(v).map(([k, x]) => [k, x.trim() || null])), invoicePrefix: v.invoicePrefix.trim() }),
    onSuccess: (s) => {
      queryClient.setQueryData(['shop-settings'], s);
      setValues(valuesOf(s));
    },
  });
  if (!settings.data || !values) return settings.error ? <QueryError query={settings} what="The shop settings" /> : <p className="muted">Loading…</p>;
  const readOnly = user.role !== 'ADMIN';
  const submit = (e: FormEvent) => {
    e.preventDefault();
    if (!save.isPending) save.mutate(values);
  };
  return (
    <>
      <PageTitle>Shop settings</PageTitle>
      {readOnly && <p className="notice">Only admins change these.</p>}
      <form className="card" onSubmit={submit} data-testid="shop-settings">
        {FIELDS.map(([field, label, hint]) => (
          <div className="field" key={field}>
            <label htmlFor={`shop-${field}`}>{label}</label>
            {field === 'address' || field === 'bankDetails' ? (
              <textarea id={`shop-${field}`} rows={3} value={values[field]} readOnly={readOnly} aria-describedby={hint ? `shop-${field}-hint` : undefined} onChange={(e) => setValues({ ...values, [field]: e.target.value })} />
            ) : (
              <input id={`shop-${field}`} value={values[field]} readOnly={readOnly} aria-describedby={hint ? `shop-${field}-hint` : undefined} onChange={(e) => setValues({ ...values, [field]: e.target.value })} autoComplete="off" />
            )}
            {hint && (
              <p className="hint" id={`shop-${field}-hint`}>
                {hint}
              </p>
            )}
          </div>
        ))}
        <ErrorMessage error={save.error} />
        {save.isSuccess && <p role="status">Saved.</p>}
        {!readOnly && (
          <button type="submit" className="primary" aria-disabled={save.isPending}>
            Save
          </button>
        )}
      </form>
    </>
  );
}
