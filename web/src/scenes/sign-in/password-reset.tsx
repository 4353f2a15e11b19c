import { useMutation } from '@tanstack/react-query';
import { type FormEvent, useState } from 'react';
import { Link, useLocation, useSearch } from 'wouter';
import { ApiError, api } from '../../api';
import { signedIn } from '../../session';
import { useTitle } from '../account';

/** "Forgot password?": asks for a link by email. The answer is the same whether or not the email is known. */
export function ForgotPasswordPage() {
  useTitle('Forgot password');
  const [email, setEmail] = useState('');
  const ask = useMutation({ mutationFn: () => api.forgotPassword(email) });
  const submit = (e: FormEvent) => {
    e.preventDefault();
    if (!ask.isPending) ask.mutate();
  };
  const error =
    ask.error instanceof ApiError && ask.error.status === 429
      ? 'Too many requests for this address. Wait a few minutes, then try again.'
      : ask.error instanceof Error
        ? ask.error.message
        : null;
  return (
    <main className="sign-in">
      <form className="card sign-in-card" onSubmit={submit} noValidate aria-labelledby="forgot-title">
        <p className="brand">Print orders</p>
        <h1 id="forgot-title">Forgot password</h1>
        {ask.isSuccess ? (
          <p role="status">If {email} belongs to an account, an email with a link to choose a new password is on its way. The link works once, for a short time.</p>
        ) : (
          <>
            <p className="muted">Enter the email you sign in with; we will send you a link to choose a new password.</p>
            <div className="field">
              <label htmlFor="forgot-email">Email</label>
              <input id="forgot-email" type="email" autoComplete="username" value={email} onChange={(e) => setEmail(e.target.value)} />
            </div>
            {error && (
              <p className="error" role="alert">
                {error}
              </p>
            )}
            <button type="submit" className="primary wide" aria-disabled={ask.isPending}>
              {ask.isPending ? 'Sending…' : 'Send me a link'}
            </button>
          </>
        )}
        <p>
          <Link href="/">Back to sign in</Link>
        </p>
      </form>
    </main>
  );
}

/** /reset-password?token=…: the emailed link. A new password signs this browser in (and every other session out). */
export function ResetPasswordPage() {
  useTitle('Choose a new password');
  const token = new URLSearchParams(useSearch()).get('token') ?? '';
  const [, navigate] = useLocation();
  const [password, setPassword] = useState('');
  const [repeat, setRepeat] = useState('');
  const [mismatch, setMismatch] = useState(false);
  const reset = useMutation({
    mutationFn: () => api.resetPassword(token, password),
    // The session answer carries what the app needs besides the user (the upload limit): read it.
    onSuccess: () => {
      signedIn(null);
      navigate('/', { replace: true });
    },
  });
  const submit = (e: FormEvent) => {
    e.preventDefault();
    setMismatch(password !== repeat);
    if (password === repeat && !reset.isPending) reset.mutate();
  };
  return (
    <main className="sign-in">
      <form className="card sign-in-card" onSubmit={submit} noValidate aria-labelledby="reset-title">
        <p className="brand">Print orders</p>
        <h1 id="reset-title">Choose a new password</h1>
        {!token ? (
          <p className="error" role="alert">
            This page needs the link from the email. <Link href="/forgot-password">Ask for a new link</Link>.
          </p>
        ) : (
          <>
            <div className="field">
              <label htmlFor="reset-password">New password</label>
              <input id="reset-password" type="password" autoComplete="new-password" value={password} onChange={(e) => setPassword(e.target.value)} aria-describedby="reset-hint" />
              <p className="hint" id="reset-hint">
                At least 8 characters. You will be signed out everywhere else.
              </p>
            </div>
            <div className="field">
              <label htmlFor="reset-repeat">New password again</label>
              <input id="reset-repeat" type="password" autoComplete="new-password" value={repeat} onChange={(e) => setRepeat(e.target.value)} />
            </div>
            {mismatch && (
              <p className="error" role="alert">
                The two passwords differ.
              </p>
            )}
            {reset.error instanceof Error && (
              <p className="error" role="alert">
                {reset.error.message}
                {reset.error instanceof ApiError && /link/.test(reset.error.message) && (
                  <>
                    {' '}
                    <Link href="/forgot-password">Ask for a new link</Link>.
                  </>
                )}
              </p>
            )}
            <button type="submit" className="primary wide" aria-disabled={reset.isPending}>
              {reset.isPending ? 'Saving…' : 'Set password and sign in'}
            </button>
          </>
        )}
      </form>
    </main>
  );
}
