import { Type } from '@fastify/type-provider-typebox';
import { dashboardStats } from '../../actions/dashboard.js';
import { ACTIVITY_ACTIONS, isActivityAction } from '../../domain/activity.js';
import { presentActivity } from '../../presenters/index.js';
import { actorOf } from '../session.js';
import { ActivityEntry, Limit, errorRef, pageOf } from '../schemas.js';
import type { App, RouteContext } from './context.js';

/** The activity log and the dashboard figures (interface.md). */
export async function activityRoutes(app: App, { deps, hooks }: RouteContext) {
  app.get(
    '/api/activity',
    {
      onRequest: hooks.requireSession,
      schema: {
        tags: ['activity'],
        summary: 'Activity entries, newest first (non-admins: about their own projects)',
        querystring: Type.Object({
          entityType: Type.Optional(Type.String()),
          entityId: Type.Optional(Type.String()),
          // Not an enum: an action the service does not write matches no entry (200, no items), as it always has.
          action: Type.Optional(Type.String({ description: `One of ${ACTIVITY_ACTIONS.join(', ')}; any other value matches nothing` })),
          userId: Type.Optional(Type.String()),
          limit: Limit,
          cursor: Type.Optional(Type.String()),
        }),
        response: { 200: pageOf(ActivityEntry), 400: errorRef, 401: errorRef },
      },
    },
    async (req) => {
      const { action, ...filter } = req.query;
      const known = action === undefined || isActivityAction(action) ? action : null;
      const page = await deps.store.activity.list(actorOf(req), { ...filter, action: known, limit: filter.limit ?? 50 });
      const actor = actorOf(req);
      return { items: page.items.map((a) => presentActivity(a, actor)), nextCursor: page.nextCursor };
    },
  );

  app.get(
    '/api/dashboard/stats',
    {
      onRequest: hooks.requireSession,
      schema: {
        tags: ['dashboard'],
        summary: 'Project counts by status, open projects overdue and due (today, this week), document counts by type, PIs awaiting verification (and, for ADMINs, what is outstanding per currency and the team figures)',
        response: { 200: Type.Unknown({ description: 'the figures (docs/api.md)' }), 401: errorRef },
      },
    },
    async (req) => dashboardStats(deps, actorOf(req)),
  );
}
