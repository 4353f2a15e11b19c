import { createContext, useContext } from 'react';
import { ApiError, type SessionUser, api } from './api';

export const SESSION_KEY = ['session'] as const;

/** The signed-in user, or null when there is no session (401). */
export async function fetchSession(): Promise<SessionUser | null> {
  try {
    return (await api.session()).user;
  } catch (err) {
    if (err instanceof ApiError && err.status === 401) return null;
    throw err;
  }
}

export const SessionContext = createContext<SessionUser | null>(null);

/** The signed-in user; only used inside the signed-in part of the app. */
export function useUser(): SessionUser {
  const user = useContext(SessionContext);
  if (!user) throw new Error('useUser outside the signed-in app');
  return user;
}
