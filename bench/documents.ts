/**
 * npm run bench:documents (issue 13): what checksums, resumable uploads and the documents ZIP cost.
 *
 * 1. The checksum: 1 GiB POST /api/upload to the service, in turn with the same built service whose
 *    SHA-256 does no work (preloaded bench/without-checksum: the reference the goal "within 10 %" is
 *    read against), best of 3 each; then the write path alone in process (1 GiB through the local
 *    driver to disk) with the inspector and without it (a PassThrough in its place).
 * 2. A 1 GiB tus upload in 5 MiB PATCHes against the plain 1 GiB upload, in turn, best of 3 each
 *    (goal ≥ 70 %): once with the plain upload's own client (the ratio measures the server), once
 *    with tus-js-client reading a file (what a real Node client adds, its CPU reported).
 * 3. GET /api/projects/:id/documents.zip of 100 × 10 MiB documents: MB/s and the server's RSS.
 *
 * The service runs as a child process (dist/src/main.js) on SQLite in a temporary data dir.
 */
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { PassThrough, Readable } from 'node:stream';
import * as tus from 'tus-js-client';
import { LocalStorage } from '../src/storage/local/index.js';
import { DocumentInspector } from '../src/uploads/inspect.js';
import { testConfig } from '../test/helpers/service.js';
import { BUILT, RssSampler, memoryOf, spawnService } from '../test/helpers/child-service.js';
import { HOST, contentBlock, fileBytes, jsonRequest, sessionCookie, streamUpload, tusUpload } from './http.js';
import { MiB, fmtBytes, fmtMs, printTable } from './load.js';

const GiB = 1024 * MiB;
/** Rounds of the in-process pair (each 1 GiB without, then with the inspector); the best of each is compared. */
const ROUNDS = 5;
/** Rounds of the 1 GiB uploads with and without the checksum, in turn; the best of each is compared. */
const CHECKSUM_ROUNDS = 3;
/** Rounds of the plain and tus uploads, in turn; the best of each is compared. */
const TUS_ROUNDS = 3;
const rows: string[][] = [];
const step = (msg: string) => console.error(`[bench:documents] ${msg}`);
const mbps = (bytes: number, ms: number) => bytes / 1e6 / (ms / 1000);
const bestOf = (xs: number[]) => Math.min(...xs);
const all = (xs: number[]) => `best of ${xs.length}: ${xs.map(fmtMs).join(', ')}`;
/** Preloaded into a second service: its SHA-256 does no work (the checksum's reference). */
const WITHOUT_CHECKSUM = fileURLToPath(new URL('./without-checksum/register.mjs', import.meta.url));

async function main(): Promise<void> {
  // Files on tmpfs, as in npm run bench: what a checksum costs is CPU; the disk's writeback would swamp it.
  if (!process.env.TMPDIR && fs.existsSync('/dev/shm')) process.env.TMPDIR = '/dev/shm';
  const admin = { email: 'bench-admin@example.com', password: `bench-${randomBytes(9).toString('base64url')}` };
  const serviceEnv = { LOG_LEVEL: 'warn', MAX_UPLOAD_BYTES: String(GiB + 64 * MiB), ADMIN_EMAIL: admin.email, ADMIN_PASSWORD: admin.password, SHUTDOWN_GRACE_MS: '5000' };
  const made = await testConfig({ env: serviceEnv });
  const port = made.config.port;
  console.log('print-order service benchmark: documents');
  console.log(`  node ${process.version}, ${os.cpus().length} cores (${os.cpus()[0]?.model.trim() ?? 'unknown CPU'}), ${fmtBytes(os.totalmem())} RAM`);
  console.log(`  service: child process dist/src/main.js, SQLite, local storage under ${made.config.dataDir}; client on the same machine\n`);
  const server = await spawnService(made.env, { entry: BUILT });
  const block = contentBlock(MiB);
  /** A signed-in admin of the service on `port`, who makes approved projects and uploads to them. */
  const signIn = async (port: number) => {
    const login = await jsonRequest<unknown>(port, 'POST', '/api/auth/login', admin, 200);
    const cookie = sessionCookie(login.res);
    return {
      cookie,
      newProject: async (name: string) => {
        const { body } = await jsonRequest<{ id: string }>(port, 'POST', '/api/projects', { name }, 201, cookie);
        await jsonRequest(port, 'POST', `/api/projects/${body.id}/approve`, undefined, 200, cookie);
        return body.id;
      },
      upload: async (projectId: string, size: number, filename: string) => {
        const res = await streamUpload({ port, cookie, fields: [['projectId', projectId], ['fileType', 'PO']], filename, contentType: 'application/pdf', size, block, timeoutMs: 600_000 });
        if (res.status !== 201) throw new Error(`upload: ${res.status} ${res.body.toString().slice(0, 200)}`);
        return res;
      },
    };
  };
  try {
    const { cookie, newProject, upload } = await signIn(port);

    // 1. Checksum: the same built service with its SHA-256 replaced by nothing (bench/without-checksum),
    // 1 GiB uploads to each in turn, best of each; then the write path alone, in process.
    const bare = await testConfig({ env: serviceEnv });
    const bareServer = await spawnService(bare.env, { entry: ['--import', WITHOUT_CHECKSUM, ...BUILT] });
    try {
      const withoutChecksum = await signIn(bare.config.port);
      const [pOn, pOff] = [await newProject('checksum'), await withoutChecksum.newProject('checksum')];
      await upload(pOn, 64 * 1024, 'warmup.pdf');
      await withoutChecksum.upload(pOff, 64 * 1024, 'warmup.pdf');
      // The reference really is without its checksum (the preload took): its documents' sha256 is the stub's.
      const { body: project } = await jsonRequest<{ files: { sha256: string | null }[] }>(bare.config.port, 'GET', `/api/projects/${pOff}`, undefined, 200, withoutChecksum.cookie);
      if (project.files[0]?.sha256 !== '0'.repeat(64)) throw new Error(`the reference service still hashes: ${project.files[0]?.sha256}`);
      const times = { on: [] as number[], off: [] as number[] };
      let peakRss = 0;
      for (let i = 0; i < CHECKSUM_ROUNDS; i++) {
        step(`1 GiB POST /api/upload with the checksum, then without; round ${i + 1} of ${CHECKSUM_ROUNDS}`);
        const sampler = new RssSampler(server.pid, 20).start();
        times.on.push((await upload(pOn, GiB, `on-${i}.pdf`)).ms);
        peakRss = Math.max(peakRss, sampler.stop().peak);
        times.off.push((await withoutChecksum.upload(pOff, GiB, `off-${i}.pdf`)).ms);
        removeFilesUnder(path.join(made.config.dataDir, 'uploads'));
        removeFilesUnder(path.join(bare.config.dataDir, 'uploads'));
      }
      const [on, off] = [bestOf(times.on), bestOf(times.off)];
      rows.push(['checksum', 'POST /api/upload, 1 GiB, without the checksum (reference)', `${mbps(GiB, off).toFixed(0)} MB/s`, all(times.off)]);
      rows.push(['checksum', 'POST /api/upload, 1 GiB (checksum + type detection on)', `${mbps(GiB, on).toFixed(0)} MB/s`, `${all(times.on)}; ${((off / on) * 100).toFixed(0)} % of the reference (goal ≥ 90 %); server peak RSS ${fmtBytes(peakRss)}`]);
    } finally {
      await bareServer.stop();
      await bare.cleanup();
    }

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
      const [on, off] = [bestOf(times.on), bestOf(times.off)];
      rows.push(['checksum', 'the write path alone, in process, 1 GiB to tmpfs, without inspector', `${mbps(GiB, off).toFixed(0)} MB/s`, all(times.off)]);
      rows.push(['checksum', 'the same with the inspector (SHA-256 + type)', `${mbps(GiB, on).toFixed(0)} MB/s`, `${all(times.on)}; ${((off / on) * 100).toFixed(0)} % (SHA-256 itself on one core)`]);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }

    // 2. tus, 5 MiB chunks, in turn with the plain upload (best of each): with the same client as the
    // plain upload (the measure of the server), and with tus-js-client reading a file (a real client's own cost).
    const source = path.join(os.tmpdir(), `bench-tus-source-${process.pid}.bin`);
    writeFileOfBlocks(source, GiB, block);
    const stored = path.join(made.config.dataDir, 'uploads');
    const tusTimes = { plain: [] as number[], lean: [] as number[], client: [] as number[] };
    const clientCpu: number[] = [];
    const tusResult = async (uploadPath: string) => {
      const result = await jsonRequest<{ size: number }>(port, 'GET', `${uploadPath}/result`, undefined, 200, cookie);
      if (result.body.size !== GiB) throw new Error(`tus result size ${result.body.size}`);
    };
    const metadata = (projectId: string) => ({ projectId, fileType: 'PO', filename: 'tus.pdf', filetype: 'application/pdf' });
    try {
      for (let i = 0; i < TUS_ROUNDS; i++) {
        step(`1 GiB: POST /api/upload, tus, tus-js-client; round ${i + 1} of ${TUS_ROUNDS}`);
        const p2 = await newProject(`tus-${i}`);
        tusTimes.plain.push((await upload(p2, GiB, 'plain.pdf')).ms);

        let started = performance.now();
        await tusResult(await tusUpload({ port, path: '/api/resumable-uploads', cookie, metadata: metadata(p2), size: GiB, chunkSize: 5 * MiB, block, timeoutMs: 600_000 }));
        tusTimes.lean.push(performance.now() - started);

        started = performance.now();
        const cpu = process.cpuUsage();
        const url = await new Promise<string>((resolve, reject) => {
          const up = new tus.Upload(fs.createReadStream(source), {
            endpoint: `http://${HOST}:${port}/api/resumable-uploads`,
            headers: { cookie },
            chunkSize: 5 * MiB,
            metadata: metadata(p2),
            retryDelays: [],
            onSuccess: () => resolve(up.url!),
            onError: reject,
          });
          up.start();
        });
        await tusResult(new URL(url).pathname);
        tusTimes.client.push(performance.now() - started);
        const used = process.cpuUsage(cpu);
        clientCpu.push((used.user + used.system) / 1000);
        removeFilesUnder(stored); // 3 GiB a round on tmpfs; nothing reads them again (the service's folders stay)
      }
    } finally {
      fs.rmSync(source, { force: true });
    }
    const [plainMs, leanMs, clientMs] = [bestOf(tusTimes.plain), bestOf(tusTimes.lean), bestOf(tusTimes.client)];
    rows.push(['tus', 'POST /api/upload, 1 GiB (reference for the tus rows)', `${mbps(GiB, plainMs).toFixed(0)} MB/s`, all(tusTimes.plain)]);
    rows.push(['tus', '1 GiB in 5 MiB PATCHes, the same client, to the result', `${mbps(GiB, leanMs).toFixed(0)} MB/s`, `${all(tusTimes.lean)}; ${((plainMs / leanMs) * 100).toFixed(0)} % of the plain upload (goal ≥ 70 %)`]);
    rows.push(['tus', '1 GiB in 5 MiB chunks, tus-js-client from a file', `${mbps(GiB, clientMs).toFixed(0)} MB/s`, `${all(tusTimes.client)}; ${((plainMs / clientMs) * 100).toFixed(0)} % of the plain upload; the client's own CPU ${clientCpu.map(fmtMs).join(', ')}`]);

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

/** A file of `size` bytes, the block over and over (what tus-js-client reads from). */
function writeFileOfBlocks(file: string, size: number, block: Buffer): void {
  const fd = fs.openSync(file, 'w');
  try {
    for (const piece of fileBytes(size, block)) fs.writeSync(fd, piece);
  } finally {
    fs.closeSync(fd);
  }
}

/** Removes the files under `dir`, keeping its folders. */
function removeFilesUnder(dir: string): void {
  for (const entry of fs.readdirSync(dir, { withFileTypes: true, recursive: true })) {
    if (entry.isFile()) fs.rmSync(path.join(entry.parentPath, entry.name), { force: true });
  }
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
