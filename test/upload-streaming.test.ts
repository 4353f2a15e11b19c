/**
 * POST /api/upload never holds a file in memory: over real sockets, a 200 MiB upload completes
 * while the server's resident memory grows by less than 64 MiB, whichever order the parts come in.
 * The service runs as its own process so that its RSS is its own.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { type ChildService, RssSampler, settledRss, startChildService } from './helpers/child-service.js';
import { filesUnder, repeat, streamUpload } from './helpers/upload.js';

const MiB = 1024 * 1024;
const FILE_BYTES = 200 * MiB;
const MAX_RSS_GROWTH = 64 * MiB;

let svc: ChildService;
let projectId: string;

before(async () => {
  svc = await startChildService({ MAX_UPLOAD_BYTES: String(1024 * MiB) });
  const created = await svc.admin.post('/api/projects', { name: 'Streaming' });
  assert.equal(created.status, 201, created.text);
  projectId = created.body.id;
  const approved = await svc.admin.post(`/api/projects/${projectId}/approve`);
  assert.equal(approved.status, 200, approved.text);
  assert.equal(approved.body.status, 'APPROVED');
});
after(() => svc?.stop());

/** `fileBytes` bytes of file in 64 KiB chunks (the same buffer again and again). */
function* fileChunks(fileBytes: number): Generator<Buffer> {
  const chunk = Buffer.alloc(64 * 1024);
  for (let i = 0; i < chunk.length; i++) chunk[i] = (i * 31) & 0xff;
  yield* repeat(chunk, Math.floor(fileBytes / chunk.length));
  if (fileBytes % chunk.length) yield chunk.subarray(0, fileBytes % chunk.length);
}

const upload = (fileBytes: number, fileFirst: boolean) =>
  streamUpload(svc.url, svc.admin.cookie!, { projectId, fileType: 'PO', filename: 'large.bin', type: 'application/octet-stream', chunks: fileChunks(fileBytes), fileFirst });

for (const { label, fileFirst } of [
  { label: 'fields first, streamed into storage', fileFirst: false },
  { label: 'file first, spooled to DATA_DIR/tmp', fileFirst: true },
]) {
  test(`a 200 MiB upload (${label}) completes while the server's RSS grows by less than 64 MiB`, async (t) => {
    // Warm up the code path (lazy imports, pools, buffers), then measure from a settled baseline.
    const warm = await upload(4 * MiB, fileFirst);
    assert.equal(warm.status, 201, warm.text);
    const baseline = await settledRss(svc.pid);

    const sampler = new RssSampler(svc.pid, 50).start();
    let res;
    try {
      res = await upload(FILE_BYTES, fileFirst);
    } finally {
      sampler.stop();
    }
    const peak = Math.max(baseline, sampler.peak);

    assert.equal(res.status, 201, res.text);
    const body = res.body as { id: string; url: string; filename: string; size: number };
    assert.deepEqual(Object.keys(body).sort(), ['filename', 'id', 'size', 'url']);
    assert.equal(body.size, FILE_BYTES);
    assert.equal(body.filename, 'large.bin');
    const growth = peak - baseline;
    t.diagnostic(`server RSS: baseline ${(baseline / MiB).toFixed(1)} MiB, peak ${(peak / MiB).toFixed(1)} MiB, growth ${(growth / MiB).toFixed(1)} MiB`);
    assert.ok(growth < MAX_RSS_GROWTH, `server RSS grew by ${(growth / MiB).toFixed(1)} MiB (baseline ${(baseline / MiB).toFixed(1)} MiB, peak ${(peak / MiB).toFixed(1)} MiB)`);

    // All of it on disk, nothing left in the spool.
    const key = new URL(body.url).pathname.replace(/^\/files\//, '');
    assert.equal(fs.statSync(path.join(svc.dataDir, 'uploads', ...key.split('/'))).size, FILE_BYTES);
    assert.deepEqual(filesUnder(path.join(svc.dataDir, 'tmp')), []);
    const head = await fetch(body.url, { method: 'HEAD' });
    assert.equal(head.status, 200);
    assert.equal(head.headers.get('content-length'), String(FILE_BYTES));
  });
}
