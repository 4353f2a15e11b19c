import { useQueryClient } from '@tanstack/react-query';
import { createContext, useContext, useEffect, useRef, useState } from 'react';
import { ApiError, api } from './api';
import { endSession, isEndReason } from './session';

/** connecting: the first connection; live; reconnecting: the connection was lost and is being retried. */
export type LiveState = 'connecting' | 'live' | 'reconnecting';

export interface Live {
  state: LiveState;
  /** Try again now: reconnect the stream and refetch what failed meanwhile. */
  retry(): void;
}
export const LiveContext = createContext<Live>({ state: 'connecting', retry: () => {} });
export const useLive = () => useContext(LiveContext);

const STREAM = '/api/realtime?channels=projects,dashboard';
const MAX_DELAY_MS = 10_000;

/**
 * One EventSource on /api/realtime while signed in. `project-updated` refreshes the project lists,
 * that project and the activity; `stats-updated` the dashboard figures. Events carry ids, and on
 * reconnection the service replays what was missed (the browser sends Last-Event-ID), so nothing
 * is refetched then, except on `reset`, which asks for everything. `session-ended` signs this
 * window (and every other one of the browser) out with its reason.
 *
 * The browser retries a dropped connection by itself, but gives up on an answer that is not a
 * stream (a 503 while the service restarts, a 401): then the session is checked and the stream
 * reopened with `?lastEventId=`, after 1, 2, 4… up to 10 s.
 */
export function useRealtime(enabled: boolean): Live {
  const queryClient = useQueryClient();
  const [state, setState] = useState<LiveState>('connecting');
  const retryRef = useRef<() => void>(() => {});

  useEffect(() => {
    if (!enabled) return;
    let source: EventSource | null = null;
    let lastEventId: string | null = null;
    let timer: ReturnType<typeof setTimeout> | undefined;
    let attempt = 0;
    let stopped = false;
    let wasLive = false;

    const refetchFailed = () => queryClient.refetchQueries({ predicate: (q) => q.state.status === 'error' && q.queryKey[0] !== 'session' });
    const track = (e: MessageEvent) => {
      if (e.lastEventId) lastEventId = e.lastEventId;
    };

    const connect = () => {
      clearTimeout(timer);
      source?.close();
      if (stopped) return;
      const resumeFrom = lastEventId;
      const s = new EventSource(resumeFrom ? `${STREAM}&lastEventId=${encodeURIComponent(resumeFrom)}` : STREAM);
      source = s;
      s.addEventListener('open', () => {
        attempt = 0;
        setState('live');
        // What failed while the service could not be reached is asked again; the rest comes as replayed events.
        // Reopened by hand without an event id to resume from (none had arrived), nothing can be replayed: refetch it all.
        if (wasLive && !resumeFrom) void queryClient.invalidateQueries({ predicate: (q) => q.queryKey[0] !== 'session' });
        else if (wasLive) void refetchFailed();
        wasLive = true;
      });
      s.addEventListener('project-updated', (e) => {
        track(e);
        const id = projectIdOf(e.data);
        void queryClient.invalidateQueries({ queryKey: ['projects'] });
        if (id) void queryClient.invalidateQueries({ queryKey: ['project', id] });
        void queryClient.invalidateQueries({ queryKey: ['activity'] });
      });
      s.addEventListener('stats-updated', (e) => {
        track(e);
        void queryClient.invalidateQueries({ queryKey: ['stats'] });
      });
      s.addEventListener('reset', (e) => {
        track(e);
        void queryClient.invalidateQueries({ predicate: (q) => q.queryKey[0] !== 'session' });
      });
      s.addEventListener('session-ended', (e) => {
        stopped = true;
        s.close();
        const reason = reasonOf(e.data);
        endSession(isEndReason(reason) ? reason : 'ended');
      });
      s.addEventListener('error', () => {
        if (stopped) return;
        if (wasLive) setState('reconnecting');
        if (s.readyState === EventSource.CLOSED) void giveUpThenRetry();
      });
    };

    const giveUpThenRetry = async () => {
      try {
        await api.session();
      } catch (err) {
        if (err instanceof ApiError && err.status === 401) {
          stopped = true;
          endSession('ended');
          return;
        }
      }
      if (stopped) return;
      attempt += 1;
      timer = setTimeout(connect, Math.min(MAX_DELAY_MS, 1000 * 2 ** (attempt - 1)));
    };

    retryRef.current = () => {
      void refetchFailed();
      if (source?.readyState !== EventSource.OPEN) {
        attempt = 0;
        connect();
      }
    };

    setState('connecting');
    connect();
    return () => {
      stopped = true;
      clearTimeout(timer);
      source?.close();
    };
  }, [enabled, queryClient]);

  return { state, retry: () => retryRef.current() };
}

function parse(data: unknown): unknown {
  try {
    return JSON.parse(String(data));
  } catch {
    return null;
  }
}
function projectIdOf(data: unknown): string | null {
  const id = (parse(data) as { payload?: { id?: unknown } } | null)?.payload?.id;
  return typeof id === 'string' ? id : null;
}
function reasonOf(data: unknown): unknown {
  return (parse(data) as { reason?: unknown } | null)?.reason;
}
