import { useMutation, useQueryClient } from '@tanstack/react-query';
import { type FormEvent, useState } from 'react';
import { type ProjectDetail, api } from '../../api';
import { ErrorMessage, Field, FormActions, placeError } from '../../components';
import { formatDay, formatMoney, todayIso } from '../../format';
import { useUser } from '../../session';
import { minorDigits, parseMajor } from '../../../../src/domain/money';

/** The payments received (newest first) with what is paid and the balance; for ADMINs, "Record a payment". */
export function Payments({ project: p }: { project: ProjectDetail }) {
  const me = useUser();
  const [open, setOpen] = useState(false);
  const [recorded, setRecorded] = useState<string | null>(null);
  const currency = p.pi?.currency ?? p.payments[0]?.currency ?? 'INR';
  if (me.role !== 'ADMIN' && !p.pi && p.payments.length === 0) return null;
  return (
    <section className="card" aria-labelledby="payments-title" data-testid="payments">
      <h2 id="payments-title">Payments</h2>
      <dl className="facts money-facts">
        <div>
          <dt>PI amount</dt>
          <dd data-testid="payments-pi">{p.pi ? formatMoney(p.pi.amount, p.pi.currency) : 'No PI yet'}</dd>
        </div>
        <div>
          <dt>Paid</dt>
          <dd data-testid="payments-paid">{formatMoney(p.paid, currency)}</dd>
        </div>
        <div>
          <dt>Balance</dt>
          <dd data-testid="payments-balance">{p.balance === null ? '—' : formatMoney(p.balance, currency)}</dd>
        </div>
      </dl>
      {p.payments.length === 0 ? (
        <p className="muted small-text">No payment recorded yet.</p>
      ) : (
        <ul className="plain-list payments-list" data-testid="payments-list">
          {p.payments.map((pay) => (
            <li key={pay.id}>
              <strong>{formatMoney(pay.amount, pay.currency)}</strong> <span className="muted">on</span> <time dateTime={pay.receivedOn}>{formatDay(pay.receivedOn)}</time>
              {(pay.method || pay.reference) && <span className="muted small-text"> · {[pay.method, pay.reference].filter(Boolean).join(' · ')}</span>}
            </li>
          ))}
        </ul>
      )}
      {me.role === 'ADMIN' && (
        <>
          <button
            type="button"
            className="secondary small"
            aria-expanded={open}
            onClick={() => {
              setRecorded(null);
              setOpen((o) => !o);
            }}
          >
            Record a payment
          </button>
          {open && (
            <PaymentForm
              project={p}
              currency={currency}
              onDone={(text) => {
                setOpen(false);
                setRecorded(text);
              }}
              onCancel={() => setOpen(false)}
            />
          )}
          {recorded && (
            <p className="success" role="status">
              {recorded}
            </p>
          )}
        </>
      )}
    </section>
  );
}

/** A payment received: the amount typed in major units and sent in minor units (string arithmetic), a date not after today. */
function PaymentForm({ project: p, currency, onDone, onCancel }: { project: ProjectDetail; currency: string; onDone: (text: string) => void; onCancel: () => void }) {
  const queryClient = useQueryClient();
  const today = todayIso();
  const [values, setValues] = useState({ amount: '', receivedOn: today, method: '', reference: '' });
  const [fieldErrors, setFieldErrors] = useState<Record<string, string>>({});
  const set = (field: keyof typeof values) => (e: { target: { value: string } }) => setValues((v) => ({ ...v, [field]: e.target.value }));
  const send = useMutation({
    mutationFn: (body: { amount: number; receivedOn: string; method?: string; reference?: string }) => api.recordPayment(p.id, body),
    onSuccess: (pay) => {
      void queryClient.invalidateQueries({ queryKey: ['project', p.id] });
      void queryClient.invalidateQueries({ queryKey: ['stats'] });
      onDone(`${formatMoney(pay.amount, pay.currency)} received on ${formatDay(pay.receivedOn)} is recorded.`);
    },
    onError: (error) => setFieldErrors(placeError(error, values).fields),
  });
  const submit = (e: FormEvent) => {
    e.preventDefault();
    const errors: Record<string, string> = {};
    const amount = parseMajor(values.amount, currency);
    if (amount === null || amount < 1) {
      const digits = minorDigits(currency);
      errors.amount = digits ? `Amount must be a number more than 0, with at most ${digits} digits after the dot` : 'Amount must be a whole number more than 0';
    }
    if (!/^\d{4}-\d{2}-\d{2}$/.test(values.receivedOn)) errors.receivedOn = 'Received on is required';
    else if (values.receivedOn > today) errors.receivedOn = 'Received on must not be in the future';
    setFieldErrors(errors);
    if (Object.keys(errors).length || amount === null || send.isPending) return;
    send.mutate({
      amount,
      receivedOn: values.receivedOn,
      ...(values.method.trim() ? { method: values.method.trim() } : {}),
      ...(values.reference.trim() ? { reference: values.reference.trim() } : {}),
    });
  };
  return (
    <form className="form" onSubmit={submit} noValidate aria-label="Record a payment">
      <Field label="Amount" error={fieldErrors.amount} hint={`In ${currency}, e.g. 50000 or 50000.50`}>
        {(props) => <input {...props} value={values.amount} onChange={set('amount')} inputMode="decimal" autoComplete="off" />}
      </Field>
      <Field label="Received on" error={fieldErrors.receivedOn}>
        {(props) => <input {...props} type="date" value={values.receivedOn} max={today} onChange={set('receivedOn')} />}
      </Field>
      <Field label="Method (optional)" error={fieldErrors.method} hint="NEFT, cheque, UPI…">
        {(props) => <input {...props} value={values.method} onChange={set('method')} maxLength={100} autoComplete="off" />}
      </Field>
      <Field label="Payment reference (optional)" error={fieldErrors.reference} hint="A UTR or cheque number.">
        {(props) => <input {...props} value={values.reference} onChange={set('reference')} maxLength={100} autoComplete="off" />}
      </Field>
      {send.error && !Object.keys(fieldErrors).length && <ErrorMessage error={send.error} />}
      <FormActions label="Record the payment" pending={send.isPending} onCancel={onCancel} />
    </form>
  );
}
