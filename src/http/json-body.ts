import { type FastifyInstance, errorCodes } from 'fastify';
import { jsonStructureRefusal } from './nul.js';

/**
 * JSON bodies, parsed as Fastify's own parser does (a byte-order mark skipped; an empty or
 * malformed body is its FST_ERR_CTP_EMPTY_JSON_BODY / FST_ERR_CTP_INVALID_JSON_BODY), with one
 * difference: a body that is valid JSON but one we refuse (nested too deeply, prototype keys) is
 * the caller's 400 with its own message. Fastify's parser answers prototype keys with the
 * malformed-JSON error, which team POST must answer with 500 (specification 7): they differ.
 */
export function registerJsonParser(app: FastifyInstance): void {
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (_req, text, done) => {
    const body = (text as string).charCodeAt(0) === 0xfeff ? (text as string).slice(1) : (text as string);
    if (body.length === 0) return done(new errorCodes.FST_ERR_CTP_EMPTY_JSON_BODY(), undefined);
    let parsed: unknown;
    try {
      // V8's JSON.parse is not recursive: any depth that fits in the body limit parses.
      parsed = JSON.parse(body);
    } catch {
      return done(new errorCodes.FST_ERR_CTP_INVALID_JSON_BODY(), undefined);
    }
    const refused = jsonStructureRefusal(parsed);
    if (refused) return done(refused, undefined);
    done(null, parsed);
  });
}
