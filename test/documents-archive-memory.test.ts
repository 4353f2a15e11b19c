/**
 * GET /api/projects/:id/documents.zip of a 1 GiB project streams: over a real socket, the server's
 * resident memory grows by less than 64 MiB while the whole archive goes out, and the archive is
 * whole (`unzip -t`) with the checksums of what was sent. The service runs as its own process so
 * that its RSS is its own. (Its speed is measured by `npm run bench:documents`.)
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import { after, before, test } from 'node:test';
import { type ChildService, RssSampler, settledRss, startChildService } from './helpers/child-service.js';
import { streamUpload } from './helpers/upload.js';

const MiB = 1024 * 1024;
const DOCUMENTS = 4;
const DOCUMENT_BYTES = 256 * MiB;
const MAX_RSS_GROWTH = 64 * MiB;

let svc: ChildService;
let zipDir: string;

before(async () => {
  svc = await startChildService({ MAX_UPLOAD_BYTES: String(DOCUMENT_BYTES) });
  zipDir = fs.mkdtempSync(path.join(os.tmpdir(), 'documents-zip-memory-'));
});
after(async () => {
  fs.rmSync(zipDir, { recursive: true, force: true });
  await svc?.stop();
});

/** `bytes` of a document in 64 KiB chunks, each stamped with the document's and its own number (bytes out of place would not hash the same). */
function* documentChunks(document: number, bytes: number): Generator<Buffer> {
  const base = Buffer.alloc(64 * 1024);
  for (let i = 0; i < base.length; i++) base[i] = (i * 31) & 0xff;
  for (let n = 0; n < bytes / base.length; n++) {
    base.writeUInt32BE(document, 0);
    base.writeUInt32BE(n, 4);
    yield base; // written before the next is made: the same buffer serves every chunk
  }
}

async function approvedProject(name: string): Promise<string> {
  const created = await svc.admin.post('/api/projects', { name });
  assert.equal(created.status, 201, created.text);
  const approved = await svc.admin.post(`/api/projects/${created.body.id}/approve`);
  assert.equal(approved.status, 200, approved.text);
  return created.body.id as string;
}

/** The project's ZIP into a file, as it arrives. */
function downloadZip(projectId: string, file: string): Promise<number> {
  return new Promise((resolve, reject) => {
    http
      .get(`${svc.url}/api/projects/${projectId}/documents.zip`, { headers: { cookie: svc.admin.cookie! }, agent: false }, (res) => {
        if (res.statusCode !== 200) return reject(new Error(`documents.zip answered ${res.statusCode}`));
        pipeline(res, fs.createWriteStream(file)).then(() => resolve(fs.statSync(file).size), reject);
      })
      .on('error', reject);
  });
}

test(`the ZIP of a 1 GiB project (${DOCUMENTS} × 256 MiB) streams while the server's RSS grows by less than 64 MiB`, async (t) => {
  const projectId = await approvedProject('Archive in flat memory');
  const expected = new Map<string, string>();
  for (let d = 0; d < DOCUMENTS; d++) {
    const res = await streamUpload(svc.url, svc.admin.cookie!, { projectId, fileType: 'PO', filename: `part-${d}.pdf`, type: 'application/pdf', chunks: documentChunks(d, DOCUMENT_BYTES) });
    assert.equal(res.status, 201, res.text);
    const hash = createHash('sha256');
    for (const chunk of documentChunks(d, DOCUMENT_BYTES)) hash.update(chunk);
    expected.set(`PO/part-${d}.pdf`, hash.digest('hex'));
  }

  // Warm up the archive's code path (lazy imports, zlib) on a small project, then measure from a settled baseline.
  const small = await approvedProject('Warm-up');
  assert.equal((await streamUpload(svc.url, svc.admin.cookie!, { projectId: small, fileType: 'PO', filename: 'small.pdf', type: 'application/pdf', chunks: documentChunks(9, MiB) })).status, 201);
  await downloadZip(small, path.join(zipDir, 'warm-up.zip'));
  const baseline = await settledRss(svc.pid);

  const zip = path.join(zipDir, 'documents.zip');
  const sampler = new RssSampler(svc.pid, 50).start();
  let size: number;
  try {
    size = await downloadZip(projectId, zip);
  } finally {
    sampler.stop();
  }
  const peak = Math.max(baseline, sampler.peak);
  const growth = peak - baseline;
  t.diagnostic(`server RSS: baseline ${(baseline / MiB).toFixed(1)} MiB, peak ${(peak / MiB).toFixed(1)} MiB, growth ${(growth / MiB).toFixed(1)} MiB (${sampler.samples} samples); archive ${(size / MiB).toFixed(1)} MiB`);
  assert.ok(growth < MAX_RSS_GROWTH, `server RSS grew by ${(growth / MiB).toFixed(1)} MiB (baseline ${(baseline / MiB).toFixed(1)} MiB, peak ${(peak / MiB).toFixed(1)} MiB)`);

  // The whole archive, every entry's CRC right, and its checksums those of the bytes sent.
  assert.ok(size > DOCUMENTS * DOCUMENT_BYTES, `the archive holds ${size} bytes`);
  execFileSync('unzip', ['-t', '-q', zip]);
  const sums = execFileSync('unzip', ['-p', zip, 'SHA256SUMS'], { encoding: 'utf8' });
  const listed = new Map(sums.trim().split('\n').map((line) => {
    const [hash, name] = line.split(/\s+\*?/, 2) as [string, string];
    return [name, hash];
  }));
  assert.deepEqual(listed, expected);
});
