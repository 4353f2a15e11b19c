import { MutationCache, QueryCache, QueryClient } from '@tanstack/react-query';
import { ApiError } from './api';

/** The one data cache of the app. A 401 from any request means the session has ended: every window shows the sign-in page. */
export const queryClient: QueryClient = new QueryClient({
  queryCache: new QueryCache({ onError: (err) => onUnauthorized(err) }),
  mutationCache: new MutationCache({ onError: (err) => onUnauthorized(err) }),
  defaultOptions: {
    queries: {
      staleTime: 30_000,
      // A refusal (4xx) will not change by asking again; a network failure might.
      retry: (count, err) => !(err instanceof ApiError && err.status >= 400 && err.status < 500) && count < 2,
    },
  },
});

let unauthorizedHandler: (err: unknown) => void = () => {};
const onUnauthorized = (err: unknown) => unauthorizedHandler(err);
/** session.ts installs what a 401 does (kept apart so the cache does not import the session module). */
export const setUnauthorizedHandler = (handler: (err: unknown) => void) => {
  unauthorizedHandler = handler;
};

/** The service could not be reached (network down, service restarting): the request may succeed later. */
export const isOutage = (err: unknown) => err instanceof ApiError && (err.status === 0 || err.status === 502 || err.status === 503 || err.status === 504);
