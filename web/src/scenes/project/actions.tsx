import { useMutation, useQueryClient } from '@tanstack/react-query';
import { type FormEvent, useEffect, useId, useRef, useState } from 'react';
import { ApiError, type ProjectAction, type ProjectDetail, api } from '../../api';
import { ErrorMessage, Field, FormActions, placeError } from '../../components';
import { ACTION_LABELS, PI_LABELS, STAGE_LABELS, stageOf } from '../../format';
import { MAX_LENGTH } from '../../../../src/domain/limits';
import { isCurrencyCode, minorDigits, parseMajor } from '../../../../src/domain/money';

const DONE: Record<ProjectAction, string> = {
  approve: 'The project is approved.',
  reject: 'The project is rejected.',
  resubmit: 'The project is sent to the admins for approval again.',
  'submit-pi': 'The PI is submitted for verification.',
  'verify-pi': 'The PI is verified.',
  'reject-pi': 'The PI is rejected.',
  'start-printing': 'Printing has started.',
  dispatch: 'The project is marked dispatched.',
  deliver: 'The project is marked delivered.',
  cancel: 'The project is cancelled.',
};
const DANGER = new Set<ProjectAction>(['reject', 'reject-pi', 'cancel']);
const WITH_NOTE = new Set<ProjectAction>(['approve', 'reject', 'resubmit', 'reject-pi', 'cancel']);

/** The lifecycle actions the API says the user may take now (allowedActions), with an optional note. */
export function Actions({ project: p }: { project: ProjectDetail }) {
  const queryClient = useQueryClient();
  const noteId = useId();
  const [note, setNote] = useState('');
  const [confirming, setConfirming] = useState(false);
  /**
   * A confirmation or a refusal is about the project as it was then: each keeps the project's
   * updatedAt it belongs to, and is shown only while the project is still that one. A live change
   * (someone else's action) makes it disappear instead of contradicting the page.
   */
  const [done, setDone] = useState<{ text: string; at: string } | null>(null);
  const [refusal, setRefusal] = useState<{ error: unknown; at: string } | null>(null);
  const cancelRef = useRef<HTMLButtonElement>(null);
  const doneRef = useRef<HTMLParagraphElement>(null);
  // The button just used is gone once the project moves on: keep the keyboard focus in this section.
  useEffect(() => {
    if (done) doneRef.current?.focus();
  }, [done]);
  const act = useMutation({
    mutationFn: (action: ProjectAction) => api.act(p.id, action, note.trim() || undefined),
    onMutate: () => {
      setDone(null);
      setRefusal(null);
    },
    onSuccess: (updated, action) => {
      setDone({ text: DONE[action], at: updated.updatedAt });
      setNote('');
      setConfirming(false);
      void queryClient.invalidateQueries({ queryKey: ['project', p.id] });
    },
    onError: async (error) => {
      setConfirming(false);
      // Refused because the page was behind? Catch up first, then say it against what is now on screen.
      await queryClient.refetchQueries({ queryKey: ['project', p.id] });
      const now = queryClient.getQueryData<ProjectDetail>(['project', p.id]);
      setRefusal({ error, at: now?.updatedAt ?? p.updatedAt });
    },
  });
  const actions = p.allowedActions;
  const [piOpen, setPiOpen] = useState(false);
  const take = (action: ProjectAction) => {
    if (action === 'cancel') return setConfirming(true);
    if (action === 'submit-pi') return setPiOpen(true);
    if (!act.isPending) act.mutate(action);
  };

  return (
    <section className="card" aria-labelledby="actions-title">
      <h2 id="actions-title">What you can do now</h2>
      {actions.length === 0 ? (
        <p className="muted">Nothing is waiting for you on this project.</p>
      ) : (
        <>
          {actions.some((a) => WITH_NOTE.has(a)) && (
            <div className="field">
              <label htmlFor={noteId}>Note (optional, kept with the decision)</label>
              <input id={noteId} value={note} onChange={(e) => setNote(e.target.value)} autoComplete="off" />
            </div>
          )}
          <div className="button-row">
            {actions.map((a) => (
              <button
                key={a}
                ref={a === 'cancel' ? cancelRef : undefined}
                type="button"
                className={DANGER.has(a) ? 'danger' : 'primary'}
                onClick={() => take(a)}
                aria-disabled={act.isPending || (confirming && a === 'cancel')}
                aria-expanded={a === 'cancel' ? confirming : undefined}
              >
                {ACTION_LABELS[a]}
              </button>
            ))}
          </div>
          {piOpen && actions.includes('submit-pi') && (
            <SubmitPiForm
              project={p}
              note={note.trim() || undefined}
              onDone={(updated) => {
                setPiOpen(false);
                setNote('');
                setDone({ text: DONE['submit-pi'], at: updated.updatedAt });
                void queryClient.invalidateQueries({ queryKey: ['project', p.id] });
              }}
              onCancel={() => setPiOpen(false)}
            />
          )}
          {confirming && (
            <div className="confirm" role="group" aria-label="Confirm cancellation">
              <p>Cancel this project? Documents can then no longer be uploaded.</p>
              <div className="button-row">
                <button type="button" className="danger" onClick={() => !act.isPending && act.mutate('cancel')} autoFocus aria-disabled={act.isPending}>
                  Yes, cancel the project
                </button>
                <button
                  type="button"
                  className="secondary"
                  onClick={() => {
                    setConfirming(false);
                    cancelRef.current?.focus();
                  }}
                >
                  Keep it
                </button>
              </div>
            </div>
          )}
        </>
      )}
      {refusal && refusal.at === p.updatedAt && (
        <p className="error" role="alert">
          {refusal.error instanceof ApiError && refusal.error.status === 409
            ? `That could not be done: the project is now ${STAGE_LABELS[stageOf(p)].toLowerCase()}${p.piStatus !== 'PENDING' ? `, PI ${PI_LABELS[p.piStatus].toLowerCase()}` : ''}. The buttons above are what you can do now.`
            : refusal.error instanceof Error
              ? refusal.error.message
              : String(refusal.error)}
        </p>
      )}
      {done && done.at === p.updatedAt && (
        <p className="success" role="status" ref={doneRef} tabIndex={-1}>
          {done.text}
        </p>
      )}
    </section>
  );
}

/**
 * The PI's number and amount (and currency), asked when "Submit PI" is chosen. The amount is typed
 * in major units ("125000.50") and sent in minor units, converted with string arithmetic
 * (src/domain/money.ts), never floating point.
 */
function SubmitPiForm({ project: p, note, onDone, onCancel }: { project: ProjectDetail; note?: string; onDone: (updated: { updatedAt: string }) => void; onCancel: () => void }) {
  const [values, setValues] = useState({ number: p.pi?.number ?? '', amount: '', currency: p.pi?.currency ?? p.payments[0]?.currency ?? 'INR', validUntil: p.pi?.validUntil ?? '' });
  const [fieldErrors, setFieldErrors] = useState<Record<string, string>>({});
  const set = (field: keyof typeof values) => (e: { target: { value: string } }) => setValues((v) => ({ ...v, [field]: e.target.value }));
  const send = useMutation({
    mutationFn: (body: { number: string; amount: number; currency: string; validUntil?: string; note?: string }) => api.submitPi(p.id, body),
    onSuccess: onDone,
    onError: (error) => setFieldErrors(placeError(error, values).fields),
  });
  const submit = (e: FormEvent) => {
    e.preventDefault();
    const currency = values.currency.trim().toUpperCase();
    const errors: Record<string, string> = {};
    if (!values.number.trim()) errors.number = 'PI number is required';
    if (!isCurrencyCode(currency)) errors.currency = 'Currency must be an ISO 4217 code, such as INR';
    const amount = isCurrencyCode(currency) ? parseMajor(values.amount, currency) : null;
    if (isCurrencyCode(currency) && (amount === null || amount < 1)) {
      const digits = minorDigits(currency);
      errors.amount = digits ? `Amount must be a number more than 0, with at most ${digits} digits after the dot` : 'Amount must be a whole number more than 0';
    }
    setFieldErrors(errors);
    if (Object.keys(errors).length || amount === null || send.isPending) return;
    send.mutate({ number: values.number.trim(), amount, currency, ...(values.validUntil ? { validUntil: values.validUntil } : {}), note });
  };
  return (
    <form className="form" onSubmit={submit} noValidate aria-label="Submit the PI">
      <Field label="PI number" error={fieldErrors.number}>
        {(props) => <input {...props} value={values.number} onChange={set('number')} maxLength={MAX_LENGTH.number} autoComplete="off" />}
      </Field>
      <Field label="Amount" error={fieldErrors.amount} hint="In rupees (or the currency's major units), e.g. 125000.50">
        {(props) => <input {...props} value={values.amount} onChange={set('amount')} inputMode="decimal" autoComplete="off" />}
      </Field>
      <Field label="Currency" error={fieldErrors.currency}>
        {(props) => <input {...props} value={values.currency} onChange={set('currency')} maxLength={3} autoComplete="off" />}
      </Field>
      <Field label="Valid until (optional)" error={fieldErrors.validUntil}>
        {(props) => <input {...props} type="date" value={values.validUntil} onChange={set('validUntil')} />}
      </Field>
      {send.error && !Object.keys(fieldErrors).length && <ErrorMessage error={send.error} />}
      <FormActions label="Submit the PI" pending={send.isPending} onCancel={onCancel} />
    </form>
  );
}
