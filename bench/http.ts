import { randomBytes } from 'node:crypto';
import http from 'node:http';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';

/** The benchmark only ever talks to the service it started, on the loopback address. */
export const HOST = '127.0.0.1';

export interface HttpResult {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: Buffer;
  /** The body's length in bytes (also when it was not kept). */
  bytes: number;
  /** From the request's start to the response's last byte. */
  ms: number;
}

export interface RequestOptions {
  port: number;
  method: string;
  path: string;
  headers?: Record<string, string | number>;
  /** A small body sent whole; large bodies go through {@link streamUpload}. */
  body?: string | Buffer;
  agent?: http.Agent;
  timeoutMs: number;
  /** Count the answer's bytes without keeping them (a load of large answers: the client's work is not what is measured). */
  discardBody?: boolean;
}

/** One HTTP request to 127.0.0.1; the response body is read whole (small answers only). */
export function request(opts: RequestOptions, stream?: () => Readable): Promise<HttpResult> {
  const started = performance.now();
  return new Promise<HttpResult>((resolve, reject) => {
    let settled = false;
    const finish = (err: Error | null, result?: HttpResult) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      if (err) reject(err);
      else resolve(result!);
    };
    const req = http.request(
      { host: HOST, port: opts.port, method: opts.method, path: opts.path, headers: opts.headers, agent: opts.agent ?? false },
      (res) => {
        const chunks: Buffer[] = [];
        let bytes = 0;
        res.on('data', (c: Buffer) => {
          bytes += c.length;
          if (!opts.discardBody) chunks.push(c);
        });
        res.on('error', (err) => finish(err));
        res.on('end', () => finish(null, { status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks), bytes, ms: performance.now() - started }));
      },
    );
    const timer = setTimeout(() => req.destroy(new Error(`${opts.method} ${opts.path}: no answer within ${opts.timeoutMs} ms`)), opts.timeoutMs);
    req.on('error', (err) => finish(err));
    if (stream) {
      // The server may answer (and stop reading) before the body ends: the answer then wins.
      pipeline(stream(), req).catch((err: Error) => setTimeout(() => finish(err), 1000));
    } else {
      req.end(opts.body);
    }
  });
}

/** JSON request carrying the session cookie (when given); throws unless the status is the expected one. */
export async function jsonRequest<T>(port: number, method: string, path: string, json: unknown, expected: number, cookie?: string): Promise<{ body: T; res: HttpResult }> {
  const body = json === undefined ? undefined : JSON.stringify(json);
  const headers: Record<string, string | number> = {};
  if (body !== undefined) {
    headers['content-type'] = 'application/json';
    headers['content-length'] = Buffer.byteLength(body);
  }
  if (cookie) headers.cookie = cookie;
  const res = await request({ port, method, path, headers, body, timeoutMs: 30_000 });
  if (res.status !== expected) throw new Error(`${method} ${path}: expected ${expected}, got ${res.status}: ${res.body.toString('utf8').slice(0, 500)}`);
  return { body: JSON.parse(res.body.toString('utf8')) as T, res };
}

/** The `session=…` pair of a login answer's Set-Cookie. */
export function sessionCookie(res: HttpResult): string {
  const setCookie = res.headers['set-cookie'] ?? [];
  for (const c of setCookie) {
    const m = /^session=([^;]+)/.exec(c);
    if (m) return `session=${m[1]}`;
  }
  throw new Error('login answered without a session cookie');
}

/**
 * A reusable block of file content: random bytes without CR, so no run of them can ever look like
 * the multipart delimiter ("\r\n--boundary").
 */
export function contentBlock(size: number): Buffer {
  const block = randomBytes(size);
  for (let i = 0; i < block.length; i++) if (block[i] === 0x0d) block[i] = 0x0e;
  return block;
}

/** `size` bytes as slices of the one block: the file never exists whole in the client's memory. */
export function* fileBytes(size: number, block: Buffer): Generator<Buffer> {
  let left = size;
  while (left > 0) {
    const n = Math.min(left, block.length);
    yield n === block.length ? block : block.subarray(0, n);
    left -= n;
  }
}

export interface UploadOptions {
  port: number;
  /** Default /api/upload. */
  path?: string;
  cookie: string;
  agent?: http.Agent;
  /** Text fields, sent in this order before the file part. */
  fields: [string, string][];
  filename: string;
  contentType: string;
  size: number;
  block: Buffer;
  timeoutMs: number;
}

/** POST /api/upload (or opts.path): multipart body streamed from {@link fileBytes}, with an exact Content-Length. */
export function streamUpload(opts: UploadOptions): Promise<HttpResult> {
  const boundary = `----bench${randomBytes(12).toString('hex')}`;
  let head = '';
  for (const [name, value] of opts.fields) {
    head += `--${boundary}\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`;
  }
  head += `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="${opts.filename}"\r\nContent-Type: ${opts.contentType}\r\n\r\n`;
  const headBuf = Buffer.from(head, 'utf8');
  const tailBuf = Buffer.from(`\r\n--${boundary}--\r\n`, 'utf8');
  function* body(): Generator<Buffer> {
    yield headBuf;
    yield* fileBytes(opts.size, opts.block);
    yield tailBuf;
  }
  return request(
    {
      port: opts.port,
      method: 'POST',
      path: opts.path ?? '/api/upload',
      headers: {
        cookie: opts.cookie,
        'content-type': `multipart/form-data; boundary=${boundary}`,
        'content-length': headBuf.length + opts.size + tailBuf.length,
      },
      agent: opts.agent,
      timeoutMs: opts.timeoutMs,
    },
    () => Readable.from(body(), { objectMode: false, highWaterMark: 1024 * 1024 }),
  );
}

export interface TusUploadOptions {
  port: number;
  /** The creation endpoint, e.g. /api/resumable-uploads. */
  path: string;
  cookie: string;
  metadata: Record<string, string>;
  size: number;
  /** Bytes per PATCH. */
  chunkSize: number;
  block: Buffer;
  timeoutMs: number;
}

/**
 * A tus 1.0 upload with the client of {@link streamUpload}: a creation, then one PATCH of `chunkSize`
 * after another on one kept-alive connection, each body sent in the block's slices; resolves to the
 * upload's path. The same client on both sides of a ratio measures the servers, not the clients.
 */
export async function tusUpload(opts: TusUploadOptions): Promise<string> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  try {
    const metadata = Object.entries(opts.metadata)
      .map(([k, v]) => `${k} ${Buffer.from(v, 'utf8').toString('base64')}`)
      .join(',');
    const created = await request({
      port: opts.port,
      method: 'POST',
      path: opts.path,
      headers: { cookie: opts.cookie, 'tus-resumable': '1.0.0', 'upload-length': opts.size, 'upload-metadata': metadata },
      agent,
      timeoutMs: opts.timeoutMs,
    });
    const location = created.headers.location;
    if (created.status !== 201 || !location) throw new Error(`tus creation: ${created.status} ${created.body.toString().slice(0, 200)}`);
    const uploadPath = new URL(location, `http://${HOST}`).pathname;
    for (let offset = 0; offset < opts.size; ) {
      const length = Math.min(opts.chunkSize, opts.size - offset);
      const patched = await request(
        {
          port: opts.port,
          method: 'PATCH',
          path: uploadPath,
          headers: {
            cookie: opts.cookie,
            'tus-resumable': '1.0.0',
            'upload-offset': offset,
            'content-type': 'application/offset+octet-stream',
            'content-length': length,
          },
          agent,
          timeoutMs: opts.timeoutMs,
        },
        () => Readable.from(fileBytes(length, opts.block), { objectMode: false, highWaterMark: 1024 * 1024 }),
      );
      if (patched.status !== 204) throw new Error(`tus PATCH at ${offset}: ${patched.status} ${patched.body.toString().slice(0, 200)}`);
      offset = Number(patched.headers['upload-offset']);
    }
    return uploadPath;
  } finally {
    agent.destroy();
  }
}
