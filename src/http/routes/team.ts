import { Type } from '@fastify/type-provider-typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { createTeamMember, getTeamMember, updateTeamMember } from '../../actions/team.js';
import { type TeamSnapshot, TeamList } from '../../actions/team-list.js';
import { decodeCursor, page } from '../../db/rows.js';
import { ROLES } from '../../domain/model.js';
import { filterTeam } from '../../domain/team-filter.js';
import { presentCreatedTeamMember, presentTeamMemberDetail } from '../../presenters/index.js';
import { type ContentEncoding, acceptedEncoding, compress, varyOnEncoding } from '../compression.js';
import { CreatedTeamMember, IdParams, NewTeamMember, TeamMember, TeamMemberChange, TeamMemberDetail, errorRef, pageOf } from '../schemas.js';
import { type App, type RouteContext, documentationOnly, withRequestLog } from './context.js';

const TeamQuery = Type.Object({
  q: Type.Optional(Type.String({ maxLength: 200, description: 'name or email contains (case-insensitive)' })),
  role: Type.Optional(Type.Unsafe<string>({ type: 'string', enum: [...ROLES] })),
  active: Type.Optional(Type.Boolean()),
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 200, description: 'page size (default 50)' })),
  cursor: Type.Optional(Type.String()),
});

/** The compressed copies of each snapshot's body, made once (on the thread pool) and dropped with the snapshot. */
const encodedBodies = new WeakMap<TeamSnapshot, Map<ContentEncoding, Promise<Buffer>>>();
function encodedBody(snapshot: TeamSnapshot, encoding: ContentEncoding): Promise<Buffer> {
  let copies = encodedBodies.get(snapshot);
  if (!copies) encodedBodies.set(snapshot, (copies = new Map()));
  let made = copies.get(encoding);
  if (!made) {
    made = compress(encoding, snapshot.body);
    made.catch(() => copies.delete(encoding));
    copies.set(encoding, made);
  }
  return made;
}

/** If-None-Match names this entity tag (or any: `*`); weak tags compare equal to strong ones for GET. */
const notModified = (req: FastifyRequest, etag: string): boolean => {
  const header = req.headers['if-none-match'];
  if (!header) return false;
  return header.split(',').some((tag) => {
    const t = tag.trim();
    return t === '*' || t === etag || t === `W/${etag}`;
  });
};

/** The specification's whole list, as one prepared body: 304 when the client has it, else in the best encoding it accepts. */
async function sendWholeTeam(req: FastifyRequest, reply: FastifyReply, snapshot: TeamSnapshot) {
  reply.header('etag', snapshot.etag).header('cache-control', 'private, no-cache');
  varyOnEncoding(reply);
  if (notModified(req, snapshot.etag)) return reply.code(304).send();
  const encoding = acceptedEncoding(req);
  const body = encoding ? await encodedBody(snapshot, encoding) : snapshot.body;
  if (encoding) reply.header('content-encoding', encoding);
  return reply.type('application/json; charset=utf-8').send(body);
}

/**
 * Specification 4.2 and 4.3, plus PATCH for the team page. ADMIN only: anyone else gets 401.
 * The session is checked on request, before the body is parsed, so a non-admin gets 401 whatever
 * the body; a malformed JSON body then fails with 500 and the parser's message, as specified.
 */
export async function teamRoutes(app: App, { deps, hooks }: RouteContext) {
  const team = new TeamList(deps.store);

  app.get(
    '/api/team',
    {
      onRequest: hooks.requireAdmin,
      config: { failure: { message: 'Failed to fetch team members', exposeMessage: false, specified: true } },
      schema: {
        tags: ['team'],
        summary: 'Team members, newest first (ADMIN)',
        description:
          'Without parameters: the whole team as an array (specification 4.2), with an ETag (If-None-Match → 304). With any of q, role, active, limit, cursor: one page {items, nextCursor} of the members that match, for the team page.',
        querystring: TeamQuery,
        response: { 200: Type.Union([Type.Array(TeamMember), pageOf(TeamMember)]), 400: errorRef, 401: errorRef, 500: errorRef },
      },
    },
    async (req, reply) => {
      const { q, role, active, limit, cursor } = req.query;
      const paged = q !== undefined || role !== undefined || active !== undefined || limit !== undefined || cursor !== undefined;
      const after = decodeCursor(cursor);
      const snapshot = await team.snapshot();
      if (!paged) return sendWholeTeam(req, reply, snapshot);
      const size = limit ?? 50;
      return page(filterTeam(snapshot.members, { q, role, active, limit: size, after }), size);
    },
  );

  app.post(
    '/api/team',
    {
      onRequest: hooks.requireAdmin,
      config: { failure: { message: 'Failed to create team member', exposeMessage: true, malformedJson: true, specified: true }, unknownFieldsIgnored: true },
      schema: {
        tags: ['team'],
        summary: 'Create a team member (ADMIN)',
        body: NewTeamMember,
        response: { 201: CreatedTeamMember, 400: errorRef, 401: errorRef, 409: errorRef, 500: errorRef },
      },
      validatorCompiler: documentationOnly,
    },
    async (req, reply) => {
      const user = await createTeamMember(deps, req.body as Record<string, unknown> | undefined);
      return reply.code(201).send(presentCreatedTeamMember(user));
    },
  );

  app.get(
    '/api/team/:id',
    {
      onRequest: hooks.requireAdmin,
      schema: {
        tags: ['team'],
        summary: 'One team member, with their customer (ADMIN)',
        params: IdParams,
        response: { 200: TeamMemberDetail, 401: errorRef, 404: errorRef },
      },
    },
    async (req) => presentTeamMemberDetail(await getTeamMember(deps, req.params.id)),
  );

  app.patch(
    '/api/team/:id',
    {
      onRequest: hooks.requireAdmin,
      schema: {
        tags: ['team'],
        summary: 'Change a team member (ADMIN); deactivation or a new password ends their sessions',
        params: IdParams,
        body: TeamMemberChange,
        response: { 200: TeamMemberDetail, 400: errorRef, 401: errorRef, 404: errorRef, 409: errorRef },
      },
    },
    async (req) => presentTeamMemberDetail(await updateTeamMember(withRequestLog(deps, req), req.params.id, req.body)),
  );
}
