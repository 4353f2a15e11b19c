import type { IncomingMessage, ServerResponse } from 'node:http';

/** How much of a PATCH body is gathered before it goes on to the tus store as one piece. */
const PIECE_BYTES = 1024 * 1024;

/**
 * The Node request as @tus/server reads it (a web Request, its `handleWeb` entry), with the body in
 * pieces of up to 1 MiB. Its own Node entry hands the body on in the socket's 64 KiB chunks, each
 * copied and then passed through six streams one by one: per chunk, that cost more than writing
 * the bytes. The request stays reachable as `runtime.node.req`, as @tus/server's own adapter has it.
 */
export function tusRequest(raw: IncomingMessage, res: ServerResponse): Request {
  const headers = new Headers();
  for (let i = 0; i < raw.rawHeaders.length; i += 2) headers.append(raw.rawHeaders[i]!, raw.rawHeaders[i + 1]!);
  const method = raw.method ?? 'GET';
  const hasBody = method === 'PATCH' || method === 'POST';
  const request = new Request(new URL(raw.url ?? '/', `http://${raw.headers.host ?? 'localhost'}`), {
    method,
    headers,
    body: hasBody ? inPieces(raw) : null,
    // @ts-expect-error Node's fetch requires it for a streamed body; the DOM types do not know it
    duplex: 'half',
  });
  return Object.assign(request, { runtime: { name: 'node', node: { req: raw, res } } });
}

/**
 * The request body as a web stream of pieces of at least PIECE_BYTES (the last one shorter). The
 * socket's chunks are gathered by reference and joined once; at most one piece waits unread (then
 * the request is paused), so an upload holds at most about 2 MiB here however fast it arrives.
 */
function inPieces(source: IncomingMessage): ReadableStream<Uint8Array> {
  let held: Buffer[] = [];
  let heldBytes = 0;
  let settled = false;
  return new ReadableStream<Uint8Array>(
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
          held = [];
          controller.error(err);
        };
        source.pause();
        source.on('data', (chunk: Buffer) => {
          held.push(chunk);
          heldBytes += chunk.length;
          if (heldBytes < PIECE_BYTES) return;
          enqueueHeld();
          if ((controller.desiredSize ?? 0) <= 0) source.pause();
        });
        source.once('end', () => {
          if (settled) return;
          settled = true;
          enqueueHeld();
          controller.close();
        });
        source.once('error', fail);
        // A client gone mid-body: the stream fails; the store keeps what it wrote and the client resumes from that offset.
        source.once('close', () => fail(new Error('aborted')));
      },
      pull() {
        source.resume();
      },
      cancel() {
        settled = true;
        held = [];
        source.pause();
      },
    },
    { highWaterMark: 1 },
  );
}

/** Sends @tus/server's answer (its bodies are short texts) on the Node response. */
export async function sendTusResponse(res: ServerResponse, response: Response): Promise<void> {
  const body = response.body ? Buffer.from(await response.arrayBuffer()) : undefined;
  if (res.headersSent || res.destroyed) return;
  const headers: string[] = [];
  for (const [name, value] of response.headers) headers.push(name, value);
  res.writeHead(response.status, headers);
  await new Promise<void>((resolve) => res.end(body, resolve));
}
