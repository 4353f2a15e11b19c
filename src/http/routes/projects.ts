import { Type } from '@fastify/type-provider-typebox';
import { createProject, editProjectDetails, getProject, listProjects, patchProject, runProjectAction } from '../../actions/projects.js';
import { APPROVAL_STATUSES, DOCUMENT_TYPES, PROJECT_STATUSES, type Actor, type ApprovalStatus, type Project as ProjectModel } from '../../domain/model.js';
import { PROJECT_ACTIONS, type ProjectAction, availableActions, decideDetailsEdit } from '../../domain/project-lifecycle.js';
import { decideUpload } from '../../domain/upload-policy.js';
import { AppError } from '../../errors.js';
import { presentFiles, presentProject } from '../../presenters/index.js';
import { actorOf } from '../session.js';
import { IdParams, Limit, NullableString, Project, ProjectDetail, errorRef, pageOf } from '../schemas.js';
import type { App, RouteContext } from './context.js';

/** Projects (interface.md) and their lifecycle actions (domain/project-lifecycle.ts). */
export async function projectRoutes(app: App, { deps, hooks }: RouteContext) {
  const log = (err: unknown) => app.log.error({ err }, 'realtime notification failed');

  app.post(
    '/api/projects',
    {
      onRequest: hooks.requireSession,
      schema: {
        tags: ['projects'],
        summary: 'Create a project (status REQUESTED); an ADMIN may name its POC',
        body: Type.Object({ name: Type.String(), description: Type.Optional(NullableString()), pocId: Type.Optional(Type.String()) }, { additionalProperties: false }),
        response: { 201: Project, 400: errorRef, 401: errorRef },
      },
    },
    async (req, reply) => reply.code(201).send(presentProject(await createProject(deps, actorOf(req), req.body, log))),
  );

  app.get(
    '/api/projects',
    {
      onRequest: hooks.requireSession,
      schema: {
        tags: ['projects'],
        summary: 'Projects the caller may see, newest first',
        querystring: Type.Object({
          status: Type.Optional(Type.Unsafe<string>({ type: 'string', enum: [...PROJECT_STATUSES] })),
          pocId: Type.Optional(Type.String()),
          approval: Type.Optional(
            Type.Unsafe<string>({ type: 'string', enum: [...APPROVAL_STATUSES], description: 'approval status; PENDING also matches projects without a decision yet' }),
          ),
          q: Type.Optional(Type.String({ description: 'name contains (case-insensitive)' })),
          limit: Limit,
          cursor: Type.Optional(Type.String()),
        }),
        response: { 200: pageOf(Project), 400: errorRef, 401: errorRef },
      },
    },
    async (req) => {
      const { status, pocId, approval, q, limit, cursor } = req.query;
      const result = await listProjects(deps, actorOf(req), {
        status: status as ProjectModel['status'] | undefined,
        approval: approval as ApprovalStatus | undefined,
        pocId,
        q,
        limit: limit ?? 50,
        cursor,
      });
      return { items: result.items.map(presentProject), nextCursor: result.nextCursor };
    },
  );

  app.get(
    '/api/projects/:id',
    {
      onRequest: hooks.requireSession,
      schema: { tags: ['projects'], summary: 'One project with its documents', params: IdParams, response: { 200: ProjectDetail, 401: errorRef, 404: errorRef } },
    },
    async (req) => {
      const actor = actorOf(req);
      const { project, files } = await getProject(deps, actor, req.params.id);
      return { ...presentProject(project), files: presentFiles(files), ...(await permissions(actor, project)) };
    },
  );

  app.patch(
    '/api/projects/:id',
    {
      onRequest: hooks.requireSession,
      schema: {
        tags: ['projects'],
        summary: 'Correct any field of a project (ADMIN)',
        params: IdParams,
        body: Type.Object(
          {
            name: Type.Optional(Type.String()),
            description: Type.Optional(NullableString()),
            pocId: Type.Optional(Type.String()),
            status: Type.Optional(Type.String()),
            piStatus: Type.Optional(Type.String()),
            approval: Type.Optional(Type.Object({ status: Type.String(), note: Type.Optional(NullableString()) }, { additionalProperties: false })),
          },
          { additionalProperties: false },
        ),
        response: { 200: Project, 400: errorRef, 401: errorRef, 403: errorRef, 404: errorRef },
      },
    },
    async (req) => presentProject(await patchProject(deps, actorOf(req), req.params.id, req.body, log)),
  );

  app.patch(
    '/api/projects/:id/details',
    {
      onRequest: hooks.requireSession,
      schema: {
        tags: ['projects'],
        summary: 'Change the name and description: an ADMIN, or the owner while the request awaits a decision or is rejected',
        params: IdParams,
        body: Type.Object({ name: Type.Optional(Type.String()), description: Type.Optional(NullableString()) }, { additionalProperties: false }),
        response: { 200: Project, 400: errorRef, 401: errorRef, 404: errorRef, 409: errorRef },
      },
    },
    async (req) => presentProject(await editProjectDetails(deps, actorOf(req), req.params.id, req.body, log)),
  );

  app.post(
    '/api/projects/:id/:action',
    {
      onRequest: hooks.requireSession,
      schema: {
        tags: ['projects'],
        summary: `Take a lifecycle action: ${PROJECT_ACTIONS.join(', ')}`,
        params: Type.Object({ id: Type.String(), action: Type.Unsafe<ProjectAction>({ type: 'string', enum: [...PROJECT_ACTIONS] }) }),
        description: 'Optional JSON body {"note": "..."}: kept with an approval or rejection and in the activity entry.',
        response: { 200: Project, 400: errorRef, 401: errorRef, 403: errorRef, 404: errorRef, 409: errorRef },
      },
    },
    async (req) => {
      const body = req.body as { note?: unknown } | undefined;
      const note = typeof body?.note === 'string' && body.note.trim() ? body.note.trim() : null;
      return presentProject(await runProjectAction(deps, actorOf(req), req.params.id, req.params.action, note, log));
    },
  );
}

/** What the caller may do with the project now, so clients offer only that (and say why not). */
async function permissions(actor: Actor, project: ProjectModel) {
  // The upload checks for a file of each type sent to this project: null, or the refusal it would get.
  const uploads = await Promise.all(
    DOCUMENT_TYPES.map(async (fileType) => {
      const decision = await decideUpload(actor, { hasFile: true, projectId: project.id, fileType }, async () => project);
      return [fileType, decision instanceof AppError ? decision.message : null] as const;
    }),
  );
  return {
    allowedActions: availableActions(actor, project),
    canEditDetails: decideDetailsEdit(actor, project) === null,
    uploads: Object.fromEntries(uploads),
  };
}
