import assert from 'node:assert/strict';
import fs from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import path from 'node:path';
import { eventuallyPasses } from './eventually.js';
import { parseBody, type Client, type Response, type TestService } from './service.js';

/** One part of a hand-built multipart body: a text field, or a file (filename null: no filename parameter at all). */
export type Part = { name: string; value: string } | { name: string; data: Buffer | string; filename?: string | null; type?: string };

let boundaries = 0;

/** A multipart/form-data body built byte by byte, for what FormData cannot express (no filename, repeated parts, truncation). */
export function multipart(parts: Part[], boundary = `test-boundary-${process.pid}-${++boundaries}`): { body: Buffer; contentType: string; boundary: string } {
  const chunks: Buffer[] = [];
  for (const part of parts) {
    chunks.push(partHead(part, boundary));
    chunks.push('value' in part ? Buffer.from(part.value) : Buffer.from(part.data));
    chunks.push(Buffer.from('\r\n'));
  }
  chunks.push(Buffer.from(`--${boundary}--\r\n`));
  return { body: Buffer.concat(chunks), contentType: `multipart/form-data; boundary=${boundary}`, boundary };
}

/** The delimiter and headers of one part, up to the first byte of its content. */
export function partHead(part: Part, boundary: string): Buffer {
  if ('value' in part) return Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="${part.name}"\r\n\r\n`);
  const filename = part.filename === null ? '' : `; filename="${part.filename ?? 'file.bin'}"`;
  return Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="${part.name}"${filename}\r\nContent-Type: ${part.type ?? 'application/octet-stream'}\r\n\r\n`);
}

/** POST /api/upload with a hand-built multipart body (through the client, so its session cookie goes along). */
export function postMultipart(client: Client, parts: Part[]): Promise<Response> {
  const { body, contentType } = multipart(parts);
  return client.request('POST', '/api/upload', { body: new Uint8Array(body), headers: { 'content-type': contentType } });
}

export interface RawResponse {
  status: number;
  headers: http.IncomingHttpHeaders;
  text: string;
  body: unknown;
}

/**
 * A request over http.request whose body is streamed from `body` (chunked unless a content-length
 * header is given), honouring back-pressure. The answer may arrive while the body is still being
 * written: writing then stops, and a write error after the answer (the server closed) is not a failure.
 */
export function streamRequest(
  url: string,
  opts: { method?: string; headers?: Record<string, string>; body: Iterable<Buffer> | AsyncIterable<Buffer> },
): Promise<RawResponse & { bytesWritten: number }> {
  return new Promise((resolve, reject) => {
    const req = http.request(url, { method: opts.method ?? 'POST', headers: opts.headers, agent: false });
    let answered = false;
    let bytesWritten = 0;
    req.on('response', (res) => {
      answered = true;
      const chunks: Buffer[] = [];
      res.on('data', (d: Buffer) => chunks.push(d));
      res.on('error', reject);
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        const body = parseBody(text);
        resolve({ status: res.statusCode!, headers: res.headers, text, body, bytesWritten });
      });
    });
    req.on('error', (err) => {
      if (!answered) reject(err);
    });
    (async () => {
      for await (const chunk of opts.body) {
        if (answered || req.destroyed) break;
        bytesWritten += chunk.length;
        if (!req.write(chunk)) {
          await new Promise<void>((r) => {
            const done = () => {
              req.off('drain', done).off('close', done).off('response', done);
              r();
            };
            req.on('drain', done).on('close', done).on('response', done);
          });
        }
      }
      if (!req.destroyed) req.end();
    })().catch((err: unknown) => {
      req.destroy();
      reject(err as Error);
    });
  });
}

/**
 * A plain GET over node:http. (fetch turns a conditional request into Cache-Control: no-cache,
 * which rightly defeats If-None-Match, so revalidation is tested without it.)
 */
export function httpGet(url: string, headers: Record<string, string> = {}): Promise<{ status: number; headers: http.IncomingHttpHeaders; bytes: Buffer }> {
  return new Promise((resolve, reject) => {
    http
      .get(url, { headers, agent: false }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (d: Buffer) => chunks.push(d));
        res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, bytes: Buffer.concat(chunks) }));
        res.on('error', reject);
      })
      .on('error', reject);
  });
}

/** `count` chunks of `size` bytes each (the same buffer again and again: nothing accumulates). */
export function* repeat(chunk: Buffer, count: number): Generator<Buffer> {
  for (let i = 0; i < count; i++) yield chunk;
}

/**
 * POST /api/upload with the file's bytes streamed from `chunks` (never whole in memory): the fields
 * before the file, or after it with `fileFirst`. Through http.request with the given session cookie.
 */
export function streamUpload(
  baseUrl: string,
  cookie: string,
  upload: { projectId: string; fileType: string; filename: string; type: string; chunks: Iterable<Buffer>; fileFirst?: boolean },
): Promise<RawResponse & { bytesWritten: number }> {
  const boundary = `streamed-${process.pid}-${++boundaries}`;
  const fields: Part[] = [
    { name: 'projectId', value: upload.projectId },
    { name: 'fileType', value: upload.fileType },
  ];
  const fieldBytes = multipart(fields, boundary).body.subarray(0, -`--${boundary}--\r\n`.length);
  function* body(): Generator<Buffer> {
    if (!upload.fileFirst) yield fieldBytes;
    yield partHead({ name: 'file', filename: upload.filename, type: upload.type, data: '' }, boundary);
    yield* upload.chunks;
    yield Buffer.from('\r\n');
    if (upload.fileFirst) yield fieldBytes;
    yield Buffer.from(`--${boundary}--\r\n`);
  }
  return streamRequest(`${baseUrl}/api/upload`, { headers: { cookie, 'content-type': `multipart/form-data; boundary=${boundary}` }, body: body() });
}

/**
 * Sends a request head and part of a body over a bare socket, then hangs up (half-closes and
 * waits for the server to close), as a client that dies mid-upload does.
 */
export function hangUpMidBody(baseUrl: string, head: { path: string; headers: Record<string, string> }, sent: Buffer): Promise<string> {
  const { hostname, port } = new URL(baseUrl);
  return new Promise((resolve, reject) => {
    const socket = net.connect(Number(port), hostname);
    let received = '';
    socket.setEncoding('utf8');
    socket.on('data', (d: string) => (received += d));
    socket.on('error', () => {}); // a reset is a fine way for the server to end it
    socket.on('close', () => resolve(received));
    socket.on('connect', () => {
      const lines = [`POST ${head.path} HTTP/1.1`, `Host: ${hostname}:${port}`, ...Object.entries(head.headers).map(([k, v]) => `${k}: ${v}`)];
      socket.write(`${lines.join('\r\n')}\r\n\r\n`);
      socket.write(sent, () => socket.end());
    });
    setTimeout(() => {
      socket.destroy();
      reject(new Error('the server did not close a connection whose client hung up'));
    }, 10_000).unref();
  });
}

/**
 * A whole request (head and body, with Content-Length) written to a bare socket in one go, so the
 * server has the complete body buffered before its handler starts reading it. Reads the answer
 * until the server closes (Connection: close).
 */
export function sendAtOnce(baseUrl: string, req: { path: string; headers: Record<string, string>; body: Buffer }): Promise<RawResponse> {
  const { hostname, port } = new URL(baseUrl);
  return new Promise((resolve, reject) => {
    const socket = net.connect(Number(port), hostname);
    const chunks: Buffer[] = [];
    socket.on('data', (d: Buffer) => chunks.push(d));
    socket.on('error', reject);
    socket.on('close', () => {
      clearTimeout(timer);
      const raw = Buffer.concat(chunks);
      const split = raw.indexOf('\r\n\r\n');
      if (split < 0) return reject(new Error(`no HTTP answer: ${JSON.stringify(raw.toString())}`));
      const [statusLine, ...headerLines] = raw.subarray(0, split).toString('latin1').split('\r\n');
      const headers: http.IncomingHttpHeaders = {};
      for (const line of headerLines) headers[line.slice(0, line.indexOf(':')).toLowerCase()] = line.slice(line.indexOf(':') + 1).trim();
      let payload = raw.subarray(split + 4);
      if (headers['transfer-encoding'] === 'chunked') {
        const parts: Buffer[] = [];
        for (let at = 0; ; ) {
          const eol = payload.indexOf('\r\n', at);
          const size = parseInt(payload.subarray(at, eol).toString(), 16);
          if (!size) break;
          parts.push(payload.subarray(eol + 2, eol + 2 + size));
          at = eol + 2 + size + 2;
        }
        payload = Buffer.concat(parts);
      }
      const text = payload.toString('utf8');
      const body = parseBody(text);
      resolve({ status: Number(statusLine!.split(' ')[1]), headers, text, body });
    });
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new Error(`no answer within 10 s to a body sent at once (${req.body.length} bytes)`));
    }, 10_000);
    const lines = [
      `POST ${req.path} HTTP/1.1`,
      `Host: ${hostname}:${port}`,
      'Connection: close',
      `Content-Length: ${req.body.length}`,
      ...Object.entries(req.headers).map(([k, v]) => `${k}: ${v}`),
    ];
    socket.write(Buffer.concat([Buffer.from(`${lines.join('\r\n')}\r\n\r\n`), req.body]));
  });
}

/** Every file under a directory, relative to it (none when it does not exist). */
export function filesUnder(dir: string): string[] {
  if (!fs.existsSync(dir)) return [];
  return (fs.readdirSync(dir, { recursive: true, withFileTypes: true }) as fs.Dirent[])
    .filter((e) => !e.isDirectory())
    .map((e) => path.relative(dir, path.join(e.parentPath, e.name)))
    .sort();
}

/** What an upload can leave behind anywhere: stored files, spooled files, FileUpload records and activity entries. */
export interface StoredState {
  uploads: string[];
  tmp: string[];
  activityIds: string[];
  records: Record<string, string[]>;
}

export async function storedState(svc: TestService, projectIds: string[] = []): Promise<StoredState> {
  const activity = await svc.deps.store.activity.list({ all: true }, { limit: 200 });
  const records: Record<string, string[]> = {};
  for (const id of projectIds) records[id] = (await svc.deps.store.files.listForProject(id)).map((f) => f.id);
  return {
    uploads: filesUnder(path.join(svc.dataDir, 'uploads')),
    tmp: filesUnder(path.join(svc.dataDir, 'tmp')),
    activityIds: activity.items.map((a) => a.id),
    records,
  };
}

/** Asserts that nothing was stored since `before`: no new file, no record, no activity entry, and DATA_DIR/tmp empty. */
export async function assertNothingStoredSince(svc: TestService, before: StoredState, message = ''): Promise<void> {
  const now = await storedState(svc, Object.keys(before.records));
  assert.deepEqual(now.uploads, before.uploads, `a file was stored under uploads ${message}`);
  assert.deepEqual(now.tmp, [], `a file was left in DATA_DIR/tmp ${message}`);
  assert.deepEqual(now.activityIds, before.activityIds, `an activity entry was written ${message}`);
  assert.deepEqual(now.records, before.records, `a FileUpload record was written ${message}`);
}

/** Polls until nothing is left behind since `before` (for a client that hung up, the server cleans up on its own time). */
export async function eventuallyNothingStoredSince(svc: TestService, before: StoredState, timeoutMs = 5000): Promise<void> {
  await eventuallyPasses(() => assertNothingStoredSince(svc, before), timeoutMs);
}
