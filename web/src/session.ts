import { createContext, useContext, useSyncExternalStore } from 'react';
import { ApiError, type SessionUser, api } from './api';
import { queryClient, setUnauthorizedHandler } from './query';

export const SESSION_KEY = ['session'] as const;

/** The signed-in user and what the service told about itself, or null when there is no session (401). */
export interface SessionInfo {
  user: SessionUser;
  maxUploadBytes: number;
}

export async function fetchSession(): Promise<SessionInfo | null> {
  try {
    const { user, maxUploadBytes } = await api.session();
    return { user, maxUploadBytes };
  } catch (err) {
    if (err instanceof ApiError && err.status === 401) return null;
    throw err;
  }
}

export const SessionContext = createContext<SessionInfo | null>(null);

/** The signed-in user; only used inside the signed-in part of the app. */
export function useUser(): SessionUser {
  return useSession().user;
}
export function useSession(): SessionInfo {
  const session = useContext(SessionContext);
  if (!session) throw new Error('useSession outside the signed-in app');
  return session;
}

/** Why a session ended: the realtime stream's `session-ended` reasons, and `ended` for a 401 on any request. */
export type EndReason = 'signed-out' | 'deactivated' | 'password-changed' | 'expired' | 'ended';
export const END_MESSAGES: Record<EndReason, string> = {
  'signed-out': 'You were signed out.',
  deactivated: 'Your account was deactivated by an administrator.',
  'password-changed': 'Your password was changed. Sign in with the new one.',
  expired: 'Your session expired. Sign in again.',
  ended: 'Your session has ended. Sign in again.',
};
export const isEndReason = (v: unknown): v is EndReason => typeof v === 'string' && v in END_MESSAGES;

let endedReason: EndReason | null = null;
const listeners = new Set<() => void>();
const setEnded = (reason: EndReason | null) => {
  endedReason = reason;
  for (const l of listeners) l();
};
/** Why this window was signed out, for the sign-in page (null after a sign-in, or on a fresh load). */
export const useEndedReason = () =>
  useSyncExternalStore(
    (l) => {
      listeners.add(l);
      return () => listeners.delete(l);
    },
    () => endedReason,
  );

type Message = { type: 'ended'; reason: EndReason } | { type: 'signed-in' };
// Every window of this browser hears when one of them learns that the session ended, or signs in again.
const channel = typeof BroadcastChannel === 'undefined' ? null : new BroadcastChannel('print-orders-session');

/**
 * The session is over: forget everything it showed and show the sign-in page with the reason. A
 * specific reason (from the stream) is never replaced by the generic one of a later 401.
 */
export function endSession(reason: EndReason, { tell = true } = {}): void {
  const signedIn = Boolean(queryClient.getQueryData(SESSION_KEY));
  if (!signedIn && endedReason && reason === 'ended') return;
  setEnded(reason);
  if (signedIn) {
    void queryClient.cancelQueries();
    queryClient.removeQueries({ predicate: (q) => q.queryKey[0] !== SESSION_KEY[0] });
    queryClient.setQueryData(SESSION_KEY, null);
  }
  if (tell) channel?.postMessage({ type: 'ended', reason } satisfies Message);
}

/** After a sign-in: this window shows the app, and the others that showed the sign-in page follow. */
export function signedIn(info: SessionInfo | null): void {
  setEnded(null);
  if (info) queryClient.setQueryData(SESSION_KEY, info);
  else void queryClient.invalidateQueries({ queryKey: SESSION_KEY });
  channel?.postMessage({ type: 'signed-in' } satisfies Message);
}

channel?.addEventListener('message', (e: MessageEvent<Message>) => {
  if (e.data?.type === 'ended' && isEndReason(e.data.reason)) endSession(e.data.reason, { tell: false });
  else if (e.data?.type === 'signed-in' && !queryClient.getQueryData(SESSION_KEY)) {
    setEnded(null);
    void queryClient.invalidateQueries({ queryKey: SESSION_KEY });
  }
});

setUnauthorizedHandler((err) => {
  if (err instanceof ApiError && err.status === 401 && queryClient.getQueryData(SESSION_KEY)) endSession('ended');
});
