import { type Deps, todayOf } from '../deps.js';
import { byPriority, deliveredSince } from '../domain/board.js';
import type { Actor } from '../domain/model.js';
import { availableActions } from '../domain/project-lifecycle.js';
import { errors } from '../errors.js';

/**
 * GET /api/board (issue 36): the board's cards in one answer, for ADMINs and POCs (a POC's own
 * projects by visibility; an ADMIN's everyone's, narrowed by POC or customer), in sort=priority
 * order, each with the lifecycle actions the caller may take, so the browser never re-derives them.
 */
export async function boardOf(deps: Pick<Deps, 'store' | 'config' | 'clock'>, actor: Actor, filter: { pocId?: string; customerId?: string }) {
  if (actor.role !== 'ADMIN' && actor.role !== 'POC') throw errors.forbidden();
  const since = deliveredSince(deps.clock.now().toISOString());
  const projects = await deps.store.projects.board(actor, { ...filter, deliveredSince: since });
  projects.sort(byPriority);
  return { today: todayOf(deps), deliveredSince: since, projects: projects.map((p) => ({ project: p, allowedActions: availableActions(actor, p) })) };
}
