import { Type } from '@fastify/type-provider-typebox';
import { addComment, listComments } from '../../actions/comments.js';
import { MAX_LENGTH } from '../../domain/limits.js';
import { presentComment } from '../../presenters/index.js';
import { actorOf } from '../session.js';
import { Comment, IdParams, Limit, errorRef, pageOf } from '../schemas.js';
import { type App, type RouteContext, withRequestLog } from './context.js';

/** A project's comments (interface.md, Comments). */
export async function commentRoutes(app: App, { deps, hooks }: RouteContext) {
  app.get(
    '/api/projects/:id/comments',
    {
      onRequest: hooks.requireSession,
      schema: {
        tags: ['comments'],
        summary: "A project's comments, oldest first (internal notes not for a CLIENT)",
        params: IdParams,
        querystring: Type.Object({ limit: Limit, cursor: Type.Optional(Type.String({ description: 'nextCursor of the previous page' })) }),
        response: { 200: pageOf(Comment), 400: errorRef, 401: errorRef, 404: errorRef },
      },
    },
    async (req) => {
      const page = await listComments(deps, actorOf(req), req.params.id, { limit: req.query.limit ?? 50, cursor: req.query.cursor });
      return { items: page.items.map(presentComment), nextCursor: page.nextCursor };
    },
  );

  app.post(
    '/api/projects/:id/comments',
    {
      onRequest: hooks.requireSession,
      schema: {
        tags: ['comments'],
        summary: 'Comment on a project; internal: true (a note among the shop’s people) only ADMIN and the owner POC',
        params: IdParams,
        body: Type.Object(
          {
            body: Type.String({ description: `1–${MAX_LENGTH.body} characters after trimming` }),
            internal: Type.Optional(Type.Boolean({ default: false })),
          },
          { additionalProperties: false },
        ),
        response: { 201: Comment, 400: errorRef, 401: errorRef, 403: errorRef, 404: errorRef },
      },
    },
    async (req, reply) => reply.code(201).send(presentComment(await addComment(withRequestLog(deps, req), actorOf(req), req.params.id, req.body))),
  );
}
