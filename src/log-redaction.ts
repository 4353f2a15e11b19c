/**
 * What a request line may say about its address. Some addresses are credentials: the emailed
 * password-reset link (`/reset-password?token=…`, live for 30 minutes), a proof link (the path
 * segment after `/proofs/` or `/api/proof-links/` is its token) and any `token=` in a query
 * (API clients and links pass tokens that way). Logs are read by more people, and kept longer,
 * than any of these may be: the secret part is replaced before the line is written.
 */
export const REDACTED = '[redacted]';

/** Query parameters whose value is a secret, whatever the path. */
const SECRET_PARAM = /^(?:[a-z0-9_-]*token|secret|password|signature|code)$/i;
/** Paths whose whole query string is a secret (the reset link carries nothing else). */
const SECRET_QUERY_PATHS = new Set(['/reset-password', '/api/auth/reset-password']);
/** The segments after which a path segment is itself a token (compared decoded, lower case). */
const TOKEN_AFTER: readonly (readonly string[])[] = [['proofs'], ['api', 'proof-links']];

/** A segment as the router reads it: percent-escapes decoded (`%70roof-links` is `proof-links`). */
function decodedSegment(segment: string): string {
  try {
    return decodeURIComponent(segment).toLowerCase();
  } catch {
    return segment.toLowerCase();
  }
}

/** The path with every token segment replaced, however its prefix was written (escaped, any case). */
function redactTokenSegments(rawPath: string): string {
  const segments = rawPath.split('/');
  const decoded = segments.map(decodedSegment);
  for (let i = 0; i < segments.length; i++) {
    const after = TOKEN_AFTER.some((prefix) => i >= prefix.length && prefix.every((name, k) => decoded[i - prefix.length + k] === name));
    if (after && segments[i] !== '') segments[i] = REDACTED;
  }
  return segments.join('/');
}

export function redactUrl(url: string): string {
  const q = url.indexOf('?');
  const rawPath = q === -1 ? url : url.slice(0, q);
  const query = q === -1 ? null : url.slice(q + 1);
  const path = redactTokenSegments(rawPath);
  if (query === null) return path;
  let decodedPath = rawPath;
  try {
    decodedPath = decodeURIComponent(rawPath);
  } catch {
    // a malformed escape: compare as sent
  }
  if (SECRET_QUERY_PATHS.has(decodedPath.replace(/\/+$/, '').toLowerCase())) return `${path}?${REDACTED}`;
  const params = query.split('&').map((pair) => {
    const eq = pair.indexOf('=');
    const rawName = eq === -1 ? pair : pair.slice(0, eq);
    let name = rawName;
    try {
      name = decodeURIComponent(rawName.replace(/\+/g, ' '));
    } catch {
      // keep as sent
    }
    return eq !== -1 && SECRET_PARAM.test(name.trim()) ? `${rawName}=${REDACTED}` : pair;
  });
  return `${path}?${params.join('&')}`;
}

/** pino's serializer for a request (Fastify's own fields, the address redacted). */
export function serializeRequest(req: {
  method?: string;
  url?: string;
  host?: string;
  ip?: string;
  headers?: Record<string, unknown>;
  socket?: { remotePort?: number } | null;
}): Record<string, unknown> {
  return {
    method: req.method,
    url: typeof req.url === 'string' ? redactUrl(req.url) : req.url,
    version: req.headers?.['accept-version'],
    host: req.host,
    remoteAddress: req.ip,
    remotePort: req.socket ? req.socket.remotePort : undefined,
  };
}
