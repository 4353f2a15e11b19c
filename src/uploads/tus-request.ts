import type { IncomingMessage, ServerResponse } from 'node:http';
import { OUTAGE_RETRY_AFTER_SECONDS } from '../domain/outage.js';

/** How much of a PATCH body is gathered before it goes on to the tus store as one piece. */
const PIECE_BYTES = 1024 * 1024;

/** A request handed to the tus server, and what becomes of its body. */
export interface TusRequest {
  request: Request;
  /** True once the body failed before its end (the client broke off or timed out): a failure that follows is the client's. */
  bodyBroken(): boolean;
  /** Stops handing the body on (what is left is then the connection's to drain or close). */
  release(): void;
}

/** The origin the tus server sees: with relative Locations it needs only the path, and a Host that is not a host (`a b`) must not fail it. */
const ORIGIN = 'http://localhost';

/**
 * The Node request as @tus/server reads it (a web Request, its `handleWeb` entry), with the body in
 * pieces of up to 1 MiB. Its own Node entry hands the body on in the socket's 64 KiB chunks, each
 * copied and then passed through six streams one by one: per chunk, that cost more than writing
 * the bytes. The request stays reachable as `runtime.node.req`, as @tus/server's own adapter has it.
 */
export function tusRequest(raw: IncomingMessage, res: ServerResponse): TusRequest {
  const headers = new Headers();
  for (let i = 0; i < raw.rawHeaders.length; i += 2) headers.append(raw.rawHeaders[i]!, raw.rawHeaders[i + 1]!);
  const method = raw.method ?? 'GET';
  const hasBody = method === 'PATCH' || method === 'POST';
  const body = hasBody ? inPieces(raw) : undefined;
  const url = raw.url?.startsWith('/') ? raw.url : `/${raw.url ?? ''}`;
  const request = new Request(new URL(`${ORIGIN}${url}`), {
    method,
    headers,
    body: body?.stream ?? null,
    // @ts-expect-error Node's fetch requires it for a streamed body; the DOM types do not know it
    duplex: 'half',
  });
  Object.assign(request, { runtime: { name: 'node', node: { req: raw, res } } });
  return { request, bodyBroken: () => body?.broken() ?? false, release: () => body?.release() };
}

/**
 * The request body as a web stream of pieces of at least PIECE_BYTES (the last one shorter). The
 * socket's chunks are gathered by reference and joined once; at most one piece waits unread (then
 * the request is paused), so an upload holds at most about 2 MiB here however fast it arrives.
 */
function inPieces(source: IncomingMessage): { stream: ReadableStream<Uint8Array>; broken(): boolean; release(): void } {
  let held: Buffer[] = [];
  let heldBytes = 0;
  let settled = false;
  let broken = false;
  let detach = () => {};
  const stream = new ReadableStream<Uint8Array>(
    {
      start(controller) {
        const enqueueHeld = () => {
          if (!heldBytes) return;
          controller.enqueue(held.length === 1 ? held[0]! : Buffer.concat(held, heldBytes));
          held = [];
          heldBytes = 0;
        };
        const fail = (err: Error) => {
          if (settled) return;
          settled = true;
          broken = true;
          held = [];
          controller.error(err);
        };
        const onData = (chunk: Buffer) => {
          held.push(chunk);
          heldBytes += chunk.length;
          if (heldBytes < PIECE_BYTES) return;
          enqueueHeld();
          if ((controller.desiredSize ?? 0) <= 0) source.pause();
        };
        const onEnd = () => {
          if (settled) return;
          settled = true;
          enqueueHeld();
          controller.close();
        };
        // A client gone mid-body: the stream fails; the store keeps what it wrote and the client resumes from that offset.
        const onClose = () => fail(new Error('aborted'));
        source.pause();
        source.on('data', onData).once('end', onEnd).once('error', fail).once('close', onClose);
        detach = () => {
          source.off('data', onData).off('end', onEnd).off('error', fail).off('close', onClose);
          source.pause();
        };
      },
      pull() {
        source.resume();
      },
      cancel() {
        settled = true;
        held = [];
        detach();
      },
    },
    { highWaterMark: 1 },
  );
  return {
    stream,
    broken: () => broken,
    release: () => {
      settled = true;
      held = [];
      detach();
    },
  };
}

/**
 * Sends @tus/server's answer on the Node response. An error is sent as every answer of the service
 * is, `{"error": message}` in JSON, its tus headers (Tus-Resumable, Upload-Offset) kept, and with
 * the status that says whose mistake it was (errorAnswer).
 */
export async function sendTusResponse(res: ServerResponse, response: Response, bodyBroken = false): Promise<void> {
  let body = response.body ? Buffer.from(await response.arrayBuffer()) : undefined;
  if (res.headersSent || res.destroyed) return;
  let status = response.status;
  const headers = new Headers(response.headers);
  // The tus server closes the connection of a request it gave up on: the unread rest of the body is drained instead (http/timeouts.ts), or the client could not read this answer.
  headers.delete('connection');
  if (status >= 400) {
    const answer = errorAnswer(status, body?.toString('utf8') ?? '', bodyBroken);
    status = answer.status;
    body = Buffer.from(JSON.stringify({ error: answer.error }));
    headers.set('content-type', 'application/json; charset=utf-8');
    headers.set('content-length', String(body.length));
    if (answer.retryAfter) headers.set('retry-after', answer.retryAfter);
  }
  const list: string[] = [];
  for (const [name, value] of headers) list.push(name, value);
  res.writeHead(status, list);
  await new Promise<void>((resolve) => res.end(body, resolve));
}

/**
 * The status and message of a tus error answer. Ours (a refusal of the checks or of the
 * completion) are JSON already and kept; @tus/server's own are short texts, kept as the message
 * but with a client's mistake always a 4xx: an extension we do not offer is the client's request
 * (not 501), a missing header a 400 (not 403), a lock held by another request of the same upload
 * 423 (not 500), and a failure after the body broke off the client's.
 */
export function errorAnswer(status: number, text: string, bodyBroken: boolean): { status: number; error: string; retryAfter?: string } {
  const ours = parseError(text);
  if (ours !== null) return status === 503 ? { status, error: ours, retryAfter: String(OUTAGE_RETRY_AFTER_SECONDS) } : { status, error: ours };
  const message = text.trim();
  if (status === 501) return { status: 400, error: /concatenation/i.test(message) ? 'Upload-Concat is not supported: send the file as one upload (no parallel uploads)' : message || 'Not supported' };
  if (status === 403) return { status: 400, error: message.replace(/ header required$/, ' is required') };
  if (status === 404) return { status, error: 'Upload not found' };
  if (status === 412) return { status, error: 'Tus-Resumable: 1.0.0 is required' };
  if (status >= 500 && /lock/i.test(message)) return { status: 423, error: 'The upload is busy with another request; try again in a moment', retryAfter: '1' };
  if (status >= 500 && bodyBroken) return { status: 400, error: 'The request body broke off before its end' };
  return { status, error: message || (status >= 500 ? 'Upload failed' : 'Bad request') };
}

function parseError(text: string): string | null {
  try {
    const parsed: unknown = JSON.parse(text);
    const error = (parsed as { error?: unknown } | null)?.error;
    return typeof error === 'string' ? error : null;
  } catch {
    return null;
  }
}
