/**
 * Whether a failure means a dependency (the database, Redis) could not be reached or did not answer
 * in time, rather than a bug: such a request is worth retrying, so it answers 503 with Retry-After
 * (issue 39 item 2; http/error-handler.ts). Decided from the error alone, its `cause` chain and an
 * AggregateError's parts, because drivers wrap one another (Kysely passes pg's errors through; the
 * Redis broker wraps ioredis's in "Redis is unavailable: …" with the original as cause).
 */

/** How long a client should wait before retrying, in seconds (the Retry-After header of a 503). */
export const OUTAGE_RETRY_AFTER_SECONDS = 5;

/** The answer's message: `503 {"error": "Service temporarily unavailable"}`. */
export const OUTAGE_MESSAGE = 'Service temporarily unavailable';

/** Socket-level codes of Node (and so of pg and ioredis): nobody answered, or the link broke. */
const NETWORK_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EHOSTDOWN',
  'ENETDOWN',
  'EAI_AGAIN',
  'ECONNABORTED',
]);

/**
 * PostgreSQL's SQLSTATEs for a server going away or not taking connections: 57P01 admin_shutdown,
 * 57P02 crash_shutdown, 57P03 cannot_connect_now (starting up, recovery), 53300 too_many_connections;
 * and class 08 (connection exceptions), matched by prefix. 57014 (a statement_timeout) is left out:
 * it is a slow query of ours, not an unavailable server.
 */
const PG_STATES = new Set(['57P01', '57P02', '57P03', '53300']);

/**
 * Messages of drivers that carry no code: pg's and pg-pool's lost and timed-out connections, and
 * ioredis's closed connection, refused command (no offline queue) and command timeout.
 */
const MESSAGES = [
  /^Connection terminated\b/, // pg: "Connection terminated", "… unexpectedly", "… due to connection timeout"
  /^timeout exceeded when trying to connect$/, // pg-pool: connectionTimeoutMillis while the pool is full
  /^Query read timeout$/, // pg: query_timeout on a silent link
  /^Client has encountered a connection error and is not queryable$/,
  /^Connection is closed\.$/, // ioredis
  /^Stream isn't writeable and enableOfflineQueue options is false$/, // ioredis without offline queue
  /^Command timed out$/, // ioredis commandTimeout
];

/** Error names that mean the same whatever the message. */
const NAMES = new Set(['MaxRetriesPerRequestError']);

interface ErrorLike {
  code?: unknown;
  name?: unknown;
  message?: unknown;
  cause?: unknown;
  errors?: unknown;
}

function isOwnOutage(err: ErrorLike): boolean {
  const code = typeof err.code === 'string' ? err.code : '';
  if (NETWORK_CODES.has(code)) return true;
  if (PG_STATES.has(code) || /^08[0-9A-Z]{3}$/.test(code)) return true;
  // better-sqlite3 throws SQLITE_BUSY (or an extended SQLITE_BUSY_*) once busy_timeout has passed.
  if (code === 'SQLITE_BUSY' || code.startsWith('SQLITE_BUSY_')) return true;
  if (typeof err.name === 'string' && NAMES.has(err.name)) return true;
  const message = typeof err.message === 'string' ? err.message : '';
  return MESSAGES.some((m) => m.test(message));
}

/** True when `err` (or what it wraps) says a dependency is unreachable or timed out. */
export function isDependencyUnavailable(err: unknown): boolean {
  const seen = new Set<unknown>();
  const pending: unknown[] = [err];
  // A bounded walk: cause chains can loop, and an AggregateError holds one error per address tried.
  while (pending.length && seen.size < 32) {
    const next = pending.shift();
    if (next === null || typeof next !== 'object' || seen.has(next)) continue;
    seen.add(next);
    const e = next as ErrorLike;
    if (isOwnOutage(e)) return true;
    if (e.cause !== undefined) pending.push(e.cause);
    if (Array.isArray(e.errors)) pending.push(...(e.errors as unknown[]));
  }
  return false;
}
