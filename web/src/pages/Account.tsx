import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { type FormEvent, useEffect, useState } from 'react';
import { type Account, EMAIL_CATEGORIES, type EmailCategory, api } from '../api';
import { ErrorMessage, Field, PageTitle, placeError } from '../components';
import { ROLE_LABELS } from '../format';
import { SESSION_KEY } from '../session';
import './account.css';

const ACCOUNT_KEY = ['account'] as const;

/** What each email category brings, in the words of the person receiving it. */
const CATEGORY_LABELS: Record<EmailCategory, { label: string; hint: string }> = {
  approvals: { label: 'Approvals', hint: 'New projects waiting for approval (admins); your project approved or rejected.' },
  pi: { label: 'Proforma invoices', hint: 'A PI submitted (admins); your PI verified or rejected.' },
  progress: { label: 'Progress', hint: 'Printing started, dispatched, delivered or cancelled.' },
  documents: { label: 'Documents', hint: 'A PO, challan or invoice uploaded by someone else.' },
  comments: { label: 'Comments', hint: 'A comment someone else wrote on a project you can see, with its text.' },
};

/** My account: name and phone, the emails I get, and my password. Every role. */
export function AccountPage() {
  const account = useQuery({ queryKey: ACCOUNT_KEY, queryFn: api.account });
  return (
    <>
      <PageTitle>My account</PageTitle>
      {account.isPending && <p role="status">Loading…</p>}
      <ErrorMessage error={account.error} />
      {account.data && (
        <div className="stack">
          <ProfileForm account={account.data} />
          <EmailPreferencesForm account={account.data} />
          <PasswordForm />
        </div>
      )}
    </>
  );
}

function ProfileForm({ account }: { account: Account }) {
  const queryClient = useQueryClient();
  const [name, setName] = useState(account.name);
  const [phone, setPhone] = useState(account.phone ?? '');
  const save = useMutation({
    mutationFn: () => api.updateAccount({ name, phone: phone.trim() ? phone : null }),
    onSuccess: (updated) => {
      queryClient.setQueryData(ACCOUNT_KEY, updated);
      // The header shows the name.
      void queryClient.invalidateQueries({ queryKey: SESSION_KEY });
    },
  });
  const placed = placeError(save.error, { name, phone });
  const submit = (e: FormEvent) => {
    e.preventDefault();
    if (!save.isPending) save.mutate();
  };
  return (
    <form className="card" onSubmit={submit} noValidate aria-labelledby="profile-title">
      <h2 id="profile-title">Profile</h2>
      <p className="muted">
        {account.email} · {ROLE_LABELS[account.role]}
      </p>
      <Field label="Name" error={placed.fields.name}>
        {(props) => <input {...props} value={name} autoComplete="name" onChange={(e) => setName(e.target.value)} />}
      </Field>
      <Field label="Phone" error={placed.fields.phone}>
        {(props) => <input {...props} type="tel" value={phone} autoComplete="tel" onChange={(e) => setPhone(e.target.value)} />}
      </Field>
      <ErrorMessage error={placed.form} />
      {save.isSuccess && <p role="status">Saved.</p>}
      <button type="submit" className="primary" aria-disabled={save.isPending}>
        {save.isPending ? 'Saving…' : 'Save profile'}
      </button>
    </form>
  );
}

function EmailPreferencesForm({ account }: { account: Account }) {
  const queryClient = useQueryClient();
  // The boxes show the choice at once; a refusal puts back what the service holds.
  const [shown, setShown] = useState(account.emailPreferences);
  const change = useMutation({
    mutationFn: (choice: Partial<Record<EmailCategory, boolean>>) => api.updateAccount({ emailPreferences: choice }),
    onSuccess: (updated) => queryClient.setQueryData(ACCOUNT_KEY, updated),
    onError: () => setShown(account.emailPreferences),
  });
  const choose = (category: EmailCategory, on: boolean) => {
    setShown((s) => ({ ...s, [category]: on }));
    change.mutate({ [category]: on });
  };
  return (
    <section className="card" role="group" aria-labelledby="emails-title">
      <h2 id="emails-title">Emails I get</h2>
      <p className="muted">Changes you make yourself never send you an email. Each box is saved at once.</p>
      {EMAIL_CATEGORIES.map((category) => (
        <div className="field choice" key={category}>
          <label>
            <input type="checkbox" checked={shown[category]} onChange={(e) => choose(category, e.target.checked)} aria-describedby={`emails-${category}-hint`} />
            {CATEGORY_LABELS[category].label}
          </label>
          <p className="hint" id={`emails-${category}-hint`}>
            {CATEGORY_LABELS[category].hint}
          </p>
        </div>
      ))}
      <ErrorMessage error={change.error} />
      {change.isSuccess && !change.isPending && <p role="status">Saved.</p>}
    </section>
  );
}

function PasswordForm() {
  const [current, setCurrent] = useState('');
  const [next, setNext] = useState('');
  const [repeat, setRepeat] = useState('');
  const [mismatch, setMismatch] = useState(false);
  const change = useMutation({
    mutationFn: () => api.changePassword(current, next),
    onSuccess: () => {
      setCurrent('');
      setNext('');
      setRepeat('');
    },
  });
  const submit = (e: FormEvent) => {
    e.preventDefault();
    setMismatch(next !== repeat);
    if (next === repeat && !change.isPending) change.mutate();
  };
  const message = change.error instanceof Error ? change.error.message : undefined;
  return (
    <form className="card" onSubmit={submit} noValidate aria-labelledby="password-title">
      <h2 id="password-title">Password</h2>
      <p className="muted">Changing it signs you out everywhere else.</p>
      <Field label="Current password" error={message && /current/i.test(message) ? message : undefined}>
        {(props) => <input {...props} type="password" autoComplete="current-password" value={current} onChange={(e) => setCurrent(e.target.value)} />}
      </Field>
      <Field label="New password" hint="At least 8 characters." error={message && !/current/i.test(message) ? message : undefined}>
        {(props) => <input {...props} type="password" autoComplete="new-password" value={next} onChange={(e) => setNext(e.target.value)} />}
      </Field>
      <Field label="New password again" error={mismatch ? 'The two new passwords differ.' : undefined}>
        {(props) => <input {...props} type="password" autoComplete="new-password" value={repeat} onChange={(e) => setRepeat(e.target.value)} />}
      </Field>
      {change.isSuccess && <p role="status">Password changed. Your other sessions have ended.</p>}
      <button type="submit" className="primary" aria-disabled={change.isPending}>
        {change.isPending ? 'Changing…' : 'Change password'}
      </button>
    </form>
  );
}

/** Sets the tab's title on the pages shown without a session. */
export function useTitle(title: string) {
  useEffect(() => {
    document.title = `${title} · Print orders`;
  }, [title]);
}
