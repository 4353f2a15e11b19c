import { errors } from '../errors.js';

/**
 * PostgreSQL's text cannot hold U+0000 (SQLite's can), so such input would fail in the database,
 * after earlier steps had run, as a 500. It is refused first, on both databases, naming the field.
 */
export function nulField(value: unknown, path: string[] = []): string | null {
  if (typeof value === 'string') return value.includes('\u0000') ? path.join('.') || 'request' : null;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const found = nulField(value[i], [...path, String(i)]);
      if (found !== null) return found;
    }
    return null;
  }
  if (value && typeof value === 'object') {
    for (const [key, v] of Object.entries(value)) {
      // A key is text too (stored with JSON details, echoed in messages).
      if (key.includes('\u0000')) return [...path, key.replaceAll('\u0000', '\\u0000')].join('.');
      const found = nulField(v, [...path, key]);
      if (found !== null) return found;
    }
  }
  return null;
}

/** The 400 for the first string holding a NUL in the request's params, query and JSON body; null when there is none. */
export function nulRefusal(req: { params?: unknown; query?: unknown; body?: unknown }) {
  const where = nulField(req.params, ['params']) ?? nulField(req.query, ['query']) ?? nulField(req.body);
  return where === null ? null : errors.invalidField(where, 'must not contain NUL characters');
}
