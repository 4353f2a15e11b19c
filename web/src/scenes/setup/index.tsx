import { useMutation, useQuery } from '@tanstack/react-query';
import { type FormEvent, useEffect, useState } from 'react';
import { Link, useLocation } from 'wouter';
import { ApiError, api } from '../../api';
import { Field, placeError } from '../../components';
import { MAX_LENGTH } from '../../../../src/domain/limits';
import { fetchSession, signedIn } from '../../session';
import './setup.css';
import { LOG_LINE } from './where-to-look';

/**
 * The first run (interface.md, "First run"): the page of the one-time link the service logs at
 * start on a new install, `/setup#<token>`. The token is read from the address's fragment (never
 * sent to the service but in the form's body) and taken out of the address bar at once.
 */
function takeToken(): string {
  const token = decodeURIComponent(window.location.hash.slice(1));
  if (token) window.history.replaceState(window.history.state, '', window.location.pathname);
  return token;
}

/** What a refusal of the setup says to the person who opened the link. */
function messageFor(err: unknown): string {
  if (!(err instanceof ApiError)) return 'Setting up failed. Try again.';
  if (err.status === 403 && err.message === 'Invalid setup token') return 'This link is not the one in the service’s log now. Each start of the service prints a new link: open the latest one.';
  if (err.status === 429) return 'Too many wrong links from this address. Wait a few minutes, then open the latest link from the log.';
  return err.message;
}

export function SetupPage() {
  const [token, setToken] = useState(takeToken);
  // The link opened in a window already at /setup changes only the fragment: read it then too.
  useEffect(() => {
    const read = () => {
      const next = takeToken();
      if (next) setToken(next);
    };
    window.addEventListener('hashchange', read);
    return () => window.removeEventListener('hashchange', read);
  }, []);
  const [, navigate] = useLocation();
  const needed = useQuery({ queryKey: ['setup'], queryFn: api.setupNeeded });
  const [values, setValues] = useState({ name: '', email: '', password: '' });
  const set = (field: keyof typeof values) => (e: { target: { value: string } }) => setValues((v) => ({ ...v, [field]: e.target.value }));
  const [local, setLocal] = useState<Record<string, string>>({});
  const setup = useMutation({
    mutationFn: () => api.setup({ token, ...values }),
    // The new session at once (its answer carries the upload limit too), then the dashboard: no sign-in page in between.
    onSuccess: async () => {
      const info = await fetchSession().catch(() => null);
      navigate('/', { replace: true });
      signedIn(info);
    },
  });
  useEffect(() => {
    document.title = 'Set up · Print orders';
  }, []);
  const placed = placeError(setup.error, values);
  const fields = { ...placed.fields, ...local };

  const submit = (e: FormEvent) => {
    e.preventDefault();
    const errors: Record<string, string> = {};
    if (!values.name.trim()) errors.name = 'Name is required';
    if (!values.email.trim()) errors.email = 'Email is required';
    if ([...values.password].length < 8) errors.password = 'Password must be at least 8 characters';
    setLocal(errors);
    if (Object.keys(errors).length) return setup.reset();
    if (!setup.isPending) setup.mutate();
  };

  return (
    <main className="sign-in">
      <div className="card sign-in-card setup-card">
        <p className="brand">Print orders</p>
        <h1>Set up the first admin</h1>
        {needed.isPending && <p className="muted">Checking the install…</p>}
        {needed.isError && <p className="error" role="alert">{messageFor(needed.error)}</p>}
        {needed.data?.needed === false && (
          <div data-testid="setup-done">
            <p className="notice" role="status">
              Setup is already done: this install has an admin.
            </p>
            <p>
              <Link href="/">Sign in</Link>
            </p>
          </div>
        )}
        {needed.data?.needed && !token && (
          <div className="notice" role="status" data-testid="setup-no-token">
            <p>This page opens from the one-time link the service prints in its log at start. Look for the line</p>
            <p>
              <code>{LOG_LINE}</code>
            </p>
            <p>and open that address.</p>
          </div>
        )}
        {needed.data?.needed && token && (
          <form onSubmit={submit} noValidate aria-labelledby="setup-intro" className="setup-form">
            <p id="setup-intro">This install has no admin yet. The account you make here is its first admin; add everyone else from the Team page afterwards.</p>
            <Field label="Your name" error={fields.name}>
              {(p) => <input {...p} value={values.name} onChange={set('name')} autoComplete="name" maxLength={MAX_LENGTH.name} />}
            </Field>
            <Field label="Email" error={fields.email}>
              {(p) => <input {...p} type="email" value={values.email} onChange={set('email')} autoComplete="username" maxLength={MAX_LENGTH.email} />}
            </Field>
            <Field label="Password" error={fields.password} hint="At least 8 characters.">
              {(p) => <input {...p} type="password" value={values.password} onChange={set('password')} autoComplete="new-password" />}
            </Field>
            {setup.isError && !Object.keys(placed.fields).length && (
              <p className="error" role="alert">
                {messageFor(setup.error)}
              </p>
            )}
            <button type="submit" className="primary wide" aria-disabled={setup.isPending}>
              {setup.isPending ? 'Creating…' : 'Create the admin and sign in'}
            </button>
          </form>
        )}
      </div>
    </main>
  );
}
