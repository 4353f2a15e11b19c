import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { labelOf } from '../domain/labels.js';
import { OUTAGE_MESSAGE, OUTAGE_RETRY_AFTER_SECONDS, isDependencyUnavailable } from '../domain/outage.js';
import { isAppError } from '../errors.js';

/**
 * How a route answers an unexpected failure, for the specification's endpoints (part 7):
 * `message` is the default, and with `exposeMessage` the failure's own message wins.
 * `malformedJson`: a malformed (or empty) JSON body is such a failure too, as the specification
 * says of team POST; elsewhere it is the caller's 400.
 * `specified`: the specification itself fixes this 500 (its upload and team endpoints), so it stands
 * even when a dependency is unavailable; on every other route that is a 503 worth retrying.
 */
export interface FailureRule {
  message: string;
  exposeMessage: boolean;
  malformedJson?: boolean;
  specified?: boolean;
}


declare module 'fastify' {
  interface FastifyContextConfig {
    failure?: FailureRule;
  }
}

/** Fastify's codes for a JSON body that does not parse (kept by http/json-body.ts). */
const MALFORMED_JSON = new Set(['FST_ERR_CTP_EMPTY_JSON_BODY', 'FST_ERR_CTP_INVALID_JSON_BODY']);

/**
 * A 4xx Fastify or one of its plugins (their codes begin FST_) refused the request with: a body
 * too large, of a type no parser reads, a Content-Length that lies, a multipart limit. It is the
 * caller's mistake with its own status, even on a route whose unexpected failures are the
 * specification's 500, except a malformed JSON body where the route's rule says so. Only the
 * FST_ codes count: a storage or database failure that carries some HTTP status stays a failure.
 */
export function isFrameworkRefusal(err: Partial<Pick<FastifyError, 'code' | 'statusCode'>>, failure: FailureRule | undefined): boolean {
  const status = err.statusCode ?? 0;
  if (status < 400 || status >= 500 || typeof err.code !== 'string' || !err.code.startsWith('FST_')) return false;
  return !(failure?.malformedJson && MALFORMED_JSON.has(err.code));
}

/** The one place errors become HTTP answers. Every answer is {"error": message}. */
export function registerErrorHandling(app: FastifyInstance): void {
  app.setErrorHandler((err: FastifyError, req: FastifyRequest, reply: FastifyReply) => {
    if (isAppError(err)) {
      return reply.code(err.status).headers(err.headers).send({ error: err.message });
    }
    // A parameter the route's schema refuses is the caller's mistake, not a failure (GET /api/team?role=BOSS).
    if (err.validation) {
      return reply.code(400).send({ error: validationMessage(err) });
    }
    const failure = req.routeOptions.config?.failure;
    if (isFrameworkRefusal(err, failure)) {
      return reply.code(err.statusCode!).send({ error: err.message });
    }
    // Logged once, at warn: the outage itself is reported by the driver's own connection warnings.
    if (!failure?.specified && isDependencyUnavailable(err)) {
      req.log.warn({ err }, 'request failed: a dependency is unavailable');
      return reply.code(503).header('retry-after', String(OUTAGE_RETRY_AFTER_SECONDS)).send({ error: OUTAGE_MESSAGE });
    }
    if (failure) {
      req.log.error({ err }, 'request failed');
      return reply.code(500).send({ error: failure.exposeMessage && err.message ? err.message : failure.message });
    }
    if (err.statusCode && err.statusCode >= 400 && err.statusCode < 500) {
      return reply.code(err.statusCode).send({ error: err.message });
    }
    req.log.error({ err }, 'request failed');
    return reply.code(500).send({ error: 'Internal server error' });
  });

  app.setNotFoundHandler((req, reply) => {
    reply.code(404).send({ error: `Route ${req.method} ${req.url.split('?')[0]} not found` });
  });
}

type Complaint = { keyword: string; instancePath: string; message?: string; params: Record<string, unknown> };

/** What a value of the wrong type should have been, in words. */
const TYPE_WORDS: Record<string, string> = { string: 'text', boolean: 'true or false', integer: 'a whole number', number: 'a number', object: 'an object', array: 'a list' };

/**
 * The validator's complaint, phrased for people: "Name is required", "Role must be one of ADMIN,
 * POC, CLIENT", "Active must be true or false", "query.limit must be at most 200".
 */
function validationMessage(err: FastifyError): string {
  const all = err.validation as unknown as Complaint[];
  // Of a value's complaints, the list of allowed values says the most; a refused extra field says it plainly.
  // (TypeBox also reports each extra field as a `false` schema at its own path, and may list only those when there are many.)
  const first = all.find((c) => c.keyword === 'enum') ?? all.find((c) => c.keyword === 'additionalProperties' || c.keyword === 'boolean') ?? all[0]!;
  const path = first.instancePath.split('/').filter(Boolean);
  let detail = first.message ?? 'is invalid';
  const limit = first.params.limit;
  switch (first.keyword) {
    case 'required': {
      const missing = first.params.missingProperty ?? (first.params.requiredProperties as string[] | undefined)?.[0];
      if (missing) path.push(String(missing));
      detail = 'is required';
      break;
    }
    case 'enum':
      if (Array.isArray(first.params.allowedValues)) detail = `must be one of ${first.params.allowedValues.join(', ')}`;
      break;
    case 'additionalProperties': {
      const extra = first.params.additionalProperty ?? (first.params.additionalProperties as string[] | undefined)?.[0];
      if (extra) path.push(String(extra));
      detail = 'is not a known field';
      break;
    }
    case 'boolean':
      detail = 'is not a known field';
      break;
    case 'type': {
      const types = String(first.params.type ?? '').split(',').filter((t) => t !== 'null');
      detail = `must be ${types.map((t) => TYPE_WORDS[t] ?? t).join(' or ')}`;
      break;
    }
    case 'minLength':
      detail = limit === 1 ? 'is required' : `must be at least ${String(limit)} characters`;
      break;
    case 'maxLength':
      detail = `must be at most ${String(limit)} characters`;
      break;
    case 'maximum':
      detail = `must be at most ${String(limit)}`;
      break;
    case 'minimum':
      detail = `must be at least ${String(limit)}`;
      break;
    case 'maxItems':
      detail = `must have at most ${String(limit)} entries`;
      break;
    case 'format':
      detail = first.params.format === 'date' ? 'must be a real date written YYYY-MM-DD' : `must be a valid ${String(first.params.format)}`;
      break;
  }
  const field = path.join('.');
  if (err.validationContext === 'body') return `${field ? labelOf(field) : 'The request body'} ${detail}`;
  return `${[err.validationContext, field].filter(Boolean).join('.') || 'request'} ${detail}`;
}
