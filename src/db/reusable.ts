import type { CompiledQuery, Compilable } from 'kysely';
import type { DB, Dialect } from './index.js';

type Value = string | number | null;

/**
 * The PostgreSQL texts of the reusable queries, each with a statement name: the pool's connections
 * prepare them once and then only bind values (db/index.ts), so the server parses and plans each once
 * per connection. A fixed set, the few queries of the hot paths: one-off texts stay unnamed.
 */
const PREPARED = new Map<string, string>();

/** The statement name of a reusable query's text (PostgreSQL), or undefined for any other text. */
export const preparedNameOf = (text: string): string | undefined => PREPARED.get(text);

/** Stands in for argument i while the query is compiled the first time; never a value a caller passes. */
const marker = (i: number) => `\u0000reusable-argument-${i}\u0000`;

/**
 * A query of fixed shape, built and compiled by Kysely once per dialect and then reused with each
 * call's values. On the upload's path, building and compiling a query took longer than SQLite took
 * to run it (Kysely was 11–14 % of the service's time under small uploads). The arguments must
 * reach the query only as bound parameters (compared, inserted), never shape it: the first
 * compilation checks that each one became parameters and nothing else.
 */
export function reusable<A extends Value[], R>(build: (db: DB, ...args: A) => Compilable<R>): (db: DB, dialect: Dialect, ...args: A) => CompiledQuery<R> {
  const compiled = new Map<Dialect, { query: CompiledQuery<R>; slots: number[][] }>();
  return (db, dialect, ...args) => {
    let known = compiled.get(dialect);
    if (!known) {
      const markers = args.map((_, i) => marker(i));
      const query = build(db, ...(markers as A)).compile();
      const slots = markers.map((m) => query.parameters.flatMap((p, at) => (p === m ? [at] : [])));
      const misplaced = query.parameters.some((p) => typeof p === 'string' && p.includes('\u0000reusable-argument-') && !markers.includes(p));
      if (misplaced || slots.some((s) => s.length === 0)) throw new Error(`a reusable query must take each argument as a parameter: ${query.sql}`);
      compiled.set(dialect, (known = { query, slots }));
      if (dialect === 'postgres' && !PREPARED.has(query.sql)) PREPARED.set(query.sql, `reusable_${PREPARED.size + 1}`);
    }
    const parameters = [...known.query.parameters];
    known.slots.forEach((at, i) => at.forEach((slot) => (parameters[slot] = args[i])));
    return { ...known.query, parameters };
  };
}
