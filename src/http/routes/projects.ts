import { Readable } from 'node:stream';
import { type Static, type TObject, Type } from '@fastify/type-provider-typebox';
import { authorizePayment, recordPayment } from '../../actions/payments.js';
import { checkDueBetween, createProject, editProjectDetails, getProject, listProjects, patchProject, runProjectAction } from '../../actions/projects.js';
import { projectsCsv, projectsCsvFilename } from '../../actions/projects-csv.js';
import { submitPi } from '../../actions/submit-pi.js';
import { todayOf } from '../../deps.js';
import { DUE_FILTERS, type DueFilter } from '../../domain/due.js';
import { APPROVAL_STATUSES, DOCUMENT_TYPES, PI_STATUSES, PROJECT_STATUSES, type Actor, type ApprovalStatus, type PiStatus, type Project as ProjectModel } from '../../domain/model.js';
import { PROJECT_ACTIONS, type ProjectAction, availableActions, decideDetailsEdit, decideProjectAction } from '../../domain/project-lifecycle.js';
import { decideUpload } from '../../domain/upload-policy.js';
import { mayHold } from '../../domain/hold.js';
import { mayReorder } from '../../domain/reorder.js';
import { AppError, errors } from '../../errors.js';
import { presentFiles, presentPayment, presentProject } from '../../presenters/index.js';
import { PROJECT_CSV_COLUMNS } from '../../presenters/projects-csv.js';
import { actorOf } from '../session.js';
import { CustomerIdInput, IdParams, JobInput, Limit, NullableString, Payment, PaymentInput, PiSubmission, Project, ProjectDetail, QueryOf, enumOf, errorRef, pageOf } from '../schemas.js';
import { type App, type RouteContext, documentAccessOf, withRequestLog } from './context.js';

/** The lifecycle actions whose body is at most a note: submit-pi carries the PI's figures, on a route of its own. */
const SIMPLE_ACTIONS = PROJECT_ACTIONS.filter((a) => a !== 'submit-pi');

/** The filters of GET /api/projects, which GET /api/projects.csv takes too. */
const LIST_FILTERS = {
  status: Type.Optional(Type.Unsafe<string>({ type: 'string', enum: [...PROJECT_STATUSES] })),
  pocId: Type.Optional(Type.String()),
  customerId: Type.Optional(Type.String({ description: "the customer's projects" })),
  approval: Type.Optional(
    Type.Unsafe<string>({ type: 'string', enum: [...APPROVAL_STATUSES], description: 'approval status; PENDING also matches projects without a decision yet' }),
  ),
  piStatus: Type.Optional(enumOf(PI_STATUSES)),
  due: Type.Optional(
    Type.Unsafe<DueFilter>({
      type: 'string',
      enum: [...DUE_FILTERS],
      description: "open projects (not DELIVERED or CANCELLED) by due date, against today in TIMEZONE: overdue (before today), today, week (today or the next 6 days)",
    }),
  ),
  sort: Type.Optional(
    Type.Unsafe<'newest' | 'due' | 'priority'>({
      type: 'string',
      enum: ['newest', 'due', 'priority'],
      description: 'newest first (default); earliest due date first with projects without one last; or priority: held last, then rush first, then earliest due date (none last), then newest',
    }),
  ),
  q: Type.Optional(Type.String({ description: "name, reference, the POC's or the customer's name contains (case-insensitive); 1042 or #1042 also finds job number 1042" })),
  held: Type.Optional(Type.Unsafe<'true' | 'false'>({ type: 'string', enum: ['true', 'false'], description: 'on hold or not' })),
  rush: Type.Optional(Type.Unsafe<'true' | 'false'>({ type: 'string', enum: ['true', 'false'], description: 'rush jobs or not' })),
  dueFrom: Type.Optional(Type.String({ description: 'due on or after this date, YYYY-MM-DD' })),
  dueTo: Type.Optional(Type.String({ description: 'due on or before this date, YYYY-MM-DD (at most 366 days after dueFrom)' })),
};

const flag = (v: 'true' | 'false' | undefined) => (v === undefined ? undefined : v === 'true');

/** Those filters as the repository takes them. */
const filterOf = (query: Static<TObject<typeof LIST_FILTERS>>) => ({
  status: query.status as ProjectModel['status'] | undefined,
  approval: query.approval as ApprovalStatus | undefined,
  piStatus: query.piStatus as PiStatus | undefined,
  due: query.due,
  sort: query.sort,
  pocId: query.pocId,
  customerId: query.customerId,
  q: query.q,
  held: flag(query.held),
  rush: flag(query.rush),
  dueFrom: query.dueFrom,
  dueTo: query.dueTo,
});

/** Projects (interface.md) and their lifecycle actions (domain/project-lifecycle.ts). */
export async function projectRoutes(app: App, { deps, hooks }: RouteContext) {
  /** A project as answered: `overdue` against today in the shop's time zone. */
  const present = (p: Parameters<typeof presentProject>[0], viewer: Actor) => presentProject(p, todayOf(deps), viewer, deps.config.currency);

  app.post(
    '/api/projects',
    {
      onRequest: hooks.requireSession,
      schema: {
        tags: ['projects'],
        summary: 'Create a project (status REQUESTED), with the job if known; an ADMIN may name its POC',
        body: Type.Object(
          { name: Type.String(), description: Type.Optional(NullableString()), pocId: Type.Optional(Type.String()), customerId: CustomerIdInput, ...JobInput },
          { additionalProperties: false },
        ),
        response: { 201: Project, 400: errorRef, 401: errorRef, 409: errorRef },
      },
    },
    async (req, reply) => reply.code(201).send(present(await createProject(withRequestLog(deps, req), actorOf(req), req.body), actorOf(req))),
  );

  app.get(
    '/api/projects',
    {
      onRequest: hooks.requireSession,
      schema: {
        tags: ['projects'],
        summary: 'Projects the caller may see, newest first or by due date',
        querystring: QueryOf({
          ...LIST_FILTERS,
          limit: Limit,
          cursor: Type.Optional(Type.String({ description: 'nextCursor of the previous page, with the same sort' })),
        }),
        response: { 200: pageOf(Project), 400: errorRef, 401: errorRef },
      },
    },
    async (req) => {
      const result = await listProjects(deps, actorOf(req), { ...filterOf(req.query), limit: req.query.limit ?? 50, cursor: req.query.cursor });
      const today = todayOf(deps);
      const actor = actorOf(req);
      return { items: result.items.map((p) => presentProject(p, today, actor, deps.config.currency)), nextCursor: result.nextCursor };
    },
  );

  app.get(
    '/api/projects.csv',
    {
      onRequest: hooks.requireSession,
      schema: {
        tags: ['projects'],
        summary: 'The projects the caller may see as CSV, with the filters of GET /api/projects',
        description:
          'UTF-8 with a byte-order mark, RFC 4180, a header line then one line per project; values beginning with =, +, - or @ are prefixed with \'. ' +
          `Columns: ${PROJECT_CSV_COLUMNS.join(', ')}; amounts in the currency's major units (125000.00 for INR). Streamed page by page as the client reads.`,
        querystring: QueryOf(LIST_FILTERS),
        produces: ['text/csv'],
        response: { 200: Type.Unsafe<string>({ description: 'the CSV (text/csv; charset=utf-8)', type: 'string' }), 400: errorRef, 401: errorRef },
      },
    },
    async (req, reply) => {
      const filter = filterOf(req.query);
      checkDueBetween(filter);
      const csv = projectsCsv(deps, actorOf(req), filter);
      reply.header('content-type', 'text/csv; charset=utf-8');
      reply.header('content-disposition', `attachment; filename="${projectsCsvFilename(deps)}"`);
      reply.header('cache-control', 'no-store');
      reply.header('x-content-type-options', 'nosniff');
      // One page in hand at most: the next is read when the socket has taken this one.
      return reply.send(Readable.from(csv, { highWaterMark: 1 }));
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
      const { project, files, payments } = await getProject(deps, actor, req.params.id);
      return { ...present(project, actor), files: presentFiles(files, documentAccessOf(deps)), payments: payments.map(presentPayment), ...(await permissions(actor, project)) };
    },
  );

  app.patch(
    '/api/projects/:id',
    {
      onRequest: hooks.requireSession,
      schema: {
        tags: ['projects'],
        summary: 'Correct any field of a project, the job included (ADMIN)',
        params: IdParams,
        body: Type.Object(
          {
            ...JobInput,
            name: Type.Optional(Type.String()),
            description: Type.Optional(NullableString()),
            pocId: Type.Optional(Type.String()),
            customerId: CustomerIdInput,
            status: Type.Optional(Type.String()),
            piStatus: Type.Optional(Type.String()),
            approval: Type.Optional(Type.Object({ status: Type.String(), note: Type.Optional(NullableString()) }, { additionalProperties: false })),
          },
          { additionalProperties: false },
        ),
        response: { 200: Project, 400: errorRef, 401: errorRef, 403: errorRef, 404: errorRef },
      },
    },
    async (req) => present(await patchProject(withRequestLog(deps, req), actorOf(req), req.params.id, req.body), actorOf(req)),
  );

  app.patch(
    '/api/projects/:id/details',
    {
      onRequest: hooks.requireSession,
      schema: {
        tags: ['projects'],
        summary: 'Change the name, description and job: an ADMIN at any time, the owner until printing starts (REQUESTED or APPROVED)',
        params: IdParams,
        body: Type.Object(
          { name: Type.Optional(Type.String()), description: Type.Optional(NullableString()), customerId: CustomerIdInput, ...JobInput },
          { additionalProperties: false },
        ),
        response: { 200: Project, 400: errorRef, 401: errorRef, 403: errorRef, 404: errorRef, 409: errorRef },
      },
    },
    async (req) => present(await editProjectDetails(withRequestLog(deps, req), actorOf(req), req.params.id, req.body), actorOf(req)),
  );

  app.post(
    '/api/projects/:id/submit-pi',
    {
      onRequest: hooks.requireSession,
      // Who may not submit the PI now hears that (404, 403, 409) before anything about the body.
      preValidation: async (req) => {
        const current = await deps.store.projects.findById(req.params.id);
        if (!current) throw errors.projectNotFound();
        const refusal = decideProjectAction(actorOf(req), current, 'submit-pi', current.updatedAt);
        if (refusal instanceof AppError) throw refusal;
      },
      schema: {
        tags: ['projects'],
        summary: 'Submit the PI with its figures (the owner or an ADMIN, while the PI is PENDING or REJECTED): a rejected PI comes back with new figures',
        params: IdParams,
        body: PiSubmission,
        response: { 200: Project, 400: errorRef, 401: errorRef, 403: errorRef, 404: errorRef, 409: errorRef },
      },
    },
    async (req) => present(await submitPi(withRequestLog(deps, req), actorOf(req), req.params.id, req.body), actorOf(req)),
  );

  app.post(
    '/api/projects/:id/payments',
    {
      onRequest: hooks.requireSession,
      // Anyone but an ADMIN hears 403 (or 404) before anything about the body.
      preValidation: async (req) => authorizePayment(deps, actorOf(req), req.params.id),
      schema: {
        tags: ['projects'],
        summary: "Record a payment received (ADMIN), in the PI's currency (CURRENCY before any PI: an advance)",
        params: IdParams,
        body: PaymentInput,
        response: { 201: Payment, 400: errorRef, 401: errorRef, 403: errorRef, 404: errorRef },
      },
    },
    async (req, reply) => reply.code(201).send(presentPayment(await recordPayment(withRequestLog(deps, req), actorOf(req), req.params.id, req.body))),
  );

  app.post(
    '/api/projects/:id/:action',
    {
      onRequest: hooks.requireSession,
      schema: {
        tags: ['projects'],
        summary: `Take a lifecycle action: ${SIMPLE_ACTIONS.join(', ')} (submit-pi has its own route, with the figures)`,
        params: Type.Object({ id: Type.String(), action: Type.Unsafe<ProjectAction>({ type: 'string', enum: [...SIMPLE_ACTIONS] }) }),
        description: 'Optional JSON body {"note": "..."}: kept with an approval or rejection and in the activity entry.',
        response: { 200: Project, 400: errorRef, 401: errorRef, 403: errorRef, 404: errorRef, 409: errorRef },
      },
    },
    async (req) => {
      const body = req.body as { note?: unknown } | undefined;
      const note = typeof body?.note === 'string' && body.note.trim() ? body.note.trim() : null;
      return present(await runProjectAction(withRequestLog(deps, req), actorOf(req), req.params.id, req.params.action, note), actorOf(req));
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
    canHold: mayHold(actor, project),
    canReorder: mayReorder(actor, project),
    canEditDetails: decideDetailsEdit(actor, project) === null,
    uploads: Object.fromEntries(uploads),
  };
}
