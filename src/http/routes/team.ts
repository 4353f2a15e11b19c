import { Type } from '@fastify/type-provider-typebox';
import { createTeamMember, listTeam, updateTeamMember } from '../../actions/team.js';
import { presentCreatedTeamMember, presentTeamMember } from '../../presenters/index.js';
import { CreatedTeamMember, IdParams, NewTeamMember, TeamMember, TeamMemberChange, errorRef } from '../schemas.js';
import { type App, type RouteContext, documentationOnly } from './context.js';

/**
 * Specification 4.2 and 4.3, plus PATCH for the team page. ADMIN only: anyone else gets 401.
 * The session is checked on request, before the body is parsed, so a non-admin gets 401 whatever
 * the body; a malformed JSON body then fails with 500 and the parser's message, as specified.
 */
export async function teamRoutes(app: App, { deps, hooks }: RouteContext) {
  app.get(
    '/api/team',
    {
      onRequest: hooks.requireAdmin,
      config: { failure: { message: 'Failed to fetch team members', exposeMessage: false } },
      schema: { tags: ['team'], summary: 'Team members, newest first (ADMIN)', response: { 200: Type.Array(TeamMember), 401: errorRef, 500: errorRef } },
    },
    async () => (await listTeam(deps)).map(presentTeamMember),
  );

  app.post(
    '/api/team',
    {
      onRequest: hooks.requireAdmin,
      config: { failure: { message: 'Failed to create team member', exposeMessage: true } },
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

  app.patch(
    '/api/team/:id',
    {
      onRequest: hooks.requireAdmin,
      schema: {
        tags: ['team'],
        summary: 'Change a team member (ADMIN); deactivation or a new password ends their sessions',
        params: IdParams,
        body: TeamMemberChange,
        response: { 200: CreatedTeamMember, 400: errorRef, 401: errorRef, 404: errorRef, 409: errorRef },
      },
    },
    async (req) =>
      presentCreatedTeamMember(
        await updateTeamMember(deps, req.params.id, req.body, (err) => req.log.warn({ err }, 'the change of this user was not announced to their streams')),
      ),
  );
}
