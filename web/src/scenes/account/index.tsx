import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { type FormEvent, useEffect, useState } from 'react';
import { type Account, type ApiToken, EMAIL_CATEGORIES, type EmailCategory, type TokenScope, api } from '../../api';
import { ErrorMessage, Field, PageTitle, placeError } from '../../components';
import { ROLE_LABELS, formatDateTime } from '../../format';
import { SESSION_KEY } from '../../session';
import './account.css';

const ACCOUNT_KEY = ['account'] as const;
const TOKENS_KEY = ['account', 'tokens'] as const;
const ALL_TOKENS_KEY = ['account', 'tokens', 'everyone'] as const;

/** What each email category brings, in the words of the person receiving it. */
const CATEGORY_LABELS: Record<EmailCategory, { label: string; hint: string }> = {
  approvals: { label: 'Approvals', hint: 'New projects waiting for approval (admins); your project approved or rejected.' },
  pi: { label: 'Proforma invoices', hint: 'A PI submitted (admins); your PI verified or rejected.' },
  progress: { label: 'Progress', hint: 'Printing started, dispatched, delivered or cancelled.' },
  documents: { label: 'Documents', hint: 'A PO, challan or invoice uploaded by someone else.' },
  dueDigest: { label: 'Morning due-date digest', hint: 'Each morning, the projects overdue or due that day (POCs: your own; admins: all).' },
  comments: { label: 'Comments', hint: 'A comment someone else wrote on a project you can see, with its text.' },
  proofs: { label: 'Proofs', hint: 'A proof posted for your approval (customers); the customer’s answer (the shop).' },
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
          <ApiTokens />
          {account.data.role === 'ADMIN' && <EveryonesApiTokens />}
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

/** API tokens: for scripts and other systems, sent as `Authorization: Bearer …`; the token is shown once. */
function ApiTokens() {
  const queryClient = useQueryClient();
  const tokens = useQuery({ queryKey: TOKENS_KEY, queryFn: api.apiTokens });
  const [name, setName] = useState('');
  const [scope, setScope] = useState<TokenScope>('read');
  const [days, setDays] = useState('90');
  const [copied, setCopied] = useState(false);
  const create = useMutation({
    mutationFn: () => api.createApiToken({ name, scope, ...(days ? { expiresInDays: Number(days) } : {}) }),
    onSuccess: () => {
      setName('');
      setCopied(false);
      void queryClient.invalidateQueries({ queryKey: TOKENS_KEY });
    },
  });
  const revoke = useMutation({
    mutationFn: (id: string) => api.revokeApiToken(id),
    onSuccess: () => void queryClient.invalidateQueries({ queryKey: TOKENS_KEY }),
  });
  const placed = placeError(create.error, { name });
  const submit = (e: FormEvent) => {
    e.preventDefault();
    if (!create.isPending) create.mutate();
  };
  const made = create.data;
  const copy = async () => {
    if (!made) return;
    await navigator.clipboard.writeText(made.token);
    setCopied(true);
  };
  return (
    <section className="card" aria-labelledby="tokens-title">
      <h2 id="tokens-title">API tokens</h2>
      <p className="muted">For scripts and other systems: send a token as <code>Authorization: Bearer …</code>. A read token can only look; a write token can do all you can.</p>
      {made && (
        <div className="token-shown" role="status">
          <p>
            <strong>Copy your new token “{made.name}” now: it will not be shown again.</strong> Keep it like a password.
          </p>
          <p className="token-row">
            <code aria-label="New API token">{made.token}</code>
            <button type="button" className="secondary small" onClick={() => void copy()}>
              {copied ? 'Copied' : 'Copy'}
            </button>
          </p>
        </div>
      )}
      <form onSubmit={submit} noValidate aria-label="New API token">
        <Field label="Used for" hint="What uses the token, e.g. “ERP sync”." error={placed.fields.name}>
          {(props) => <input {...props} value={name} maxLength={100} onChange={(e) => setName(e.target.value)} />}
        </Field>
        <Field label="Access">
          {(props) => (
            <select {...props} value={scope} onChange={(e) => setScope(e.target.value as TokenScope)}>
              <option value="read">Read only</option>
              <option value="write">Read and write</option>
            </select>
          )}
        </Field>
        <Field label="Expires">
          {(props) => (
            <select {...props} value={days} onChange={(e) => setDays(e.target.value)}>
              <option value="7">In 7 days</option>
              <option value="30">In 30 days</option>
              <option value="90">In 90 days</option>
              <option value="365">In a year</option>
              <option value="">Never</option>
            </select>
          )}
        </Field>
        <ErrorMessage error={placed.form} />
        <button type="submit" className="primary" aria-disabled={create.isPending}>
          {create.isPending ? 'Creating…' : 'Create token'}
        </button>
      </form>
      <ErrorMessage error={tokens.error ?? revoke.error} />
      {tokens.data && tokens.data.length === 0 && <p className="empty">No API tokens yet.</p>}
      {tokens.data && tokens.data.length > 0 && <TokenTable caption="My API tokens" tokens={tokens.data} revoking={revoke.isPending} onRevoke={(t) => revoke.mutate(t.id)} />}
    </section>
  );
}

/** ADMINs: everyone's API tokens, with whose each is, to revoke one that leaked or outlived its use. */
function EveryonesApiTokens() {
  const queryClient = useQueryClient();
  const tokens = useQuery({ queryKey: ALL_TOKENS_KEY, queryFn: api.everyonesApiTokens });
  const revoke = useMutation({
    mutationFn: (id: string) => api.revokeAnyApiToken(id),
    onSuccess: () => void queryClient.invalidateQueries({ queryKey: ['account'] }),
  });
  return (
    <section className="card" aria-labelledby="all-tokens-title">
      <h2 id="all-tokens-title">Everyone’s API tokens</h2>
      <p className="muted">Every token of every member, newest first. Revoking one stops whatever uses it at once.</p>
      <ErrorMessage error={tokens.error ?? revoke.error} />
      {tokens.data && tokens.data.length === 0 && <p className="empty">Nobody has an API token.</p>}
      {tokens.data && tokens.data.length > 0 && <TokenTable caption="Everyone’s API tokens" tokens={tokens.data} revoking={revoke.isPending} onRevoke={(t) => revoke.mutate(t.id)} />}
    </section>
  );
}

/** A list of tokens with a Revoke button each; with their owner when the list is everyone's. */
function TokenTable({ caption, tokens, revoking, onRevoke }: { caption: string; tokens: (ApiToken & { userName?: string })[]; revoking: boolean; onRevoke: (t: ApiToken) => void }) {
  const withOwner = tokens.some((t) => t.userName !== undefined);
  return (
    <div className="table-scroll">
      <table className="table responsive">
        <caption className="visually-hidden">{caption}</caption>
        <thead>
          <tr>
            {withOwner && <th scope="col">Member</th>}
            <th scope="col">Name</th>
            <th scope="col">Access</th>
            <th scope="col">Expires</th>
            <th scope="col">Last used</th>
            <th scope="col">
              <span className="visually-hidden">Revoke</span>
            </th>
          </tr>
        </thead>
        <tbody>
          {tokens.map((t) => (
            <tr key={t.id}>
              {withOwner && <td data-label="Member">{t.userName}</td>}
              <td data-label="Name">{t.name}</td>
              <td data-label="Access">{t.scope === 'read' ? 'Read only' : 'Read and write'}</td>
              <td data-label="Expires">{t.expiresAt ? formatDateTime(t.expiresAt) : 'Never'}</td>
              <td data-label="Last used">{t.lastUsedAt ? formatDateTime(t.lastUsedAt) : 'Never'}</td>
              <td>
                <button
                  type="button"
                  className="danger small"
                  aria-label={withOwner ? `Revoke ${t.name} of ${t.userName}` : `Revoke ${t.name}`}
                  aria-disabled={revoking}
                  onClick={() => !revoking && window.confirm(`Revoke “${t.name}”? Whatever uses it stops working at once.`) && onRevoke(t)}
                >
                  Revoke
                </button>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

/** Sets the tab's title on the pages shown without a session. */
export function useTitle(title: string) {
  useEffect(() => {
    document.title = `${title} · Print orders`;
  }, [title]);
}
