import type { IncomingMessage } from 'node:http';
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
 * and the connection is closed, which fails the request's body: an upload stores nothing. A body
 * answered before it was in is read to its end within the drain limits, so the answer reaches the client.
 */
export function registerBodyTimeouts(app: FastifyInstance, limits: BodyTimeouts & DrainLimits): void {
  drainAfterEarlyAnswers(app, limits);
  app.addHook('onRequest', async (req, reply) => {
    const raw = req.raw;
    if (raw.complete || !hasBody(raw.headers)) return;
    const streamed = req.routeOptions.config?.streamedBody === true;
    const expire = (message: string) => () => timeOut(req, reply, message, streamed);
    if (streamed) {
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

/** How much of a body that will not be used is still read after an early answer (README, Timeouts). */
export interface DrainLimits {
  /** UNREAD_BODY_DRAIN_MS: the rest must have arrived this long after the answer. */
  drainMs: number;
  /** UNREAD_BODY_DRAIN_BYTES: at most this much of it is read. */
  drainBytes: number;
}

/**
 * An answer sent before its request's body is in (a 401, a refused upload, an error) is followed
 * by reading the rest of the body and dropping it: a client that is still sending would otherwise
 * meet a closed connection, and the reset that follows destroys the answer it has not yet read
 * (Node's fetch reports EPIPE instead of 401). Reading is bounded, so nobody holds a connection by
 * sending forever: past the limits the connection is closed.
 */
function drainAfterEarlyAnswers(app: FastifyInstance, limits: DrainLimits): void {
  app.addHook('onSend', async (req, reply, payload) => {
    // A connection already meant to close (a body that timed out, shutdown) is not kept for its body.
    if (req.raw.complete || !hasBody(req.raw.headers) || /close/i.test(String(reply.getHeader('connection') ?? ''))) return payload;
    drainUnreadBody(req.raw, limits);
    return payload;
  });
}

/**
 * Reads and drops what is left of a request body that was answered already, then leaves the
 * connection to keep-alive; past `drainMs` or `drainBytes` the connection is closed instead. For
 * answers sent outside Fastify's reply (the tus server's), call it once the answer is out.
 */
export function drainUnreadBody(req: IncomingMessage, { drainMs, drainBytes }: DrainLimits): void {
  const socket = req.socket;
  if (req.complete || req.destroyed || !socket || socket.destroyed) return;
  let read = 0;
  const stop = () => {
    clearTimeout(deadline);
    req.off('data', count).off('end', stop);
    socket.off('close', stop);
  };
  const cut = () => {
    stop();
    socket.destroy();
  };
  const count = (chunk: Buffer) => {
    read += chunk.length;
    if (read > drainBytes) cut();
  };
  const deadline = setTimeout(cut, drainMs).unref();
  // A listener of our own (rather than Node's dump, which drops bytes unseen) so they can be counted.
  req.on('data', count).once('end', stop);
  socket.once('close', stop);
  req.resume();
}

const hasBody = (headers: FastifyRequest['headers']) =>
  headers['transfer-encoding'] !== undefined || (headers['content-length'] !== undefined && headers['content-length'] !== '0');

function timeOut(req: FastifyRequest, reply: FastifyReply, message: string, streamed: boolean): void {
  req.log.info({ reason: message }, 'request body timed out; closing the connection');
  // Destroying a streamed request with an error fails whatever is reading the body, so an upload
  // cleans up (once answered, Node no longer aborts a request whose connection closes). A body read
  // whole is Fastify's parser's, which would answer that error a second time: it is just closed.
  const abort = () => (streamed ? req.raw.destroy(new AppError(408, message)) : req.raw.destroy());
  if (reply.sent || reply.raw.headersSent) {
    abort();
    return;
  }
  // Once the answer is out, the connection goes: the rest of the body will never be read.
  reply.raw.once('finish', abort);
  reply.code(408).header('connection', 'close').send({ error: message });
}
