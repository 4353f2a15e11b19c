import { type Expression, type SqlBool, sql } from 'kysely';
import type { Dialect } from './index.js';

/**
 * `column in (ids)` for a page's or the board's projects. On PostgreSQL one array parameter
 * (`= any($1::text[])`): an IN list of the board's 2,000 ids was 2,000 parameters for the driver to
 * send and the server to parse and plan, ~20 ms a statement on a loaded machine whatever it found.
 * On SQLite the list as it was (binding is cheap there); callers keep their chunks for its limit.
 */
export const amongIds = (column: string, ids: readonly string[], dialect: Dialect): Expression<SqlBool> =>
  dialect === 'postgres' ? sql<SqlBool>`${sql.ref(column)} = any(${[...ids]}::text[])` : sql<SqlBool>`${sql.ref(column)} in (${sql.join([...ids])})`;
