import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { AppError } from '../errors.js';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** The body streams for as long as it takes (an upload): only silence past the idle limit ends it. */
    streamedBody?: boolean;
  }
}

export interface BodyTimeouts {
  /** A body that is read whole (JSON) must have arrived this long after its headers. */
  bodyTimeoutMs: number;
  /** A streamed body (an upload) may send no byte for this long. */
  uploadIdleTimeoutMs: number;
}

/**
 * Bounds the time a client may take to send a body, so a stalled or silent client cannot hold a
 * connection (and a file descriptor) forever. Node bounds the headers (headersTimeout); this bounds
 * what follows: a whole-body deadline for JSON, an idle limit for uploads, which may take as long
 * as they keep sending. On expiry the client gets 408 {"error": …} if an answer can still be sent,
 * and the connection is closed, which fails the request's body: an upload stores nothing.
 */
export function registerBodyTimeouts(app: FastifyInstance, limits: BodyTimeouts): void {
  closeAfterEarlyAnswers(app);
  app.addHook('onRequest', async (req, reply) => {
    const raw = req.raw;
    if (raw.complete || !hasBody(raw.headers)) return;
    const expire = (message: string) => () => timeOut(req, reply, message);
    if (req.routeOptions.config?.streamedBody) {
      // The socket's idle timer: the HTTP parser refreshes it on every byte received.
      const onIdle = expire(`No data received for ${limits.uploadIdleTimeoutMs} ms`);
      raw.setTimeout(limits.uploadIdleTimeoutMs, onIdle);
      // Once the body is in, the time the handler takes (storage, database) is the service's, not the client's.
      const done = () => {
        raw.off('timeout', onIdle);
        if (raw.socket && !raw.socket.destroyed) raw.socket.setTimeout(0);
      };
      raw.once('end', done).once('close', done);
    } else {
      const timer = setTimeout(expire(`Request body not received within ${limits.bodyTimeoutMs} ms`), limits.bodyTimeoutMs);
      const done = () => clearTimeout(timer);
      raw.once('end', done).once('close', done);
    }
  });
}

/** How long a connection answered before its body was in may still take to say goodbye. */
const LINGER_MS = 2_000;

/**
 * An answer sent before its request's body is in (a 401, a refused upload, an error) ends the
 * connection: otherwise Node would go on reading the rest of the body for as long as the client
 * cared to send it, a connection held by anyone, signed in or not. The socket lingers briefly so
 * the answer reaches the client before the unread rest is dropped.
 */
function closeAfterEarlyAnswers(app: FastifyInstance): void {
  app.addHook('onSend', async (req, reply, payload) => {
    if (req.raw.complete || !hasBody(req.raw.headers)) return payload;
    reply.header('connection', 'close');
    reply.raw.once('finish', () => {
      const socket = req.raw.socket;
      if (socket && !socket.destroyed) setTimeout(() => socket.destroy(), LINGER_MS).unref();
    });
    return payload;
  });
}

const hasBody = (headers: FastifyRequest['headers']) =>
  headers['transfer-encoding'] !== undefined || (headers['content-length'] !== undefined && headers['content-length'] !== '0');

function timeOut(req: FastifyRequest, reply: FastifyReply, message: string): void {
  req.log.info({ reason: message }, 'request body timed out; closing the connection');
  // Destroying the request (not just its socket) fails whatever is reading the body, so an upload
  // cleans up: once answered, Node no longer aborts a request whose connection closes.
  const abort = () => req.raw.destroy(new AppError(408, message));
  if (reply.sent || reply.raw.headersSent) {
    abort();
    return;
  }
  // Once the answer is out, the connection goes: the rest of the body will never be read.
  reply.raw.once('finish', abort);
  reply.code(408).header('connection', 'close').send({ error: message });
}
