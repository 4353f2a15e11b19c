import { promisify } from 'node:util';
import zlib from 'node:zlib';
import negotiate from '@fastify/accept-negotiator';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';

/** JSON answers at least this large are compressed for clients that accept it; smaller ones gain less than the work costs. */
export const COMPRESS_MIN_BYTES = 1024;

const ENCODINGS = ['br', 'gzip'] as const;
export type ContentEncoding = (typeof ENCODINGS)[number];

const gzip = promisify(zlib.gzip);
const brotli = promisify(zlib.brotliCompress);

/**
 * Compressed on the thread pool. `fly`: for answers made per request (brotli at a middling quality);
 * `once`: for a body compressed once and served many times (the web app's index.html), at the best ratio.
 */
export const compress = (encoding: ContentEncoding, body: string | Buffer, effort: 'fly' | 'once' = 'fly'): Promise<Buffer> =>
  encoding === 'gzip'
    ? gzip(body, { level: effort === 'once' ? 9 : zlib.constants.Z_DEFAULT_COMPRESSION })
    : brotli(body, {
        params: { [zlib.constants.BROTLI_PARAM_QUALITY]: effort === 'once' ? 11 : 5, [zlib.constants.BROTLI_PARAM_SIZE_HINT]: Buffer.byteLength(body) },
      });

/** The encoding to answer with (brotli before gzip when both are equally welcome), or null for none. */
export const acceptedEncoding = (req: FastifyRequest): ContentEncoding | null => {
  const header = req.headers['accept-encoding'];
  return header ? negotiate(header, [...ENCODINGS]) : null;
};

/** Adds Accept-Encoding to Vary: caches must keep the encodings apart. */
export function varyOnEncoding(reply: FastifyReply): void {
  const vary = reply.getHeader('vary');
  const current = Array.isArray(vary) ? vary.join(', ') : vary === undefined ? '' : String(vary);
  if (!/(^|,)\s*accept-encoding\s*(,|$)/i.test(current)) reply.header('vary', current ? `${current}, Accept-Encoding` : 'Accept-Encoding');
}

/**
 * Compresses JSON answers of COMPRESS_MIN_BYTES or more (on the thread pool) when the client
 * accepts br or gzip. Only JSON held whole in memory: never the realtime stream (text/event-stream,
 * written to the socket directly), never files (streams, and their own types), never an answer
 * that already carries a Content-Encoding (the team list brings its own, made once per version).
 */
export function registerCompression(app: FastifyInstance): void {
  app.addHook('onSend', async (req, reply, payload) => {
    if (typeof payload !== 'string' && !Buffer.isBuffer(payload)) return payload;
    if (reply.getHeader('content-encoding') !== undefined) return payload;
    if (!/^application\/json\b/i.test(String(reply.getHeader('content-type') ?? ''))) return payload;
    if (Buffer.byteLength(payload) < COMPRESS_MIN_BYTES) return payload;
    varyOnEncoding(reply);
    const encoding = acceptedEncoding(req);
    if (!encoding) return payload;
    const body = await compress(encoding, payload);
    reply.header('content-encoding', encoding);
    reply.header('content-length', body.length);
    return body;
  });
}
