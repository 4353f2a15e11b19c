import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { isAppError } from '../errors.js';

/**
 * How a route answers an unexpected failure, for the specification's endpoints (part 7):
 * `message` is the default, and with `exposeMessage` the failure's own message wins.
 */
export interface FailureRule {
  message: string;
  exposeMessage: boolean;
}

declare module 'fastify' {
  interface FastifyContextConfig {
    failure?: FailureRule;
  }
}

/** The one place errors become HTTP answers. Every answer is {"error": message}. */
export function registerErrorHandling(app: FastifyInstance): void {
  app.setErrorHandler((err: FastifyError, req: FastifyRequest, reply: FastifyReply) => {
    if (isAppError(err)) {
      return reply.code(err.status).headers(err.headers).send({ error: err.message });
    }
    const failure = req.routeOptions.config?.failure;
    if (failure) {
      req.log.error({ err }, 'request failed');
      return reply.code(500).send({ error: failure.exposeMessage && err.message ? err.message : failure.message });
    }
    if (err.validation) {
      return reply.code(400).send({ error: validationMessage(err) });
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

/** Ajv's first complaint, phrased for people: "name is required", "limit must be <= 200", "query.status must be one of …". */
function validationMessage(err: FastifyError): string {
  const first = err.validation![0]!;
  const pathParts = first.instancePath.split('/').filter(Boolean);
  const params = first.params as { missingProperty?: string; allowedValues?: unknown[] };
  if (first.keyword === 'required' && params.missingProperty) pathParts.push(params.missingProperty);
  const detail =
    first.keyword === 'required'
      ? 'is required'
      : first.keyword === 'enum' && params.allowedValues
        ? `must be one of ${params.allowedValues.join(', ')}`
        : (first.message ?? 'is invalid');
  const field = pathParts.join('.');
  const where = err.validationContext === 'body' ? field : [err.validationContext, field].filter(Boolean).join('.');
  return `${where || 'request'} ${detail}`;
}
