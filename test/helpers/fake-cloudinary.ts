import { createHash, randomBytes } from 'node:crypto';
import http from 'node:http';
import type net from 'node:net';
import { Busboy, type BusboyHeaders, type BusboyInstance } from '@fastify/busboy';

/**
 * A small real HTTP server that answers what the cloudinary driver calls, the way Cloudinary does:
 * the Upload API (`POST /v1_1/<cloud>/<resource type>/upload` and `/destroy`, multipart, signed)
 * and the Admin API's `GET /v1_1/<cloud>/ping` (HTTP Basic). Signatures are checked as Cloudinary
 * documents them and the SDK's api_sign_request computes them: every parameter but file, api_key,
 * resource_type, cloud_name and signature, without empty ones, sorted by name, `name=value` joined
 * by `&` (an `&` inside a pair escaped as `%26`), followed by the API secret, SHA-1 in hex.
 * With `serveAssets`, secure URLs point at the fake, which answers a GET on one with the stored
 * bytes (404 once destroyed), as Cloudinary's delivery does. An asset uploaded with `type: private`
 * (or `authenticated`) is refused there (401), and answers only the signed download API
 * (`GET /v1_1/<cloud>/<resource type>/download?…`, what the SDK's private_download_url makes): a valid
 * signature over its parameters and an `expires_at` still ahead (Cloudinary's default, an hour).
 */
export interface FakeCloudinary {
  /** The upload prefix (CLOUDINARY_UPLOAD_PREFIX) to point the SDK at. */
  url: string;
  cloudName: string;
  apiKey: string;
  /** The secret the fake accepts now. */
  apiSecret: string;
  /** The service's settings for this cloud (STORAGE_DRIVER=cloudinary). */
  env(): Record<string, string>;
  requests: FakeRequest[];
  /** Stored assets by `<resource type>/<public id>`. */
  assets: Map<string, FakeAsset>;
  /** From now on only this secret is accepted (the service's one is revoked). */
  rotateSecret(secret: string): void;
  /** Another writer takes the public id of the next upload just before the fake processes it. */
  takeNextUploadName(): void;
  /** With `serveAssets`: later secure URLs start with origin (a front of the fake, such as a TCP proxy) instead of the fake's own address. */
  deliverFrom(origin: string): void;
  /** While true, requests are accepted and never answered (a cloud that hangs). */
  stall: boolean;
  close(): Promise<void>;
}

export interface FakeRequest {
  method: string;
  path: string;
  action: string;
  resourceType?: string;
  /** The signed parameters (text fields) as received. */
  params: Record<string, string>;
  /** The file part: its multipart filename and Content-Type, and how many bytes it carried. */
  file?: { filename: string | undefined; contentType: string; size: number };
  authorization?: string;
  status: number;
  answer: unknown;
}

export interface FakeAsset {
  publicId: string;
  resourceType: string;
  format: string | undefined;
  bytes: Buffer;
  version: number;
  accessMode: string;
  /** The delivery type: `upload` (public), `private` or `authenticated`. */
  type: string;
  secureUrl: string;
}

export const INTRUDER_ASSET_BYTES = Buffer.from('%PDF-1.4\n% an earlier writer\n%%EOF\n');

/** Cloudinary's string to sign (signature version 2). */
export function stringToSign(params: Record<string, string>): string {
  return Object.entries(params)
    .filter(([k, v]) => !['file', 'api_key', 'resource_type', 'cloud_name', 'signature'].includes(k) && v !== '')
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([k, v]) => `${k}=${v}`.replace(/&/g, '%26'))
    .join('&');
}

export async function startFakeCloudinary(opts: { cloudName?: string; apiKey?: string; apiSecret?: string; serveAssets?: boolean } = {}): Promise<FakeCloudinary> {
  const cloudName = opts.cloudName ?? 'test-cloud';
  const apiKey = opts.apiKey ?? '123456789012345';
  let apiSecret = opts.apiSecret ?? 'fake-api-secret';
  let takeNext = false;
  const assets = new Map<string, FakeAsset>();
  const requests: FakeRequest[] = [];
  // Known once listening; the delivery path is res.cloudinary.com's.
  let deliveryOrigin = 'https://res.cloudinary.com';

  const store = (resourceType: string, publicId: string, bytes: Buffer, format: string | undefined, accessMode: string, type = 'upload'): FakeAsset => {
    const version = Math.floor(Date.now() / 1000);
    // A private or authenticated asset's URL carries a signature component, as Cloudinary's do.
    const signed = type === 'upload' ? '' : `s--${createHash('sha1').update(`${publicId}${apiSecret}`).digest('base64url').slice(0, 8)}--/`;
    const asset: FakeAsset = {
      publicId,
      resourceType,
      format,
      bytes,
      version,
      accessMode,
      type,
      secureUrl: `${deliveryOrigin}/${cloudName}/${resourceType}/${type}/${signed}v${version}/${publicId}${format ? `.${format}` : ''}`,
    };
    assets.set(`${resourceType}/${publicId}`, asset);
    return asset;
  };

  const server = http.createServer((req, res) => {
    const url = new URL(req.url!, 'http://fake');
    const record: FakeRequest = { method: req.method!, path: url.pathname, action: '', params: {}, status: 0, answer: undefined, authorization: req.headers.authorization };
    requests.push(record);
    if (fake.stall) return;
    const send = (status: number, answer: unknown) => {
      record.status = status;
      record.answer = answer;
      res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(answer));
    };
    const refuse = (status: number, message: string) => send(status, { error: { message } });

    if (opts.serveAssets && req.method === 'GET' && !url.pathname.startsWith('/v1_1/')) {
      req.resume();
      record.action = 'deliver';
      const asset = [...assets.values()].find((a) => new URL(a.secureUrl).pathname === url.pathname);
      record.status = asset ? 200 : 404;
      if (!asset) return res.writeHead(404, { 'content-type': 'text/plain' }).end('Resource not found');
      if (asset.type !== 'upload') {
        record.status = 401;
        return res.writeHead(401, { 'content-type': 'text/plain' }).end('Resource requires a signed download');
      }
      return res.writeHead(200, { 'content-type': DELIVERY_TYPES[asset.format ?? ''] ?? 'application/octet-stream', 'content-length': asset.bytes.length }).end(asset.bytes);
    }

    const m = /^\/v1_1\/([^/]+)\/(?:(image|video|raw|auto)\/)?(upload|destroy|ping|download)$/.exec(url.pathname);
    if (!m) {
      req.resume();
      return refuse(404, `Unknown path ${url.pathname}`);
    }
    const [, cloud, resourceType, action] = m;
    record.action = action!;
    record.resourceType = resourceType;
    if (cloud !== cloudName) {
      req.resume();
      return refuse(401, `Invalid cloud_name ${cloud}`);
    }

    if (action === 'download') {
      req.resume();
      // HEAD as any HTTP server answers it (RFC 9110: general-purpose servers support GET and HEAD): the GET's headers.
      if (req.method !== 'GET' && req.method !== 'HEAD') return refuse(404, 'Not found');
      const params = Object.fromEntries(url.searchParams);
      record.params = params;
      if (params.api_key !== apiKey) return refuse(401, `Unknown API key ${params.api_key ?? ''}`);
      const toSign = stringToSign(params);
      if (params.signature !== createHash('sha1').update(toSign + apiSecret).digest('hex')) return refuse(401, `Invalid Signature ${params.signature ?? ''}. String to sign - '${toSign}'.`);
      const expiresAt = Number(params.expires_at ?? Number(params.timestamp) + 3600);
      if (!Number.isFinite(expiresAt) || expiresAt < Date.now() / 1000) return refuse(401, 'Download link has expired');
      const asset = assets.get(`${resourceType ?? 'image'}/${params.public_id ?? ''}`);
      if (!asset || asset.type !== (params.type ?? 'upload') || (params.format && params.format !== asset.format)) return refuse(404, 'Resource not found');
      record.status = 200;
      return res
        .writeHead(200, { 'content-type': DELIVERY_TYPES[asset.format ?? ''] ?? 'application/octet-stream', 'content-length': asset.bytes.length })
        .end(asset.bytes);
    }

    if (action === 'ping') {
      req.resume();
      const [key, secret] = Buffer.from((req.headers.authorization ?? '').replace(/^Basic /, ''), 'base64').toString().split(':');
      if (req.method !== 'GET') return refuse(404, 'Not found');
      if (key !== apiKey || secret !== apiSecret) return refuse(401, `Invalid api_key ${key ?? ''} or api_secret`);
      return send(200, { status: 'ok' });
    }

    readMultipart(req).then(
      ({ params, file }) => {
        record.params = params;
        if (file) record.file = { filename: file.filename, contentType: file.contentType, size: file.bytes.length };
        // Authentication, as Cloudinary checks a signed request.
        if (params.api_key !== apiKey) return refuse(401, `Unknown API key ${params.api_key ?? ''}`);
        const timestamp = Number(params.timestamp);
        if (!params.timestamp || !Number.isFinite(timestamp)) return refuse(401, 'Missing required parameter - timestamp');
        if (Math.abs(Date.now() / 1000 - timestamp) > 3600) return refuse(401, `Stale request - reported time is ${new Date(timestamp * 1000).toISOString()} which is more than 1 hour ago`);
        const toSign = stringToSign(params);
        const expected = createHash('sha1').update(toSign + apiSecret).digest('hex');
        if (params.signature !== expected) return refuse(401, `Invalid Signature ${params.signature ?? ''}. String to sign - '${toSign}'.`);

        if (action === 'destroy') {
          if (!params.public_id) return refuse(400, 'Missing required parameter - public_id');
          const key = `${resourceType ?? 'image'}/${params.public_id}`;
          if (assets.get(key)?.type !== (params.type ?? 'upload')) return send(200, { result: 'not found' });
          return send(200, { result: assets.delete(key) ? 'ok' : 'not found' });
        }

        if (!file) return refuse(400, 'Missing required parameter - file');
        if (file.bytes.length === 0) return refuse(400, 'Empty file');
        const detected = detect(file.bytes);
        const type = resourceType === 'auto' || !resourceType ? detected.resourceType : resourceType;
        if (type !== 'raw' && type !== detected.resourceType) return refuse(400, 'Invalid image file');
        const publicId = [params.folder, params.public_id ?? randomBytes(10).toString('hex')].filter(Boolean).join('/');
        const overwrite = !['0', 'false'].includes(params.overwrite ?? 'true');
        if (takeNext) {
          takeNext = false;
          store(type, publicId, INTRUDER_ASSET_BYTES, detected.format, 'public');
        }
        const existing = assets.get(`${type}/${publicId}`);
        if (existing && !overwrite) return send(200, { ...describeAsset(existing), existing: true });
        const asset = store(type, publicId, file.bytes, type === 'raw' ? undefined : detected.format, params.access_mode ?? 'public', params.type ?? 'upload');
        return send(200, { ...describeAsset(asset), original_filename: file.filename?.replace(/\.[^.]*$/, '') ?? 'file' });
      },
      (err: Error) => refuse(400, `Malformed multipart body: ${err.message}`),
    );
  });

  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const url = `http://127.0.0.1:${(server.address() as net.AddressInfo).port}`;
  if (opts.serveAssets) deliveryOrigin = url;

  const fake: FakeCloudinary = {
    url,
    cloudName,
    apiKey,
    get apiSecret() {
      return apiSecret;
    },
    env: () => ({
      STORAGE_DRIVER: 'cloudinary',
      CLOUDINARY_CLOUD_NAME: cloudName,
      CLOUDINARY_API_KEY: apiKey,
      CLOUDINARY_API_SECRET: apiSecret,
      CLOUDINARY_UPLOAD_PREFIX: url,
    }),
    requests,
    assets,
    rotateSecret: (secret) => (apiSecret = secret),
    takeNextUploadName: () => (takeNext = true),
    deliverFrom: (origin) => (deliveryOrigin = origin),
    stall: false,
    close: () =>
      new Promise((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
  return fake;
}

function describeAsset(a: FakeAsset) {
  return {
    asset_id: createHash('md5').update(`${a.resourceType}/${a.publicId}`).digest('hex'),
    public_id: a.publicId,
    version: a.version,
    signature: createHash('sha1').update(`${a.publicId}${a.version}`).digest('hex'),
    ...(a.format ? { format: a.format } : {}),
    resource_type: a.resourceType,
    created_at: new Date(a.version * 1000).toISOString(),
    tags: [],
    bytes: a.bytes.length,
    type: a.type,
    etag: createHash('md5').update(a.bytes).digest('hex'),
    placeholder: false,
    url: a.secureUrl.replace(/^https:/, 'http:'),
    secure_url: a.secureUrl,
    access_mode: a.accessMode,
  };
}

const DELIVERY_TYPES: Record<string, string> = { pdf: 'application/pdf', png: 'image/png', jpg: 'image/jpeg', gif: 'image/gif', mp4: 'video/mp4' };

/** What Cloudinary's "auto" makes of some bytes: images (PDF included) and MP4 by their signature, anything else raw. */
function detect(bytes: Buffer): { resourceType: string; format: string | undefined } {
  const starts = (sig: string | number[]) => bytes.subarray(0, sig.length).equals(Buffer.from(sig as string));
  if (starts('%PDF')) return { resourceType: 'image', format: 'pdf' };
  if (starts([0x89, 0x50, 0x4e, 0x47])) return { resourceType: 'image', format: 'png' };
  if (starts([0xff, 0xd8, 0xff])) return { resourceType: 'image', format: 'jpg' };
  if (starts('GIF8')) return { resourceType: 'image', format: 'gif' };
  if (bytes.subarray(4, 8).toString('latin1') === 'ftyp') return { resourceType: 'video', format: 'mp4' };
  return { resourceType: 'raw', format: undefined };
}

/** The text fields and the one file part of a multipart body, parsed as it streams in. */
function readMultipart(req: http.IncomingMessage): Promise<{ params: Record<string, string>; file?: { filename: string | undefined; contentType: string; bytes: Buffer } }> {
  return new Promise((resolve, reject) => {
    const params: Record<string, string> = {};
    let file: { filename: string | undefined; contentType: string; bytes: Buffer } | undefined;
    let fileDone: Promise<void> = Promise.resolve();
    let busboy: BusboyInstance;
    try {
      busboy = Busboy({ headers: req.headers as BusboyHeaders });
    } catch (err) {
      req.resume();
      return reject(err as Error);
    }
    busboy.on('field', (name: string, value: string) => (params[name] = value));
    busboy.on('file', (name: string, stream: NodeJS.ReadableStream, filename: string | undefined, _encoding: string, contentType: string) => {
      const chunks: Buffer[] = [];
      stream.on('data', (d: Buffer) => chunks.push(d));
      fileDone = new Promise((done) =>
        stream.on('end', () => {
          if (name === 'file') file = { filename, contentType, bytes: Buffer.concat(chunks) };
          done();
        }),
      );
    });
    busboy.on('error', reject);
    busboy.on('finish', () => void fileDone.then(() => resolve({ params, file })));
    req.pipe(busboy);
  });
}
