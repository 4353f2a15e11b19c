import { Type } from '@fastify/type-provider-typebox';
import { boardOf } from '../../actions/board.js';
import { presentProject } from '../../presenters/index.js';
import { actorOf } from '../session.js';
import { Project, QueryOf, errorRef } from '../schemas.js';
import type { App, RouteContext } from './context.js';

const BoardCard = Type.Object({
  ...Project.properties,
  allowedActions: Type.Array(Type.String(), { description: 'lifecycle actions the caller may take now, as on GET /api/projects/:id' }),
});

/** The board (issue 36): one request opens it, however many cards. */
export async function boardRoutes(app: App, { deps, hooks }: RouteContext) {
  app.get(
    '/api/board',
    {
      onRequest: hooks.requireSession,
      schema: {
        tags: ['projects'],
        operationId: 'getBoard',
        summary: "The board's cards: open projects and those delivered in the last 14 days, in sort=priority order, each with its allowed actions",
        description: 'ADMIN and POC (a POC sees their own projects; an ADMIN everyone\'s, narrowed by pocId or customerId); a CLIENT 403.',
        querystring: QueryOf({ pocId: Type.Optional(Type.String()), customerId: Type.Optional(Type.String()) }),
        response: {
          200: Type.Object({
            today: Type.String({ description: 'today in TIMEZONE (YYYY-MM-DD), what overdue is judged against' }),
            deliveredSince: Type.String({ format: 'date-time' }),
            items: Type.Array(BoardCard),
          }),
          400: errorRef,
          401: errorRef,
          403: errorRef,
        },
      },
    },
    async (req) => {
      const actor = actorOf(req);
      const board = await boardOf(deps, actor, { pocId: req.query.pocId || undefined, customerId: req.query.customerId || undefined });
      return {
        today: board.today,
        deliveredSince: board.deliveredSince,
        items: board.projects.map(({ project, allowedActions }) => ({ ...presentProject(project, board.today, actor, deps.config.currency), allowedActions })),
      };
    },
  );
}
