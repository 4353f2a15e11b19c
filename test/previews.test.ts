/**
 * Previews of documents (interface.md, additions of 2026-11-24, "Previews") over real HTTP: the
 * pages of a real multi-page PDF drawn apart and in proportion, X-Page-Count, pictures scaled and
 * never enlarged, the parameters' 400s, ETag and 304, who may see them, documents without one, and
 * malformed or hostile PDFs ending as "no preview" within the bound while /healthz keeps its speed.
 * Also through the S3 driver: the bytes are read through the FileStorage interface.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import sharp from 'sharp';
import { ConfigError, loadConfig } from '../src/config.js';
import type { User } from '../src/domain/model.js';
import { A4, barsPdf, hostilePdfs } from './helpers/pdf.js';
import { type S3Server, startS3Server } from './helpers/s3-server.js';
import { type Client, type TestService, startTestService } from './helpers/service.js';

type Someone = { user: User; client: Client };

const NO_PREVIEW = { error: 'No preview for this document' };

/** A GET of a preview through the client's session, keeping the bytes (Client reads text). */
async function preview(svc: TestService, who: Client | null, projectId: string, fileId: string, query = '', headers: Record<string, string> = {}) {
  const res = await fetch(`${svc.url}/api/projects/${projectId}/files/${fileId}/preview${query}`, {
    headers: { ...headers, ...(who?.cookie ? { cookie: who.cookie } : {}) },
  });
  const bytes = Buffer.from(await res.arrayBuffer());
  const json = bytes.length && res.headers.get('content-type')?.startsWith('application/json') ? JSON.parse(bytes.toString()) : undefined;
  return { status: res.status, headers: res.headers, bytes, json };
}

async function upload(who: Someone, projectId: string, data: Buffer, filename: string, type: string): Promise<string> {
  const res = await who.client.upload([
    ['projectId', projectId],
    ['fileType', 'PO'],
    ['file', { data, filename, type }],
  ]);
  assert.equal(res.status, 201, res.text);
  return res.body.id as string;
}

/** Mean of each colour (0–255) over a region of a picture, given in fractions of its width and height. */
async function colourOf(image: Buffer, region: { left: number; top: number; width: number; height: number }): Promise<{ r: number; g: number; b: number }> {
  const { width, height } = await sharp(image).metadata();
  const box = {
    left: Math.floor(region.left * width),
    top: Math.floor(region.top * height),
    width: Math.max(1, Math.floor(region.width * width)),
    height: Math.max(1, Math.floor(region.height * height)),
  };
  // stats() would describe the whole input: the region's pixels are summed here.
  const { data, info } = await sharp(image).extract(box).removeAlpha().raw().toBuffer({ resolveWithObject: true });
  const sums = [0, 0, 0];
  for (let i = 0; i < data.length; i += info.channels) for (let c = 0; c < 3; c++) sums[c]! += data[i + c]!;
  const n = data.length / info.channels;
  return { r: sums[0]! / n, g: sums[1]! / n, b: sums[2]! / n };
}

const brightness = async (image: Buffer, region: { left: number; top: number; width: number; height: number }) => {
  const { r, g, b } = await colourOf(image, region);
  return (r + g + b) / 3;
};

const size = async (image: Buffer) => {
  const m = await sharp(image).metadata();
  return { format: m.format, width: m.width, height: m.height };
};

/** A 200 × 100 PNG: red on the left half, blue on the right. */
const twoColourPng = () =>
  sharp({ create: { width: 200, height: 100, channels: 3, background: { r: 0, g: 0, b: 255 } } })
    .composite([{ input: { create: { width: 100, height: 100, channels: 3, background: { r: 255, g: 0, b: 0 } } }, left: 0, top: 0 }])
    .png()
    .toBuffer();

describe('previews', () => {
  let svc: TestService;
  let admin: Someone;
  let poc: Someone;
  let otherPoc: Someone;
  let projectId: string;
  let pdfId: string;
  let pngId: string;

  before(async () => {
    svc = await startTestService();
    [admin, poc, otherPoc] = await Promise.all([svc.signIn('ADMIN'), svc.signIn('POC'), svc.signIn('POC')]);
    projectId = (await svc.createProject(poc.user.id, { status: 'APPROVED', piStatus: 'VERIFIED' })).id;
    pdfId = await upload(poc, projectId, barsPdf(3), 'artwork.pdf', 'application/pdf');
    pngId = await upload(poc, projectId, await twoColourPng(), 'logo.png', 'image/png');
  });
  after(() => svc?.close());

  test('each page of a PDF, in proportion, with its page count; pages differ where their content does', async () => {
    const pages = [];
    for (const page of [1, 2, 3]) {
      const res = await preview(svc, poc.client, projectId, pdfId, `?page=${page}`);
      assert.equal(res.status, 200, res.bytes.toString());
      assert.equal(res.headers.get('content-type'), 'image/webp');
      assert.equal(res.headers.get('x-page-count'), '3');
      assert.match(res.headers.get('cache-control') ?? '', /\bprivate\b/);
      assert.doesNotMatch(res.headers.get('cache-control') ?? '', /public/);
      assert.deepEqual(await size(res.bytes), { format: 'webp', width: 320, height: Math.round((320 * A4.height) / A4.width) });
      pages.push(res.bytes);
    }
    // Page i's black bar is the i-th third from the top: dark there, white elsewhere.
    for (const [i, image] of pages.entries()) {
      for (const third of [0, 1, 2]) {
        const mean = await brightness(image, { left: 0.3, top: third / 3 + 0.05, width: 0.4, height: 0.2 });
        if (third === i) assert.ok(mean < 40, `page ${i + 1}, third ${third + 1} should be dark: ${mean}`);
        else assert.ok(mean > 215, `page ${i + 1}, third ${third + 1} should be white: ${mean}`);
      }
    }
    assert.notDeepEqual(pages[0], pages[1]);
    // The document's owner is not the only one: an ADMIN sees it too, from the cache, the same picture.
    const again = await preview(svc, admin.client, projectId, pdfId, '?page=2');
    assert.equal(again.status, 200);
    assert.deepEqual(again.bytes, pages[1]);
  });

  test('width: as asked, never wider than the page at 144 dpi', async () => {
    const small = await preview(svc, poc.client, projectId, pdfId, '?width=64');
    assert.deepEqual(await size(small.bytes), { format: 'webp', width: 64, height: Math.round((64 * A4.height) / A4.width) });
    const large = await preview(svc, poc.client, projectId, pdfId, '?width=1600');
    assert.equal(large.status, 200);
    // 595 points at 144 dpi: 1190 pixels.
    assert.deepEqual(await size(large.bytes), { format: 'webp', width: 1190, height: Math.round((1190 * A4.height) / A4.width) });
  });

  test('a picture is scaled in proportion and never enlarged; it has no page count', async () => {
    const half = await preview(svc, poc.client, projectId, pngId, '?width=100');
    assert.equal(half.status, 200, half.bytes.toString());
    assert.equal(half.headers.get('x-page-count'), null);
    assert.deepEqual(await size(half.bytes), { format: 'webp', width: 100, height: 50 });
    const left = await colourOf(half.bytes, { left: 0.05, top: 0.1, width: 0.35, height: 0.8 });
    const right = await colourOf(half.bytes, { left: 0.6, top: 0.1, width: 0.35, height: 0.8 });
    assert.ok(left.r > 200 && left.b < 60, `the left half stays red: ${JSON.stringify(left)}`);
    assert.ok(right.b > 200 && right.r < 60, `the right half stays blue: ${JSON.stringify(right)}`);
    const wide = await preview(svc, poc.client, projectId, pngId, '?width=1600');
    assert.deepEqual(await size(wide.bytes), { format: 'webp', width: 200, height: 100 });
    const defaultWidth = await preview(svc, poc.client, projectId, pngId);
    assert.deepEqual(await size(defaultWidth.bytes), { format: 'webp', width: 200, height: 100 });
    assert.deepEqual((await preview(svc, poc.client, projectId, pngId, '?page=2')).json, NO_PREVIEW);
  });

  test('page and width out of range or not whole numbers: 400 naming the parameter, nothing made', async () => {
    const cacheDir = path.join(svc.dataDir, 'previews');
    const before = fs.existsSync(cacheDir) ? fs.readdirSync(cacheDir).sort() : [];
    const cases: [string, RegExp][] = [
      ['?page=0', /page/],
      ['?page=', /page/],
      ['?page=1e0', /page/],
      ['?page=-1', /page/],
      ['?page=1.5', /page/],
      ['?page=two', /page/],
      ['?width=63', /width/],
      ['?width=1601', /width/],
      ['?width=320px', /width/],
      ['?width=100.5', /width/],
    ];
    for (const [query, named] of cases) {
      const res = await preview(svc, poc.client, projectId, pdfId, query);
      assert.equal(res.status, 400, query);
      assert.equal(typeof res.json?.error, 'string', query);
      assert.match(res.json.error, named, `${query}: ${res.json.error}`);
    }
    const after = fs.existsSync(cacheDir) ? fs.readdirSync(cacheDir).sort() : [];
    assert.deepEqual(after, before);
  });

  test('ETag and If-None-Match: 304 with the same ETag; another page or width is another ETag', async () => {
    const first = await preview(svc, poc.client, projectId, pdfId, '?page=1&width=200');
    const etag = first.headers.get('etag');
    assert.ok(etag, 'an ETag');
    const same = await preview(svc, poc.client, projectId, pdfId, '?page=1&width=200', { 'if-none-match': etag });
    assert.equal(same.status, 304);
    assert.equal(same.headers.get('etag'), etag);
    assert.match(same.headers.get('cache-control') ?? '', /private/);
    assert.equal(same.bytes.length, 0);
    const other = await preview(svc, poc.client, projectId, pdfId, '?page=2&width=200', { 'if-none-match': etag });
    assert.equal(other.status, 200);
    assert.notEqual(other.headers.get('etag'), etag);
    // Access is checked before the ETag: someone who may not see the project gets 404 even with it.
    assert.equal((await preview(svc, otherPoc.client, projectId, pdfId, '?page=1&width=200', { 'if-none-match': etag })).status, 404);
  });

  test('who may see the project: its POC and an ADMIN; another POC 404; no session 401', async () => {
    assert.equal((await preview(svc, poc.client, projectId, pngId)).status, 200);
    assert.equal((await preview(svc, admin.client, projectId, pngId)).status, 200);
    const stranger = await preview(svc, otherPoc.client, projectId, pngId);
    assert.equal(stranger.status, 404);
    assert.deepEqual(stranger.json, { error: 'Project not found' });
    const anonymous = await preview(svc, null, projectId, pngId);
    assert.equal(anonymous.status, 401);
    assert.deepEqual(anonymous.json, { error: 'Unauthorized' });
    // A document of another project, asked for through this one, is not found.
    const elsewhere = (await svc.createProject(otherPoc.user.id, { status: 'APPROVED', piStatus: 'VERIFIED' })).id;
    const theirs = await upload(otherPoc, elsewhere, await twoColourPng(), 'theirs.png', 'image/png');
    assert.deepEqual((await preview(svc, poc.client, projectId, theirs)).json, { error: 'Document not found' });
    assert.equal((await preview(svc, otherPoc.client, elsewhere, theirs)).status, 200);
  });

  test('documents without a preview: a type without one, a page past the end', async () => {
    const text = await upload(poc, projectId, Buffer.from('Quantity: 5000\n'), 'notes.txt', 'text/plain');
    const docx = await upload(poc, projectId, Buffer.from('PK\x03\x04 not really a document', 'latin1'), 'brief.docx', 'application/vnd.openxmlformats-officedocument.wordprocessingml.document');
    for (const id of [text, docx]) {
      const res = await preview(svc, poc.client, projectId, id);
      assert.equal(res.status, 404);
      assert.deepEqual(res.json, NO_PREVIEW);
    }
    const past = await preview(svc, poc.client, projectId, pdfId, '?page=4');
    assert.equal(past.status, 404);
    assert.deepEqual(past.json, NO_PREVIEW);
  });

  test('previews asked for at once wait their turn and all arrive, each at its width', async () => {
    const widths = [64, 80, 96, 112, 128, 144];
    const answers = await Promise.all(widths.map((w) => preview(svc, poc.client, projectId, pdfId, `?page=2&width=${w}`)));
    for (const [i, res] of answers.entries()) {
      assert.equal(res.status, 200, res.bytes.toString());
      assert.equal((await size(res.bytes)).width, widths[i]);
    }
  });

  test('malformed and hostile PDFs: no preview within the bound, while /healthz keeps answering fast', async () => {
    for (const [name, make] of Object.entries(hostilePdfs)) {
      const id = await upload(poc, projectId, make(), `${name}.pdf`, 'application/pdf');
      const healthz: number[] = [];
      let done = false;
      const probe = (async () => {
        while (!done) {
          const t = performance.now();
          const res = await fetch(`${svc.url}/healthz`);
          assert.equal(res.status, 200);
          await res.arrayBuffer();
          healthz.push(performance.now() - t);
          await new Promise((r) => setTimeout(r, 20));
        }
      })();
      const started = performance.now();
      const res = await preview(svc, poc.client, projectId, id);
      const took = performance.now() - started;
      done = true;
      await probe;
      assert.equal(res.status, 404, `${name}: ${res.status}`);
      assert.deepEqual(res.json, NO_PREVIEW, name);
      // 10 s for the rendering, and the reading and the start of a rendering process beside it (generous: a loaded machine).
      assert.ok(took < 20_000, `${name} took ${Math.round(took)} ms`);
      const worst = Math.max(...healthz);
      assert.ok(worst < 1_000, `${name}: /healthz took up to ${Math.round(worst)} ms while the preview was made (${healthz.length} probes)`);
      // The failure is remembered: asking again answers at once.
      const t = performance.now();
      assert.deepEqual((await preview(svc, poc.client, projectId, id)).json, NO_PREVIEW);
      assert.ok(performance.now() - t < 2_000, `${name}: the second answer should come from the cache`);
    }
    // The service still makes previews afterwards.
    assert.equal((await preview(svc, poc.client, projectId, pdfId, '?page=3&width=100')).status, 200);
  });
});

test('the preview settings are checked at start-up: the time bound is at most 10 s', () => {
  assert.equal(loadConfig({}).previews.timeoutMs, 10_000);
  assert.throws(() => loadConfig({ PREVIEW_TIMEOUT_MS: '20000' }), (err: Error) => err instanceof ConfigError && /PREVIEW_TIMEOUT_MS/.test(err.message));
  assert.throws(() => loadConfig({ PREVIEW_CONCURRENCY: '0' }), ConfigError);
  assert.equal(loadConfig({ PREVIEW_CACHE_MB: '64' }).previews.cacheBytes, 64 * 1024 * 1024);
});

describe('previews from an S3 store', () => {
  let s3: S3Server;
  let svc: TestService;

  before(async () => {
    s3 = await startS3Server();
    svc = await startTestService({ env: s3.env() });
  });
  after(async () => {
    await svc?.close();
    await s3?.close();
  });

  test('the bytes are read through the store: a page of a PDF, and no preview once the object is gone', async () => {
    const poc = await svc.signIn('POC');
    const projectId = (await svc.createProject(poc.user.id, { status: 'APPROVED', piStatus: 'VERIFIED' })).id;
    const id = await upload(poc, projectId, barsPdf(2), 'artwork.pdf', 'application/pdf');
    const res = await preview(svc, poc.client, projectId, id, '?page=2&width=100');
    assert.equal(res.status, 200, res.bytes.toString());
    assert.equal(res.headers.get('x-page-count'), '2');
    assert.equal((await size(res.bytes)).width, 100);
    for (const key of s3.keys()) fs.rmSync(path.join(s3.dir, s3.bucket, `${key}._S3rver_object`), { force: true });
    const gone = await preview(svc, poc.client, projectId, id, '?page=1&width=100');
    assert.deepEqual(gone.json, NO_PREVIEW);
  });
});
