import { createHash, createHmac } from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import type net from 'node:net';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { S3RequestPresigner } from '@aws-sdk/s3-request-presigner';

/** s3rver (no type declarations of its own): what the tests use of it. */
interface S3rverInstance {
  run(): Promise<net.AddressInfo>;
  close(): Promise<void>;
  httpServer?: http.Server;
}
type S3rverOptions = { address: string; port: number; directory: string; silent: boolean; configureBuckets: { name: string }[] };
const S3rver = createRequire(import.meta.url)('s3rver') as new (options: S3rverOptions) => S3rverInstance;

/** A real S3-compatible server (s3rver) on 127.0.0.1, on a temporary directory, with one bucket. */
export interface S3Server {
  endpoint: string;
  bucket: string;
  /** Where s3rver keeps the bucket's objects. */
  dir: string;
  /** The service's settings for this store (STORAGE_DRIVER=s3, static keys), pointing at `endpoint` unless told otherwise. */
  env(endpoint?: string): Record<string, string>;
  /** An object's bytes and headers as a public client reads them (unsigned GET). */
  get(key: string): Promise<{ status: number; headers: Headers; bytes: Buffer }>;
  /** Every object key in the bucket, sorted. */
  keys(): string[];
  /** Multipart uploads begun and neither completed nor aborted. */
  pendingUploads(): string[];
  /** The same, with each one's key and when it began (what ListMultipartUploads answers). */
  pendingUploadDetails(): { uploadId: string; key: string; initiated: Date }[];
  /** A multipart upload's parts so far (what ListParts answers); undefined once it is completed or aborted. */
  uploadParts(uploadId: string): { number: number; size: number; md5: string }[] | undefined;
  /** Drops a multipart upload's parts (s3rver has no AbortMultipartUpload; the front answers it with this). */
  discardUpload(uploadId: string): void;
  /** Writes an object directly (unsigned), as another writer would. */
  putDirect(key: string, bytes: Buffer | string): Promise<void>;
  /** Stops listening and drops every connection, as a crashed store would. */
  stop(): Promise<void>;
  /** Listens again on the same port, with the same objects. */
  restart(): Promise<void>;
  /** stop() and remove the directory. */
  close(): Promise<void>;
}

/** How s3rver names an object's bytes on disk: `<key>._S3rver_object`. */
const OBJECT_SUFFIX = '._S3rver_object';

export const S3_KEYS = { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' };

export async function startS3Server(bucket = 'print-orders-test'): Promise<S3Server> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 's3rver-'));
  let port = 0;
  let instance: S3rverInstance | undefined;
  const start = async () => {
    const server = new S3rver({ address: '127.0.0.1', port, directory: dir, silent: true, configureBuckets: [{ name: bucket }] });
    port = (await server.run()).port;
    instance = server;
  };
  await start();
  const endpoint = `http://127.0.0.1:${port}`;
  const objectUrl = (key: string) => `${endpoint}/${bucket}/${key.split('/').map(encodeURIComponent).join('/')}`;

  const s3: S3Server = {
    endpoint,
    bucket,
    dir,
    env: (through = endpoint) => ({
      STORAGE_DRIVER: 's3',
      S3_BUCKET: bucket,
      S3_ENDPOINT: through,
      S3_FORCE_PATH_STYLE: 'true',
      S3_REGION: 'us-east-1',
      // Through a front, the public address is still the store's own.
      ...(through === endpoint ? {} : { S3_PUBLIC_URL: `${endpoint}/${bucket}` }),
      S3_ACCESS_KEY_ID: S3_KEYS.accessKeyId,
      S3_SECRET_ACCESS_KEY: S3_KEYS.secretAccessKey,
    }),
    async get(key) {
      const res = await fetch(objectUrl(key));
      return { status: res.status, headers: res.headers, bytes: Buffer.from(await res.arrayBuffer()) };
    },
    keys() {
      const root = path.join(dir, bucket);
      return (fs.readdirSync(root, { recursive: true }) as string[])
        .filter((f) => f.endsWith(OBJECT_SUFFIX))
        .map((f) => f.slice(0, -OBJECT_SUFFIX.length).split(path.sep).join('/'))
        .sort();
    },
    pendingUploads() {
      const uploads = path.join(dir, bucket, '._S3rver_uploads');
      return fs.existsSync(uploads) ? fs.readdirSync(uploads) : [];
    },
    pendingUploadDetails() {
      const uploads = path.join(dir, bucket, '._S3rver_uploads');
      return s3.pendingUploads().map((uploadId) => ({
        uploadId,
        key: fs.readFileSync(path.join(uploads, uploadId, 'key'), 'utf8'),
        initiated: fs.statSync(path.join(uploads, uploadId, 'key')).mtime,
      }));
    },
    uploadParts(uploadId) {
      if (!/^[\w-]+$/.test(uploadId)) return undefined;
      const dir = path.join(s3.dir, bucket, '._S3rver_uploads', uploadId);
      if (!fs.existsSync(dir)) return undefined;
      return fs
        .readdirSync(dir)
        .filter((f) => /^\d+$/.test(f) && fs.existsSync(path.join(dir, `${f}.md5`))) // a part still being written is not listed yet
        .map((f) => ({ number: Number(f), size: fs.statSync(path.join(dir, f)).size, md5: fs.readFileSync(path.join(dir, `${f}.md5`), 'utf8') }))
        .sort((a, b) => a.number - b.number);
    },
    discardUpload(uploadId) {
      if (!/^[\w-]+$/.test(uploadId)) throw new Error(`odd upload id ${uploadId}`);
      fs.rmSync(path.join(dir, bucket, '._S3rver_uploads', uploadId), { recursive: true, force: true });
    },
    async putDirect(key, bytes) {
      const res = await fetch(objectUrl(key), { method: 'PUT', body: typeof bytes === 'string' ? bytes : new Uint8Array(bytes), headers: { 'content-type': 'text/plain' } });
      if (!res.ok) throw new Error(`s3rver refused a direct PUT of ${key}: ${res.status} ${await res.text()}`);
    },
    async stop() {
      const server = instance;
      instance = undefined;
      if (!server?.httpServer) return;
      const closed = server.close();
      server.httpServer.closeAllConnections();
      await closed;
    },
    restart: start,
    async close() {
      await s3.stop();
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
  return s3;
}

/** What the front does to the next object request of a kind (each applies once). */
export type FrontPlan =
  /** Another writer stores the key just before the service asks whether it exists. */
  | 'taken-before-head'
  /** The service's HEAD misses the key (a stale answer) and another writer stores it just before the service's write. */
  | 'taken-before-write';

/**
 * An HTTP front for an S3Server that behaves like AWS S3 where s3rver does not: a write with
 * `If-None-Match: *` (PutObject, CompleteMultipartUpload) to a key that exists answers 412
 * PreconditionFailed, AbortMultipartUpload, ListMultipartUploads (with a prefix) and ListParts work (the last for @tus/s3-store), and
 * ListObjectsV2 pages past 1,000 keys. It records every request, and can stage the
 * races above or fail UploadPart.
 */
export interface S3Front {
  endpoint: string;
  requests: { method: string; url: string; headers: http.IncomingHttpHeaders; status: number }[];
  /** Keys another writer stored, with the bytes "earlier writer". */
  intruded: string[];
  plan(plan: FrontPlan): void;
  /** While true, every UploadPart answers 500 InternalError. */
  failParts: boolean;
  /** While true, requests are accepted and never answered (a store that hangs). */
  stall: boolean;
  /**
   * While true, the bucket grants no public read, as AWS does without a public bucket policy: an
   * anonymous request gets 403 AccessDenied, and a presigned one (SigV4 in the query) passes only
   * with the right signature (`SignatureDoesNotMatch`) before its expiry (`Request has expired`).
   * Requests signed in their Authorization header go on to s3rver (which checks the key, not the signature).
   */
  privateBucket: boolean;
  close(): Promise<void>;
}

export const INTRUDER_BYTES = 'earlier writer';

export async function startS3Front(s3: S3Server): Promise<S3Front> {
  const target = new URL(s3.endpoint);
  let planned: FrontPlan | undefined;
  const keyOf = (url: URL) => decodeURIComponent(url.pathname.slice(`/${s3.bucket}/`.length));
  const isObject = (url: URL) => url.pathname.startsWith(`/${s3.bucket}/`) && url.pathname.length > `/${s3.bucket}/`.length;

  const front: S3Front = {
    endpoint: '',
    requests: [],
    intruded: [],
    plan: (p) => (planned = p),
    failParts: false,
    stall: false,
    privateBucket: false,
    close: () =>
      new Promise((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };

  const intrude = async (url: URL) => {
    const key = keyOf(url);
    await s3.putDirect(key, INTRUDER_BYTES);
    front.intruded.push(key);
  };
  const exists = async (url: URL) => (await s3.get(keyOf(url))).status === 200;

  const answer = (req: http.IncomingMessage, res: http.ServerResponse, status: number, code: string, message: string) => {
    // Read the whole body first: the SDK sends it before it reads an answer.
    req.resume();
    req.on('end', () => {
      res.writeHead(status, { 'content-type': 'application/xml' });
      res.end(`<?xml version="1.0" encoding="UTF-8"?>\n<Error><Code>${code}</Code><Message>${message}</Message><RequestId>s3-front</RequestId></Error>`);
    });
  };

  const server = http.createServer((req, res) => {
    const url = new URL(req.url!, s3.endpoint);
    const record = { method: req.method!, url: req.url!, headers: req.headers, status: 0 };
    front.requests.push(record);
    res.on('finish', () => (record.status = res.statusCode));
    if (front.stall) return;
    const object = isObject(url);
    const isPart = req.method === 'PUT' && url.searchParams.has('partNumber');
    const isWrite = object && ((req.method === 'PUT' && !isPart && !req.headers['x-amz-copy-source']) || (req.method === 'POST' && url.searchParams.has('uploadId')));

    void (async () => {
      if (front.privateBucket && !req.headers.authorization) {
        const refusal = await presignedRefusal(url, req.method!, String(req.headers.host));
        if (refusal) return answer(req, res, 403, refusal.code, refusal.message);
      }
      if (object && req.method === 'HEAD' && planned === 'taken-before-head') {
        planned = undefined;
        await intrude(url);
      } else if (object && req.method === 'HEAD' && planned === 'taken-before-write') {
        res.writeHead(404).end();
        return;
      }
      if (!object && req.method === 'GET' && url.searchParams.has('uploads')) {
        const prefix = url.searchParams.get('prefix') ?? '';
        const entries = s3
          .pendingUploadDetails()
          .filter((u) => u.key.startsWith(prefix))
          .map((u) => `<Upload><Key>${u.key}</Key><UploadId>${u.uploadId}</UploadId><Initiated>${u.initiated.toISOString()}</Initiated></Upload>`)
          .join('');
        req.resume();
        res.writeHead(200, { 'content-type': 'application/xml' });
        res.end(`<?xml version="1.0" encoding="UTF-8"?>\n<ListMultipartUploadsResult><Bucket>${s3.bucket}</Bucket><IsTruncated>false</IsTruncated>${entries}</ListMultipartUploadsResult>`);
        return;
      }
      if (!object && req.method === 'GET' && url.searchParams.get('list-type') === '2' && !url.searchParams.has('delimiter')) {
        // s3rver's own listing fails past one page (its continuation token is DES, which OpenSSL 3 no longer offers): paged here, by key.
        const prefix = url.searchParams.get('prefix') ?? '';
        const maxKeys = Math.min(1000, Number(url.searchParams.get('max-keys') ?? 1000));
        const token = url.searchParams.get('continuation-token');
        const after = token ? Buffer.from(token, 'base64url').toString('utf8') : (url.searchParams.get('start-after') ?? '');
        const matching = s3.keys().filter((k) => k.startsWith(prefix) && k > after);
        const page = matching.slice(0, maxKeys);
        const truncated = matching.length > page.length;
        const entries = page
          .map((key) => {
            const stat = fs.statSync(path.join(s3.dir, s3.bucket, ...key.split('/')) + OBJECT_SUFFIX, { throwIfNoEntry: false });
            return stat ? `<Contents><Key>${xmlEscape(key)}</Key><LastModified>${stat.mtime.toISOString()}</LastModified><Size>${stat.size}</Size><StorageClass>STANDARD</StorageClass></Contents>` : '';
          })
          .join('');
        const next = truncated ? `<NextContinuationToken>${Buffer.from(page.at(-1)!).toString('base64url')}</NextContinuationToken>` : '';
        req.resume();
        res.writeHead(200, { 'content-type': 'application/xml' });
        res.end(
          `<?xml version="1.0" encoding="UTF-8"?>\n<ListBucketResult><Name>${s3.bucket}</Name><Prefix>${xmlEscape(prefix)}</Prefix><KeyCount>${page.length}</KeyCount><MaxKeys>${maxKeys}</MaxKeys><IsTruncated>${truncated}</IsTruncated>${next}${entries}</ListBucketResult>`,
        );
        return;
      }
      if (object && req.method === 'GET' && url.searchParams.has('uploadId')) {
        const parts = s3.uploadParts(url.searchParams.get('uploadId')!);
        if (!parts) return answer(req, res, 404, 'NoSuchUpload', 'The specified upload does not exist.');
        const entries = parts.map((p) => `<Part><PartNumber>${p.number}</PartNumber><ETag>"${p.md5}"</ETag><Size>${p.size}</Size></Part>`).join('');
        req.resume();
        res.writeHead(200, { 'content-type': 'application/xml' });
        res.end(`<?xml version="1.0" encoding="UTF-8"?>\n<ListPartsResult><Bucket>${s3.bucket}</Bucket><Key>${keyOf(url)}</Key><UploadId>${url.searchParams.get('uploadId')}</UploadId><IsTruncated>false</IsTruncated>${entries}</ListPartsResult>`);
        return;
      }
      if (object && req.method === 'DELETE' && url.searchParams.has('uploadId')) {
        s3.discardUpload(url.searchParams.get('uploadId')!);
        req.resume();
        res.writeHead(204).end();
        return;
      }
      if (isPart && front.failParts) return answer(req, res, 500, 'InternalError', 'We encountered an internal error. Please try again.');
      if (isWrite && planned === 'taken-before-write') {
        planned = undefined;
        await intrude(url);
      }
      if (isWrite && req.headers['if-none-match'] === '*' && (await exists(url))) {
        return answer(req, res, 412, 'PreconditionFailed', 'At least one of the pre-conditions you specified did not hold');
      }
      const upstream = http.request({ host: target.hostname, port: target.port, method: req.method, path: req.url, headers: req.headers }, (up) => {
        res.writeHead(up.statusCode!, up.headers);
        up.pipe(res);
      });
      upstream.on('error', () => res.destroy());
      req.pipe(upstream);
    })().catch(() => res.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  front.endpoint = `http://127.0.0.1:${(server.address() as net.AddressInfo).port}`;
  return front;
}

const xmlEscape = (text: string) => text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

/** SHA-256 (keyed: HMAC) as the AWS signers take it. */
class Sha256 {
  private readonly hash;
  constructor(secret?: string | ArrayBuffer | ArrayBufferView) {
    this.hash = secret === undefined ? createHash('sha256') : createHmac('sha256', bytesOf(secret));
  }
  update(data: string | ArrayBuffer | ArrayBufferView) {
    this.hash.update(bytesOf(data));
  }
  digest() {
    return Promise.resolve(new Uint8Array(this.hash.digest()));
  }
}

const bytesOf = (d: string | ArrayBuffer | ArrayBufferView): string | Buffer =>
  typeof d === 'string' ? d : ArrayBuffer.isView(d) ? Buffer.from(d.buffer, d.byteOffset, d.byteLength) : Buffer.from(d);

const AUTH_QUERY = /^X-Amz-(Algorithm|Credential|Date|Expires|SignedHeaders|Signature|Content-Sha256)$/;

/** Why AWS would refuse a request without an Authorization header to a bucket without public read; null when it is a valid, fresh presigned one. */
async function presignedRefusal(url: URL, method: string, host: string): Promise<{ code: string; message: string } | null> {
  const given = url.searchParams.get('X-Amz-Signature');
  if (!given) return { code: 'AccessDenied', message: 'Access Denied' };
  const date = url.searchParams.get('X-Amz-Date') ?? '';
  const signingDate = new Date(`${date.slice(0, 4)}-${date.slice(4, 6)}-${date.slice(6, 8)}T${date.slice(9, 11)}:${date.slice(11, 13)}:${date.slice(13, 15)}Z`);
  const expiresIn = Number(url.searchParams.get('X-Amz-Expires'));
  if (Number.isNaN(signingDate.getTime()) || !Number.isInteger(expiresIn)) return { code: 'AuthorizationQueryParametersError', message: 'Malformed presigned query' };
  if (Date.now() > signingDate.getTime() + expiresIn * 1000) return { code: 'AccessDenied', message: 'Request has expired' };
  const query: Record<string, string> = {};
  for (const [k, v] of url.searchParams) if (!AUTH_QUERY.test(k)) query[k] = v;
  const region = (url.searchParams.get('X-Amz-Credential') ?? '').split('/')[2] ?? 'us-east-1';
  const presigner = new S3RequestPresigner({ credentials: S3_KEYS, region, sha256: Sha256 });
  const expected = await presigner.presign(
    { method, protocol: url.protocol, hostname: url.hostname, port: Number(url.port), path: url.pathname, query, headers: { host } },
    { signingDate, expiresIn },
  );
  if (expected.query?.['X-Amz-Signature'] !== given) return { code: 'SignatureDoesNotMatch', message: 'The request signature we calculated does not match the signature you provided.' };
  return null;
}
