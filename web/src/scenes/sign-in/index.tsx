import { useMutation } from '@tanstack/react-query';
import { type FormEvent, useEffect, useState } from 'react';
import { Link } from 'wouter';
import { ApiError, api } from '../../api';
import { END_MESSAGES, signedIn, useEndedReason } from '../../session';
import { WhereToLook } from '../setup/where-to-look';

/** How long to wait, in words: "15 minutes", "a minute". */
function waitFor(seconds: number | null): string {
  if (seconds === null) return 'a few minutes';
  const minutes = Math.ceil(seconds / 60);
  return minutes <= 1 ? 'a minute' : `${minutes} minutes`;
}

/** What to tell the person when signing in fails. */
function messageFor(err: unknown): string {
  if (!(err instanceof ApiError)) return 'Signing in failed. Try again.';
  if (err.status === 401) return 'Wrong email or password. Check both and try again.';
  if (err.status === 429) return `Too many failed attempts. For your security, signing in is paused: try again in ${waitFor(err.retryAfterSeconds)}.`;
  return err.message;
}

export function SignInPage() {
  const ended = useEndedReason();
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const login = useMutation({
    mutationFn: () => api.login(email, password),
    // The session answer carries what the app needs besides the user (the upload limit): read it.
    onSuccess: () => signedIn(null),
  });

  useEffect(() => {
    document.title = 'Sign in · Print orders';
  }, []);

  const submit = (e: FormEvent) => {
    e.preventDefault();
    if (!login.isPending) login.mutate();
  };

  return (
    <main className="sign-in">
      <form className="card sign-in-card" onSubmit={submit} noValidate aria-labelledby="sign-in-title">
        <p className="brand">Print orders</p>
        <h1 id="sign-in-title">Sign in</h1>
        <WhereToLook />
        {ended && (
          <p className="notice" role="status" data-testid="ended-reason">
            {END_MESSAGES[ended]}
          </p>
        )}
        <div className="field">
          <label htmlFor="email">Email</label>
          <input id="email" type="email" autoComplete="username" autoFocus value={email} onChange={(e) => setEmail(e.target.value)} aria-describedby={login.isError ? 'sign-in-error' : undefined} />
        </div>
        <div className="field">
          <label htmlFor="password">Password</label>
          <input
            id="password"
            type="password"
            autoComplete="current-password"
            value={password}
            onChange={(e) => setPassword(e.target.value)}
            aria-describedby={login.isError ? 'sign-in-error' : undefined}
          />
        </div>
        {login.isError && (
          <p className="error" role="alert" id="sign-in-error">
            {messageFor(login.error)}
          </p>
        )}
        <button type="submit" className="primary wide" aria-disabled={login.isPending}>
          {login.isPending ? 'Signing in…' : 'Sign in'}
        </button>
        <p>
          <Link href="/forgot-password">Forgot password?</Link>
        </p>
      </form>
    </main>
  );
}
