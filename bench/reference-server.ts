/**
 * The references `npm run bench` measures the service against, in the same run with the same client:
 *
 * - POST /upload: the practical ceiling of an upload. Plain node:http, the raw body (multipart and
 *   all, unparsed) piped into a file with a 1 MiB write buffer; 201 {"size"} once it is on disk;
 *   nothing else (no second reader of the body, no removal after the answer: issue 39, item 6).
 * - POST /upload-sha256: the same, also hashing every byte with SHA-256 on its event loop, as the
 *   service must for each document (201 {"size", "sha256"}): the fair ceiling of an upload.
 * - GET /api/team: the earlier deployment's approach (a Next.js route): the whole team in memory,
 *   sorted on every request, mapped to the answer's fields and serialized. PUT /seed loads the users
 *   (the bench sends the service's own answer, shuffled here so the sort has work to do).
 * - GET /healthz.
 *
 * Run as its own process (`node --import tsx bench/reference-server.ts <port> <dir>`), as the
 * service is, so neither shares an event loop with the client.
 */
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';

const MiB = 1024 * 1024;
const port = Number(process.argv[2]);
const dir = process.argv[3]!;
fs.mkdirSync(dir, { recursive: true });

interface Member {
  id: string;
  name: string;
  email: string;
  phone: string | null;
  role: string;
  location: string | null;
  branch: string | null;
  active: boolean;
  createdAt: string;
}
let team: Member[] = [];
let uploads = 0;

const json = (res: http.ServerResponse, status: number, body: unknown) => {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(text) });
  res.end(text);
};

/** Files at least this large are removed after their answer, so a run of 1 GiB uploads does not fill tmpfs; smaller ones stay, as the service's do. */
const REMOVE_FROM = 64 * MiB;

/**
 * Only what the limit does: the body piped into a file (hashed as it passes, for the SHA-256
 * reference), the answer once it is on disk. The size is what the file stream wrote: no second
 * reader counts it, and nothing is deleted before the next request but a file large enough to fill
 * the disk.
 */
async function upload(req: http.IncomingMessage, res: http.ServerResponse, checksum: boolean): Promise<void> {
  const file = path.join(dir, `upload-${++uploads}`);
  const out = fs.createWriteStream(file, { highWaterMark: MiB });
  const hash = checksum ? createHash('sha256') : undefined;
  if (hash) req.on('data', (chunk: Buffer) => hash.update(chunk));
  await pipeline(req, out);
  json(res, 201, hash ? { size: out.bytesWritten, sha256: hash.digest('hex') } : { size: out.bytesWritten });
  if (out.bytesWritten >= REMOVE_FROM) await fs.promises.rm(file, { force: true });
}

/** The earlier approach: sort the whole team in memory, pick the fields, serialize. */
function listTeam(res: http.ServerResponse): void {
  const sorted = [...team].sort((a, b) => (a.createdAt === b.createdAt ? (a.id < b.id ? 1 : -1) : a.createdAt < b.createdAt ? 1 : -1));
  json(
    res,
    200,
    sorted.map((u) => ({ id: u.id, name: u.name, email: u.email, phone: u.phone, role: u.role, location: u.location, branch: u.branch, active: u.active, createdAt: u.createdAt })),
  );
}

async function seed(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  const members = JSON.parse(Buffer.concat(chunks).toString('utf8')) as Member[];
  for (let i = members.length - 1; i > 0; i--) {
    const j = Math.floor(Math.random() * (i + 1));
    [members[i], members[j]] = [members[j]!, members[i]!];
  }
  team = members;
  json(res, 200, { seeded: team.length });
}

const server = http.createServer((req, res) => {
  const route = `${req.method} ${req.url}`;
  const work =
    route === 'POST /upload' || route === 'POST /upload-sha256'
      ? upload(req, res, route === 'POST /upload-sha256')
      : route === 'GET /api/team'
        ? Promise.resolve(listTeam(res))
        : route === 'PUT /seed'
          ? seed(req, res)
          : route === 'GET /healthz'
            ? Promise.resolve(json(res, 200, { status: 'ok' }))
            : Promise.resolve(json(res, 404, { error: 'Not found' }));
  work.catch((err: unknown) => {
    if (!res.headersSent) json(res, 500, { error: String(err) });
    else res.destroy();
  });
});
server.keepAliveTimeout = 60_000;
server.listen(port, '127.0.0.1', () => process.send?.('ready'));
process.on('SIGTERM', () => server.close(() => process.exit(0)));
