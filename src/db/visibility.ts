import type { Expression, ExpressionBuilder, SqlBool } from 'kysely';
import { INTERNAL_ROLES, type ProjectScope, type Viewer, customerSeenBy, seesEverything, seesInternal } from '../domain/visibility.js';
import type { Tables } from './schema.js';

/*
 * The SQL twin of domain/visibility.ts: the same rule as conditions that queries filter by, so a
 * viewer's rows are chosen by the database, never by filtering rows after loading them. Change it
 * with the rule; test/visibility.test.ts checks on both databases that the two agree.
 */

/** Whose rows a query returns: what one viewer may see, or every row (the service's own reads: jobs, the CLI, tests). */
export type Scope = Viewer | { all: true };

/** The viewer whose rows a query must choose, or null when the scope sees every row. */
const limitedTo = (scope: Scope): Viewer | null => ('all' in scope || seesEverything(scope) ? null : scope);

/** maySeeProject as a condition on the query's `projects`: the projects the scope may see (with a LEFT JOIN, a missing project only when it sees everything). */
export const visibleTo =
  (scope: Scope) =>
  (eb: ExpressionBuilder<Tables, 'projects'>): Expression<SqlBool> => {
    const viewer = limitedTo(scope);
    if (!viewer) return eb.lit(true);
    const customerId = customerSeenBy(viewer);
    return customerId === null
      ? eb('projects.poc_id', '=', viewer.id)
      : eb.or([eb('projects.poc_id', '=', viewer.id), eb('projects.customer_id', '=', customerId)]);
  };

/** Whether the scope misses internal notes (seesInternal): then rows marked internal are left out. */
const missesInternal = (scope: Scope): boolean => !('all' in scope) && !seesInternal(scope);

/** seesInternal as a condition on the query's `comments`: internal ones only for a scope that sees them. */
export const internalShownTo =
  (scope: Scope) =>
  (eb: ExpressionBuilder<Tables, 'comments'>): Expression<SqlBool> =>
    missesInternal(scope) ? eb('comments.internal', '=', false) : eb.lit(true);

/** The same on the query's `activity_log`: the entries of internal notes only for a scope that sees them. */
export const internalEntriesShownTo =
  (scope: Scope) =>
  (eb: ExpressionBuilder<Tables, 'activity_log'>): Expression<SqlBool> =>
    missesInternal(scope) ? eb('activity_log.internal', '=', false) : eb.lit(true);

/** maySeeEntry as a condition on the query's `activity_log`: the entries the scope may see. */
export const visibleEntries =
  (scope: Scope) =>
  (eb: ExpressionBuilder<Tables, 'activity_log'>): Expression<SqlBool> =>
    limitedTo(scope)
      ? eb.and([
          eb('activity_log.entity_type', '=', 'project'),
          eb('activity_log.entity_id', 'in', eb.selectFrom('projects').select('projects.id').where(visibleTo(scope))),
          internalEntriesShownTo(scope)(eb),
        ])
      : eb.lit(true);

/**
 * The rule from the project's side, as a condition on the query's `users`: the users who may see
 * this project. One shape whatever the project (a null customer matches no one: `= null` is never
 * true), so statements compiled once with it stay valid.
 */
export const viewersOf =
  (project: ProjectScope) =>
  (eb: ExpressionBuilder<Tables, 'users'>): Expression<SqlBool> =>
    eb.or([eb('users.role', '=', 'ADMIN'), eb('users.id', '=', project.pocId), customersClients(project.customerId ?? null)(eb)]);

/** The CLIENTs of a customer (none for null), as a condition on `users`: those of the project's customer see it. */
export const customersClients =
  (customerId: string | null) =>
  (eb: ExpressionBuilder<Tables, 'users'>): Expression<SqlBool> =>
    eb.and([eb('users.role', '=', 'CLIENT'), eb('users.customer_id', '=', customerId)]);

/** seesInternal as a condition on the query's `users`: the users who see internal notes (on the projects they may see). */
export const seeingInternal = (eb: ExpressionBuilder<Tables, 'users'>): Expression<SqlBool> => eb('users.role', 'in', [...INTERNAL_ROLES]);

/** The columns the rule reads of a project, for a query whose rows are judged in code (the realtime hub's log reads). */
export const PROJECT_SCOPE_COLUMNS = ['projects.poc_id', 'projects.customer_id'] as const;

/** Those columns as the rule reads them; a project missing from a LEFT JOIN is null. */
export const toProjectScope = (r: { poc_id: string | null; customer_id: string | null }): ProjectScope | null =>
  r.poc_id === null ? null : { pocId: r.poc_id, customerId: r.customer_id };
