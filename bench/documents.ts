/**
 * npm run bench:documents (issue 13): what checksums, resumable uploads and the documents ZIP cost.
 *
 * 1. The checksum: a 1 GiB POST /api/upload end to end (checksum and type detection on, as always),
 *    and the same write path in process (1 GiB through the local driver to disk) with the inspector
 *    and without it (a PassThrough in its place): the reference the goal ("within 10 %") is read against.
 * 2. A 1 GiB tus upload in 5 MiB chunks with tus-js-client against the plain 1 GiB upload (goal ≥ 70 %).
 * 3. GET /api/projects/:id/documents.zip of 100 × 10 MiB documents: MB/s and the server's RSS.
 *
 * The service runs as a child process (dist/src/main.js) on SQLite in a temporary data dir.
 */
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { PassThrough, Readable } from 'node:stream';
import * as tus from 'tus-js-client';
import { LocalStorage } from '../src/storage/local/index.js';
import { DocumentInspector } from '../src/uploads/inspect.js';
import { testConfig } from '../test/helpers/service.js';
import { BUILT, RssSampler, memoryOf, spawnService } from '../test/helpers/child-service.js';
import { HOST, contentBlock, fileBytes, jsonRequest, sessionCookie, streamUpload } from './http.js';
import { MiB, fmtBytes, fmtMs, printTable } from './load.js';

const GiB = 1024 * MiB;
/** Rounds of the in-process pair (each 1 GiB without, then with the inspector); the best of each is compared. */
const ROUNDS = 5;
const rows: string[][] = [];
const step = (msg: string) => console.error(`[bench:documents] ${msg}`);
const mbps = (bytes: number, ms: number) => bytes / 1e6 / (ms / 1000);

async function main(): Promise<void> {
  // Files on tmpfs, as in npm run bench: what a checksum costs is CPU; the disk's writeback would swamp it.
  if (!process.env.TMPDIR && fs.existsSync('/dev/shm')) process.env.TMPDIR = '/dev/shm';
  const admin = { email: 'bench-admin@example.com', password: `bench-${randomBytes(9).toString('base64url')}` };
  const made = await testConfig({
    env: { LOG_LEVEL: 'warn', MAX_UPLOAD_BYTES: String(GiB + 64 * MiB), ADMIN_EMAIL: admin.email, ADMIN_PASSWORD: admin.password, SHUTDOWN_GRACE_MS: '5000' },
  });
  const port = made.config.port;
  console.log('print-order service benchmark: documents');
  console.log(`  node ${process.version}, ${os.cpus().length} cores (${os.cpus()[0]?.model.trim() ?? 'unknown CPU'}), ${fmtBytes(os.totalmem())} RAM`);
  console.log(`  service: child process dist/src/main.js, SQLite, local storage under ${made.config.dataDir}; client on the same machine\n`);
  const server = await spawnService(made.env, { entry: BUILT });
  const block = contentBlock(MiB);
  try {
    const login = await jsonRequest<unknown>(port, 'POST', '/api/auth/login', admin, 200);
    const cookie = sessionCookie(login.res);
    const newProject = async (name: string) => {
      const { body } = await jsonRequest<{ id: string }>(port, 'POST', '/api/projects', { name }, 201, cookie);
      await jsonRequest(port, 'POST', `/api/projects/${body.id}/approve`, undefined, 200, cookie);
      return body.id;
    };
    const upload = async (projectId: string, size: number, filename: string) => {
      const res = await streamUpload({ port, cookie, fields: [['projectId', projectId], ['fileType', 'PO']], filename, contentType: 'application/pdf', size, block, timeoutMs: 600_000 });
      if (res.status !== 201) throw new Error(`upload: ${res.status} ${res.body.toString().slice(0, 200)}`);
      return res;
    };

    // 1. Checksum.
    const p1 = await newProject('checksum');
    await upload(p1, 64 * 1024, 'warmup.pdf');
    step('1 GiB POST /api/upload');
    const sampler = new RssSampler(server.pid, 20).start();
    const plain = await upload(p1, GiB, 'one-gib.pdf');
    sampler.stop();
    rows.push(['checksum', 'POST /api/upload, 1 GiB (checksum + type detection on)', `${mbps(GiB, plain.ms).toFixed(0)} MB/s`, `${fmtMs(plain.ms)}; server peak RSS ${fmtBytes(sampler.peak)}`]);

    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-inspect-'));
    try {
      const storage = new LocalStorage(dir, 'http://bench');
      const write = async (n: number, inspect: boolean) => {
        const through = inspect ? new DocumentInspector() : new PassThrough();
        const started = performance.now();
        const source = Readable.from(fileBytes(GiB, block));
        source.pipe(through);
        await storage.put({ folder: 'bench', publicName: `f${n}-${inspect}`, extension: 'pdf' }, through);
        return performance.now() - started;
      };
      const times = { on: [] as number[], off: [] as number[] };
      for (let i = 0; i < ROUNDS; i++) {
        step(`in-process write path, round ${i + 1} of ${ROUNDS}`);
        times.off.push(await write(i, false));
        times.on.push(await write(i, true));
        fs.rmSync(path.join(dir, 'bench'), { recursive: true, force: true });
      }
      const best = (xs: number[]) => Math.min(...xs);
      const [on, off] = [best(times.on), best(times.off)];
      rows.push(['checksum', 'write path in process, 1 GiB to tmpfs, without inspector (reference)', `${mbps(GiB, off).toFixed(0)} MB/s`, `best of ${ROUNDS}: ${times.off.map(fmtMs).join(', ')}`]);
      rows.push(['checksum', 'the same with the inspector (SHA-256 + type)', `${mbps(GiB, on).toFixed(0)} MB/s`, `best of ${ROUNDS}: ${times.on.map(fmtMs).join(', ')}; ${((off / on) * 100).toFixed(0)} % of the reference (goal ≥ 90 %)`]);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }

    // 2. tus, 5 MiB chunks.
    step('1 GiB tus upload in 5 MiB chunks');
    const p2 = await newProject('tus');
    const tusStarted = performance.now();
    const url = await new Promise<string>((resolve, reject) => {
      // Bytes, not objects: tus-js-client reads chunkSize bytes at a time only from a byte stream (an object stream gives it one 1 MiB block per PATCH).
      const up = new tus.Upload(Readable.from(fileBytes(GiB, block), { objectMode: false }), {
        endpoint: `http://${HOST}:${port}/api/resumable-uploads`,
        headers: { cookie },
        chunkSize: 5 * MiB,
        uploadSize: GiB,
        metadata: { projectId: p2, fileType: 'PO', filename: 'tus.pdf', filetype: 'application/pdf' },
        retryDelays: [],
        onSuccess: () => resolve(up.url!),
        onError: reject,
      });
      up.start();
    });
    const result = await jsonRequest<{ size: number }>(port, 'GET', `${new URL(url).pathname}/result`, undefined, 200, cookie);
    const tusMs = performance.now() - tusStarted;
    if (result.body.size !== GiB) throw new Error(`tus result size ${result.body.size}`);
    rows.push(['tus', '1 GiB in 5 MiB chunks (tus-js-client), to the result', `${mbps(GiB, tusMs).toFixed(0)} MB/s`, `${fmtMs(tusMs)}; ${((plain.ms / tusMs) * 100).toFixed(0)} % of the plain upload's throughput (goal ≥ 70 %)`]);

    // 3. ZIP of 100 × 10 MiB.
    step('uploading 100 × 10 MiB');
    const p3 = await newProject('zip');
    for (let i = 0; i < 100; i++) await upload(p3, 10 * MiB, `doc-${i}.pdf`);
    step('GET documents.zip');
    const before = memoryOf(server.pid);
    const zipSampler = new RssSampler(server.pid, 20).start();
    const zip = await download(port, `/api/projects/${p3}/documents.zip`, cookie);
    zipSampler.stop();
    if (zip.status !== 200 || zip.bytes < 100 * 10 * MiB) throw new Error(`documents.zip: ${zip.status}, ${zip.bytes} bytes`);
    rows.push(['zip', 'documents.zip, 100 × 10 MiB (1000 MiB)', `${mbps(zip.bytes, zip.ms).toFixed(0)} MB/s`, `${fmtBytes(zip.bytes)} in ${fmtMs(zip.ms)}`]);
    rows.push(['zip', 'server RSS before / peak during', `${before ? fmtBytes(before.rss) : 'n/a'} / ${fmtBytes(zipSampler.peak)}`, `${zipSampler.samples} samples every 20 ms`]);
  } finally {
    await server.stop();
    await made.cleanup();
  }
  console.log('');
  printTable(['section', 'metric', 'value', 'detail'], rows);
}

/** GET, counting the body's bytes without keeping them. */
function download(port: number, urlPath: string, cookie: string): Promise<{ status: number; bytes: number; ms: number }> {
  const started = performance.now();
  return new Promise((resolve, reject) => {
    http
      .get({ host: HOST, port, path: urlPath, headers: { cookie }, agent: false }, (res) => {
        let bytes = 0;
        res.on('data', (c: Buffer) => (bytes += c.length));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, bytes, ms: performance.now() - started }));
        res.on('error', reject);
      })
      .on('error', reject);
  });
}

main().catch((err: unknown) => {
  console.error(err);
  process.exitCode = 1;
});
