import type { FastifyRequest, RouteOptions } from 'fastify';
import { type AppError, errors } from '../errors.js';
import { documentationOnly } from './routes/context.js';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** The specification's own JSON endpoints (POST /api/team) take the fields it lists and ignore others, as it says: nothing is refused for them. */
    unknownFieldsIgnored?: true;
  }
}

type BodySchema = { type?: unknown; properties?: Record<string, unknown>; additionalProperties?: unknown };

/** The first field of a JSON object body that `schema` does not name, refused as every JSON route refuses it; null when all are known. */
export function unknownFieldRefusal(body: unknown, schema: BodySchema): AppError | null {
  if (body === null || typeof body !== 'object' || Array.isArray(body) || !schema.properties) return null;
  for (const key of Object.keys(body)) {
    if (!Object.hasOwn(schema.properties, key)) return errors.invalidField(key, 'is not a known field');
  }
  return null;
}

/**
 * For a route whose body schema the validator will not hold to (it documents a body its handler
 * checks itself, or it lets unknown fields through): a hook that refuses fields the schema does not
 * name, so `{"active": false, "bogus": {}}` is a 400 there as on every other JSON route. The other
 * routes' schemas say `additionalProperties: false` and the validator refuses with the same words.
 */
export function knownFieldsHook(route: RouteOptions): ((req: FastifyRequest) => Promise<void>) | null {
  const schema = route.schema?.body as BodySchema | undefined;
  if (!schema?.properties || route.config?.unknownFieldsIgnored) return null;
  if (schema.additionalProperties === false && route.validatorCompiler !== documentationOnly) return null;
  return async (req) => {
    if (!req.headers['content-type']?.toLowerCase().includes('json')) return;
    const refusal = unknownFieldRefusal(req.body, schema);
    if (refusal) throw refusal;
  };
}
