import { useQueryClient } from '@tanstack/react-query';
import { useEffect, useState } from 'react';

export type LiveState = 'connecting' | 'live' | 'offline';

/**
 * One EventSource on /api/realtime while signed in. `project-updated` refreshes the project lists,
 * that project and the activity; `stats-updated` the dashboard figures. Each (re)connection
 * refreshes everything on screen, since events sent while disconnected are not replayed.
 */
export function useRealtime(enabled: boolean): LiveState {
  const queryClient = useQueryClient();
  const [state, setState] = useState<LiveState>('connecting');

  useEffect(() => {
    if (!enabled) return;
    const source = new EventSource('/api/realtime?channels=projects,dashboard');
    setState('connecting');
    source.addEventListener('open', () => {
      setState('live');
      void queryClient.invalidateQueries({ predicate: (q) => q.queryKey[0] !== 'session' });
    });
    source.addEventListener('project-updated', (e) => {
      const id = projectIdOf(e.data);
      void queryClient.invalidateQueries({ queryKey: ['projects'] });
      if (id) void queryClient.invalidateQueries({ queryKey: ['project', id] });
      void queryClient.invalidateQueries({ queryKey: ['activity'] });
    });
    source.addEventListener('stats-updated', () => {
      void queryClient.invalidateQueries({ queryKey: ['stats'] });
    });
    source.addEventListener('error', () => {
      // The browser retries by itself; a closed stream means it will not (signed out, or refused).
      setState(source.readyState === EventSource.CLOSED ? 'offline' : 'connecting');
      if (source.readyState === EventSource.CLOSED) void queryClient.invalidateQueries({ queryKey: ['session'] });
    });
    return () => source.close();
  }, [enabled, queryClient]);

  return state;
}

function projectIdOf(data: unknown): string | null {
  try {
    const parsed = JSON.parse(String(data)) as { payload?: { id?: unknown } };
    return typeof parsed.payload?.id === 'string' ? parsed.payload.id : null;
  } catch {
    return null;
  }
}
