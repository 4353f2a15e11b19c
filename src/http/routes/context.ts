import type { FastifyInstance, FastifyBaseLogger, FastifyRequest, RawReplyDefaultExpression, RawRequestDefaultExpression, RawServerDefault } from 'fastify';
import type {} from '@fastify/swagger';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FirstRun } from '../../actions/first-run.js';
import type { Deps } from '../../deps.js';
import type { DocumentAccess } from '../../domain/documents.js';
import type { StreamHub } from '../../realtime/streams.js';
import type { SessionHooks } from '../session.js';

export type App = FastifyInstance<RawServerDefault, RawRequestDefaultExpression, RawReplyDefaultExpression, FastifyBaseLogger, TypeBoxTypeProvider>;

/** What every route module gets: the service's dependencies, the session hooks and this process's realtime streams. */
export interface RouteContext {
  deps: Deps;
  hooks: SessionHooks;
  streams: StreamHub;
  /** The first run's one-time setup token of this process (none once an admin exists at start). */
  firstRun: FirstRun;
}

/**
 * The dependencies for an action that logs about this request (a failed notification, an email
 * not sent): its lines go through the request's logger, so they carry the request id as the
 * request's own lines do.
 */
export const withRequestLog = (deps: Deps, req: Pick<FastifyRequest, 'log'>): Deps => ({ ...deps, log: req.log });

/** Schema used for documentation only: the handler checks the body itself, as the specification orders. */
export const documentationOnly = () => () => true;

/** Who a document's address answers and where ours live (DOCUMENT_ACCESS, PUBLIC_URL): what the presenters need to give each document its url. */
export const documentAccessOf = (deps: Pick<Deps, 'config'>): DocumentAccess => ({ mode: deps.config.documentAccess.mode, publicUrl: deps.config.publicUrl });
