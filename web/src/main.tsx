import { MutationCache, QueryCache, QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { ApiError } from './api';
import { App } from './App';
import { SESSION_KEY } from './session';
import './styles.css';

/** A 401 from any request means the session has ended (signed out elsewhere, expired, deactivated): show the sign-in page. */
const onError = (err: unknown) => {
  if (err instanceof ApiError && err.status === 401 && queryClient.getQueryData(SESSION_KEY)) {
    queryClient.setQueryData(SESSION_KEY, null);
  }
};

const queryClient = new QueryClient({
  queryCache: new QueryCache({ onError }),
  mutationCache: new MutationCache({ onError }),
  defaultOptions: {
    queries: {
      staleTime: 30_000,
      // A refusal (4xx) will not change by asking again; a network failure might.
      retry: (count, err) => !(err instanceof ApiError && err.status >= 400 && err.status < 500) && count < 2,
    },
  },
});

createRoot(document.getElementById('root')!).render(
  <StrictMode>
    <QueryClientProvider client={queryClient}>
      <App />
    </QueryClientProvider>
  </StrictMode>,
);
