import { Type } from '@fastify/type-provider-typebox';
import { todayOf } from '../../deps.js';
import { holdOrRelease } from '../../actions/hold.js';
import { reorderProject } from '../../actions/reorder.js';
import { jobTicketPdf } from '../../actions/ticket.js';
import { MAX_HOLD_REASON, MAX_LENGTH } from '../../domain/limits.js';
import type { Actor } from '../../domain/model.js';
import { presentProject } from '../../presenters/index.js';
import { PdfBody, sendPdf } from '../pdf-reply.js';
import { actorOf } from '../session.js';
import { IdParams, NoQuery, NullableString, Project, errorRef } from '../schemas.js';
import { type App, type RouteContext, withRequestLog } from './context.js';

/** The floor's routes (interface.md, "Holds, rush, reorders" and "The job ticket"). */
export async function floorRoutes(app: App, { deps, hooks }: RouteContext) {
  const present = (p: Parameters<typeof presentProject>[0], viewer: Actor) => presentProject(p, todayOf(deps), viewer, deps.config.currency);

  app.post(
    '/api/projects/:id/hold',
    {
      onRequest: hooks.requireSession,
      schema: {
        tags: ['projects'],
        operationId: 'holdProject',
        summary: 'Put a project on hold, with the reason (ADMIN or the owner): every lifecycle action but cancel is refused until it is released',
        params: IdParams,
        body: Type.Object({ reason: Type.String({ description: `1–${MAX_HOLD_REASON} characters after trimming` }) }, { additionalProperties: false }),
        response: { 200: Project, 400: errorRef, 401: errorRef, 403: errorRef, 404: errorRef, 409: errorRef },
      },
    },
    async (req) => present(await holdOrRelease(withRequestLog(deps, req), actorOf(req), req.params.id, 'hold', req.body), actorOf(req)),
  );

  app.post(
    '/api/projects/:id/release',
    {
      onRequest: hooks.requireSession,
      schema: {
        tags: ['projects'],
        operationId: 'releaseProject',
        summary: 'Release a project from hold, with an optional note (ADMIN or the owner)',
        params: IdParams,
        body: Type.Optional(Type.Object({ note: Type.Optional(NullableString({ description: `at most ${MAX_LENGTH.note} characters` })) }, { additionalProperties: false })),
        response: { 200: Project, 400: errorRef, 401: errorRef, 403: errorRef, 404: errorRef, 409: errorRef },
      },
    },
    async (req) => present(await holdOrRelease(withRequestLog(deps, req), actorOf(req), req.params.id, 'release', req.body ?? {}), actorOf(req)),
  );

  app.post(
    '/api/projects/:id/reorder',
    {
      onRequest: hooks.requireSession,
      schema: {
        tags: ['projects'],
        operationId: 'reorderProject',
        summary: "Repeat a job as a new REQUESTED project: the same name, description, customer, delivery address and lines; nothing of its approval, PI, payments, proofs or documents (ADMIN, the owner, or a CLIENT of the project's customer)",
        params: IdParams,
        body: Type.Optional(
          Type.Object(
            {
              dueDate: Type.Optional(NullableString({ description: 'YYYY-MM-DD; null or absent: none' })),
              reference: Type.Optional(NullableString({ description: `the customer's new order number, at most ${MAX_LENGTH.reference} characters` })),
            },
            { additionalProperties: false },
          ),
        ),
        response: { 201: Project, 400: errorRef, 401: errorRef, 404: errorRef, 409: errorRef },
      },
    },
    async (req, reply) => reply.code(201).send(present(await reorderProject(withRequestLog(deps, req), actorOf(req), req.params.id, req.body ?? {}), actorOf(req))),
  );

  app.get(
    '/api/projects/:id/ticket.pdf',
    {
      onRequest: hooks.requireSession,
      schema: {
        tags: ['projects'],
        operationId: 'getJobTicketPdf',
        summary: "The job ticket as a PDF: the press's work order on A4, every line with all its fields, a QR code of the project's address (ADMIN or the owner; a CLIENT who may see the project 403, anyone who may not 404)",
        params: IdParams,
        querystring: NoQuery,
        produces: ['application/pdf'],
        response: { 200: PdfBody, 400: errorRef, 401: errorRef, 403: errorRef, 404: errorRef },
      },
    },
    async (req, reply) => sendPdf(reply, await jobTicketPdf(deps, actorOf(req), req.params.id)),
  );
}
