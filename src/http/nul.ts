import { AppError, errors } from '../errors.js';

/**
 * Text the databases would refuse, refused first, the same on both and naming the field:
 * PostgreSQL's text cannot hold U+0000 (SQLite's can), and its jsonb refuses a lone UTF-16
 * surrogate (JSON's "\ud800" escape; the text columns would silently keep U+FFFD instead, SQLite
 * the broken code unit). Either would otherwise fail in the database, after earlier steps had run,
 * as a 500, or be stored differently per database.
 *
 * Every walk here is iterative: a body nested thousands deep must not exhaust the stack.
 */

/** Deeper than any of our bodies needs (the deepest is three); past it a body is refused. */
export const MAX_JSON_DEPTH = 32;
/** A key named in a message is cut to this many characters (a key may be a megabyte long). */
const MAX_KEY_SHOWN = 100;

export type TextProblem = 'nul' | 'surrogate';

/** A code unit of a surrogate pair on its own: with the u flag, a paired one is part of its code point and never matches. */
const LONE_SURROGATE = /\p{Surrogate}/u;

const problemOf = (s: string): TextProblem | null => (s.includes('\u0000') ? 'nul' : LONE_SURROGATE.test(s) ? 'surrogate' : null);

/** A key as it may appear in a message: NULs and lone surrogates escaped, cut to a readable length. */
function shownKey(key: string): string {
  const escaped = key.replaceAll('\u0000', '\\u0000').replace(/\p{Surrogate}/gu, (c) => `\\u${c.charCodeAt(0).toString(16)}`);
  return escaped.length > MAX_KEY_SHOWN ? `${escaped.slice(0, MAX_KEY_SHOWN)}…` : escaped;
}

/** Where a value sits: its key or index and its parent's place (built only when a path is named, so a deep body costs no copies). */
type Place = { key: string; parent: Place | null } | null;

function pathOf(place: Place): string[] {
  const path: string[] = [];
  for (let p = place; p; p = p.parent) path.push(p.key);
  return path.reverse();
}

/**
 * The first string (or object key) holding a NUL or a lone surrogate, by its path ("approval.note",
 * "tags.1"; "request" for a bare string), depth first in document order; null when there is none.
 */
export function unfitText(value: unknown, prefix: string[] = []): { path: string; problem: TextProblem } | null {
  const found = (place: Place, problem: TextProblem) => ({ path: [...prefix, ...pathOf(place)].join('.') || 'request', problem });
  // Children are pushed in reverse so that they come out in order.
  const stack: [unknown, Place][] = [[value, null]];
  while (stack.length) {
    const [v, place] = stack.pop()!;
    if (typeof v === 'string') {
      const problem = problemOf(v);
      if (problem) return found(place, problem);
    } else if (Array.isArray(v)) {
      for (let i = v.length - 1; i >= 0; i--) stack.push([v[i], { key: String(i), parent: place }]);
    } else if (v && typeof v === 'object') {
      const keys = Object.keys(v);
      // A key is text too (stored with JSON details, echoed in messages): checked before the values.
      for (const key of keys) {
        const problem = problemOf(key);
        if (problem) return found({ key: shownKey(key), parent: place }, problem);
      }
      for (let i = keys.length - 1; i >= 0; i--) stack.push([(v as Record<string, unknown>)[keys[i]!], { key: shownKey(keys[i]!), parent: place }]);
    }
  }
  return null;
}

const PROBLEM_DETAIL: Record<TextProblem, string> = {
  nul: 'must not contain NUL characters',
  surrogate: 'must not contain unpaired surrogates (invalid Unicode)',
};

/** The 400 for the first unfit string in the request's params, query and body; null when there is none. */
export function nulRefusal(req: { params?: unknown; query?: unknown; body?: unknown }): AppError | null {
  const found = unfitText(req.params, ['params']) ?? unfitText(req.query, ['query']) ?? unfitText(req.body);
  return found === null ? null : errors.invalidField(found.path, PROBLEM_DETAIL[found.problem]);
}

/**
 * What a parsed JSON body may not be, whatever the route: nested deeper than MAX_JSON_DEPTH, or
 * carrying `__proto__` or `constructor.prototype` (prototype poisoning, refused as Fastify's own
 * parser does, but as the caller's 400). Null when it is fine.
 */
export function jsonStructureRefusal(value: unknown): AppError | null {
  const stack: [unknown, number][] = [[value, 1]];
  while (stack.length) {
    const [v, depth] = stack.pop()!;
    if (!v || typeof v !== 'object') continue;
    if (depth > MAX_JSON_DEPTH) return errors.bodyTooDeep();
    if (!Array.isArray(v)) {
      const hasOwn = (o: object, key: string) => Object.prototype.hasOwnProperty.call(o, key);
      const ctor = (v as Record<string, unknown>).constructor;
      if (hasOwn(v, '__proto__') || (hasOwn(v, 'constructor') && ctor && typeof ctor === 'object' && hasOwn(ctor, 'prototype'))) return errors.bodyPrototypeKey();
    }
    for (const child of Array.isArray(v) ? v : Object.values(v)) if (child && typeof child === 'object') stack.push([child, depth + 1]);
  }
  return null;
}
