import type { FastifyInstance, FastifyBaseLogger, RawReplyDefaultExpression, RawRequestDefaultExpression, RawServerDefault } from 'fastify';
import type {} from '@fastify/swagger';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { Deps } from '../../deps.js';
import type { SessionHooks } from '../session.js';

export type App = FastifyInstance<RawServerDefault, RawRequestDefaultExpression, RawReplyDefaultExpression, FastifyBaseLogger, TypeBoxTypeProvider>;

/** What every route module gets: the service's dependencies and the session hooks. */
export interface RouteContext {
  deps: Deps;
  hooks: SessionHooks;
}

/** Schema used for documentation only: the handler checks the body itself, as the specification orders. */
export const documentationOnly = () => () => true;
