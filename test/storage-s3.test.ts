/**
 * STORAGE_DRIVER=s3 against a real S3-compatible server (s3rver) over real HTTP: the bytes, type
 * and download name round-trip; the specification's key layout; never an overwrite (a key taken
 * before the check moves to the next millisecond, one taken between the check and the write is
 * refused by If-None-Match); broken and oversized bodies; a store that fails mid-upload; a
 * 128 MiB upload in flat memory; and the store going away and coming back.
 *
 * The service talks to s3rver through a front (test/helpers/s3-server.ts) that enforces
 * If-None-Match like AWS S3 does, records the requests and stages the races.
 */
import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { RssSampler, settledRss, startChildService } from './helpers/child-service.js';
import { eventually } from './helpers/eventually.js';
import { INTRUDER_BYTES, type S3Front, type S3Server, startS3Front, startS3Server } from './helpers/s3-server.js';
import { type Client, type TestService, startTestService } from './helpers/service.js';
import { formatBytes } from '../src/domain/units.js';
import { type Part, assertNothingStoredSince, multipart, postMultipart, storedState, streamRequest, streamUpload } from './helpers/upload.js';

const MiB = 1024 * 1024;
const MAX_UPLOAD = 16 * MiB;

let s3: S3Server;
let front: S3Front;
let svc: TestService;
let admin: Client;

before(async () => {
  s3 = await startS3Server();
  front = await startS3Front(s3);
  svc = await startTestService({ env: { ...s3.env(front.endpoint), MAX_UPLOAD_BYTES: String(MAX_UPLOAD) } });
  admin = (await svc.signIn('ADMIN')).client;
});
after(async () => {
  await svc?.close();
  await front?.close();
  await s3?.close();
});

const pdfBytes = Buffer.concat([Buffer.from('%PDF-1.4\n'), randomBytes(3000), Buffer.from('\n%%EOF\n')]);

const readyProject = async () => svc.createProject((await svc.createUser({ role: 'POC' })).user.id, { status: 'APPROVED', piStatus: 'VERIFIED' });

function form(projectId: string, file: { data: Buffer; filename?: string; type?: string }, fileFirst = false): Part[] {
  const fields: Part[] = [
    { name: 'projectId', value: projectId },
    { name: 'fileType', value: 'PO' },
  ];
  const part: Part = { name: 'file', filename: file.filename ?? 'document.pdf', type: file.type ?? 'application/pdf', data: file.data };
  return fileFirst ? [part, ...fields] : [...fields, part];
}

/** The object key behind a URL the service answered. */
function keyOf(url: string): string {
  const base = `${s3.endpoint}/${s3.bucket}/`;
  assert.ok(url.startsWith(base), `${url} is not under ${base}`);
  return url.slice(base.length).split('/').map(decodeURIComponent).join('/');
}

function assertCreated(res: { status: number; body: unknown; text: string }, filename: string, size: number): { id: string; url: string } {
  assert.equal(res.status, 201, res.text);
  assert.deepEqual(Object.keys(res.body as object).sort(), ['filename', 'id', 'size', 'url']);
  const body = res.body as { id: string; url: string; filename: string; size: number };
  assert.equal(body.filename, filename);
  assert.equal(body.size, size);
  return body;
}

/** The store's requests for one key since `from` (index into front.requests), as "METHOD ?query" without the SDK's x-id and upload ids. */
function requestsFor(key: string, from: number): string[] {
  const path = `/${s3.bucket}/${key}`;
  return front.requests
    .slice(from)
    .filter((r) => r.url.split('?')[0] === path)
    .map((r) => {
      const query = [...new URL(r.url, s3.endpoint).searchParams].filter(([k]) => k !== 'x-id').map(([k, v]) => (k === 'partNumber' ? `${k}=${v}` : k));
      return query.length ? `${r.method} ?${query.join('&')}` : r.method;
    });
}

describe('uploads', () => {
  test('bytes, content type and download name round-trip under <folder>/<public name>.<ext>, written with If-None-Match', async () => {
    const p = await readyProject();
    const from = front.requests.length;
    const t0 = Date.now();
    const res = await admin.upload([['projectId', p.id], ['fileType', 'PO'], ['file', { data: pdfBytes, filename: 'purchase order.pdf', type: 'application/pdf' }]]);
    const t1 = Date.now();
    const body = assertCreated(res, 'purchase order.pdf', pdfBytes.length);

    // interface.md "Files": print-orders/<projectId>/<type>/<type>_<ms>.<ext>, public at S3's address.
    const m = new RegExp(`^print-orders/${p.id}/po/po_(\\d+)\\.pdf$`).exec(keyOf(body.url));
    assert.ok(m, body.url);
    assert.ok(Number(m[1]) >= t0 && Number(m[1]) <= t1, `public name time ${m[1]} not within the request (${t0}..${t1})`);
    assert.equal(body.url, `${s3.endpoint}/${s3.bucket}/print-orders/${p.id}/po/po_${m[1]}.pdf`);

    const stored = await s3.get(keyOf(body.url));
    assert.equal(stored.status, 200);
    assert.deepEqual(stored.bytes, pdfBytes);
    assert.equal(stored.headers.get('content-type'), 'application/pdf');
    assert.equal(stored.headers.get('content-disposition'), `inline; filename="purchase order.pdf"; filename*=UTF-8''purchase%20order.pdf`);
    assert.equal(stored.headers.get('cache-control'), 'public, max-age=31536000, immutable');

    // Asked first, then one conditional PUT.
    assert.deepEqual(requestsFor(keyOf(body.url), from), ['HEAD', 'PUT']);
    const put = front.requests.slice(from).find((r) => r.method === 'PUT')!;
    assert.equal(put.headers['if-none-match'], '*');

    // The record keeps that address; one activity entry.
    const shown = await admin.get(`/api/projects/${p.id}`);
    assert.deepEqual(
      shown.body.files.map((f: { url: string; contentType: string; size: number }) => [f.url, f.contentType, f.size]),
      [[body.url, 'application/pdf', pdfBytes.length]],
    );
    const [record] = await svc.deps.store.files.listForProject(p.id);
    assert.equal(record!.storageKey, keyOf(body.url));
    const activity = await svc.deps.store.activity.list({ all: true }, { entityId: p.id, limit: 10 });
    assert.deepEqual(activity.items.map((a) => a.action), ['PO_UPLOADED']);
  });

  test("the service serves none of the bucket's documents itself: GET /files/<key> is an unknown route", async () => {
    const p = await readyProject();
    const body = assertCreated(await postMultipart(admin, form(p.id, { data: pdfBytes })), 'document.pdf', pdfBytes.length);
    const res = await admin.get(`/files/${keyOf(body.url)}`);
    assert.equal(res.status, 404, res.text);
    assert.deepEqual(res.body, { error: `Route GET /files/${keyOf(body.url)} not found` });
    assert.deepEqual((await s3.get(keyOf(body.url))).bytes, pdfBytes);
  });

  test('a type a browser would run is stored as a download; a name without a usable extension gets none', async () => {
    const p = await readyProject();
    const html = Buffer.from('<script>alert(1)</script>');
    const body = assertCreated(await postMultipart(admin, form(p.id, { data: html, filename: 'page.html', type: 'text/html' })), 'page.html', html.length);
    assert.match(keyOf(body.url), /\/po_\d+\.html$/);
    const stored = await s3.get(keyOf(body.url));
    assert.equal(stored.headers.get('content-type'), 'text/html');
    assert.match(stored.headers.get('content-disposition') ?? '', /^attachment; filename="page.html"/);

    const plain = assertCreated(await postMultipart(admin, form(p.id, { data: pdfBytes, filename: 'no extension', type: 'application/octet-stream' })), 'no extension', pdfBytes.length);
    assert.match(keyOf(plain.url), new RegExp(`^print-orders/${p.id}/po/po_\\d+$`));
    assert.deepEqual((await s3.get(keyOf(plain.url))).bytes, pdfBytes);
  });

  for (const fileFirst of [false, true]) {
    test(`a 12 MiB file goes up in parts and comes back intact; the completion is conditional too (${fileFirst ? 'file first, spooled' : 'fields first, streamed'})`, async () => {
      const p = await readyProject();
      const data = randomBytes(12 * MiB);
      const from = front.requests.length;
      const body = assertCreated(await postMultipart(admin, form(p.id, { data, filename: 'scan.pdf' }, fileFirst)), 'scan.pdf', data.length);
      const key = keyOf(body.url);
      assert.deepEqual((await s3.get(key)).bytes, data);
      const calls = requestsFor(key, from);
      assert.equal(calls[0], 'HEAD');
      assert.equal(calls[1], 'POST ?uploads');
      assert.deepEqual(calls.slice(2, -1).sort(), ['PUT ?partNumber=1&uploadId', 'PUT ?partNumber=2&uploadId', 'PUT ?partNumber=3&uploadId']);
      assert.equal(calls.at(-1), 'POST ?uploadId');
      const complete = front.requests.slice(from).filter((r) => r.method === 'POST').at(-1)!;
      assert.equal(complete.headers['if-none-match'], '*');
      assert.deepEqual(s3.pendingUploads(), []);
    });
  }

  test('concurrent uploads of one type to one project get distinct keys, each with its own bytes', async () => {
    const p = await readyProject();
    const datas = Array.from({ length: 6 }, (_, i) => Buffer.concat([Buffer.from(`%PDF-1.4 document ${i}\n`), randomBytes(2000 + i)]));
    const results = await Promise.all(datas.map((data, i) => postMultipart(admin, form(p.id, { data, filename: `d${i}.pdf` }))));
    const urls = results.map((res, i) => assertCreated(res, `d${i}.pdf`, datas[i]!.length).url);
    assert.equal(new Set(urls).size, datas.length);
    for (const [i, url] of urls.entries()) assert.deepEqual((await s3.get(keyOf(url))).bytes, datas[i]);
  });
});

describe('never an overwrite', () => {
  test('a key another writer holds before the check: the upload moves to the next millisecond, the holder untouched', async () => {
    const p = await readyProject();
    front.plan('taken-before-head');
    const intruded = front.intruded.length;
    const body = assertCreated(await postMultipart(admin, form(p.id, { data: pdfBytes })), 'document.pdf', pdfBytes.length);
    const taken = front.intruded[intruded]!;
    const ms = Number(/po_(\d+)\.pdf$/.exec(taken)![1]);
    assert.equal(keyOf(body.url), taken.replace(`po_${ms}.pdf`, `po_${ms + 1}.pdf`));
    assert.deepEqual((await s3.get(taken)).bytes.toString(), INTRUDER_BYTES);
    assert.deepEqual((await s3.get(keyOf(body.url))).bytes, pdfBytes);
  });

  test('a key taken between the check and the write of a small file (held whole in memory): If-None-Match refuses it, the bytes go to the next millisecond, the holder untouched', async () => {
    const p = await readyProject();
    front.plan('taken-before-write');
    const intruded = front.intruded.length;
    const from = front.requests.length;
    const data = Buffer.concat([pdfBytes, randomBytes(4000)]);
    const body = assertCreated(await postMultipart(admin, form(p.id, { data })), 'document.pdf', data.length);
    const taken = front.intruded[intruded]!;
    assert.ok(taken, 'the front staged no race');
    assert.equal(front.requests.slice(from).filter((r) => r.status === 412).length, 1);
    const ms = Number(/po_(\d+)\.pdf$/.exec(taken)![1]);
    assert.equal(keyOf(body.url), taken.replace(`po_${ms}.pdf`, `po_${ms + 1}.pdf`));
    assert.deepEqual((await s3.get(taken)).bytes.toString(), INTRUDER_BYTES);
    assert.deepEqual((await s3.get(keyOf(body.url))).bytes, data);
  });

  // Past the size a file is held in memory (256 KiB), the body is read into the refused write.
  for (const { label, size } of [
    { label: 'one PUT', size: 2 * MiB },
    { label: 'multipart', size: 6 * MiB },
  ]) {
    test(`a key taken between the check and the write (${label}): If-None-Match refuses it, 500, nothing recorded, the holder untouched`, async () => {
      const p = await readyProject();
      const before = await storedState(svc, [p.id]);
      front.plan('taken-before-write');
      const intruded = front.intruded.length;
      const from = front.requests.length;
      const res = await postMultipart(admin, form(p.id, { data: Buffer.concat([pdfBytes, randomBytes(size)]) }));
      const taken = front.intruded[intruded]!;
      assert.ok(taken, 'the front staged no race');
      // The body was read into the refused write: its bytes are gone, so the service cannot move on.
      assert.equal(res.status, 500, res.text);
      assert.deepEqual(res.body, { error: `Storage object ${taken} already exists` });
      assert.deepEqual((await s3.get(taken)).bytes.toString(), INTRUDER_BYTES);
      assert.equal(front.requests.slice(from).filter((r) => r.status === 412).length, 1);
      assert.deepEqual(s3.pendingUploads(), [], 'a refused multipart upload is aborted');
      await assertNothingStoredSince(svc, before);
      assert.deepEqual(s3.keys().filter((k) => k.includes(p.id)), [taken]);
    });
  }
});

describe('broken bodies and failing stores', () => {
  const b = 'broken-boundary';
  const send = (bytes: Iterable<Buffer> | AsyncIterable<Buffer>) =>
    streamRequest(`${svc.url}/api/upload`, { headers: { cookie: admin.cookie!, 'content-type': `multipart/form-data; boundary=${b}` }, body: bytes });

  test('a body that breaks off mid-file: 400, nothing in the bucket', async () => {
    const p = await readyProject();
    const before = await storedState(svc, [p.id]);
    const res = await send([multipart(form(p.id, { data: Buffer.alloc(0) }), b).body.subarray(0, -(`\r\n--${b}--\r\n`.length)), randomBytes(7 * MiB)]);
    assert.equal(res.status, 400, res.text);
    assert.deepEqual(res.body, { error: 'Malformed multipart body' });
    await assertNothingStoredSince(svc, before);
    assert.deepEqual(s3.keys().filter((k) => k.includes(p.id)), []);
    assert.deepEqual(s3.pendingUploads(), []);
  });

  test('a body that breaks off after the whole file: 400, and the stored object is removed again', async () => {
    const p = await readyProject();
    const before = await storedState(svc, [p.id]);
    const from = front.requests.length;
    const stored = () => front.requests.slice(from).some((r) => r.method === 'PUT' && r.status === 200);
    async function* body() {
      // Up to the next part's delimiter (the file is complete), then the break once the object is stored.
      yield Buffer.concat([multipart(form(p.id, { data: pdfBytes }), b).body.subarray(0, -`--${b}--\r\n`.length), Buffer.from(`--${b}\r\n`)]);
      await eventually('the object stored', stored);
      yield Buffer.from('Content-Disposition: form-da');
    }
    const res = await send(body());
    assert.equal(res.status, 400, res.text);
    assert.deepEqual(res.body, { error: 'Malformed multipart body' });
    await assertNothingStoredSince(svc, before);
    assert.deepEqual(s3.keys().filter((k) => k.includes(p.id)), []);
    const key = front.requests.slice(from).find((r) => r.method === 'PUT')!.url.split('?')[0]!.slice(`/${s3.bucket}/`.length);
    assert.deepEqual(requestsFor(key, from), ['HEAD', 'PUT', 'DELETE']);
  });

  test('a file over MAX_UPLOAD_BYTES, streamed in parts: 413, the multipart upload aborted, nothing stored', async () => {
    const p = await readyProject();
    const before = await storedState(svc, [p.id]);
    const res = await postMultipart(admin, form(p.id, { data: randomBytes(MAX_UPLOAD + 1) }));
    assert.equal(res.status, 413, res.text);
    assert.deepEqual(res.body, { error: `File is larger than the upload limit of ${formatBytes(MAX_UPLOAD)}` });
    await assertNothingStoredSince(svc, before);
    assert.deepEqual(s3.keys().filter((k) => k.includes(p.id)), []);
    assert.deepEqual(s3.pendingUploads(), []);
  });

  test("a store that fails mid-upload (UploadPart 500): 500 with the store's message, nothing recorded, the upload aborted", async () => {
    const p = await readyProject();
    const before = await storedState(svc, [p.id]);
    front.failParts = true;
    let res;
    try {
      res = await postMultipart(admin, form(p.id, { data: randomBytes(12 * MiB) }));
    } finally {
      front.failParts = false;
    }
    assert.equal(res.status, 500, res.text);
    assert.match(res.body.error, new RegExp(`^S3 upload of print-orders/${p.id}/po/po_\\d+\\.pdf failed: We encountered an internal error\\. Please try again\\. \\(HTTP 500\\)$`));
    await assertNothingStoredSince(svc, before);
    assert.deepEqual(s3.keys().filter((k) => k.includes(p.id)), []);
    assert.deepEqual(s3.pendingUploads(), []);
  });
});

describe('the store goes away and comes back', () => {
  test('while s3rver is down: uploads answer 500 naming the failure, nothing is recorded, /readyz is 503 naming storage, the service stays up; then it recovers', async () => {
    // Straight at s3rver (no front), so the failure is the store's own refused connection.
    const direct = await startTestService({ env: s3.env() });
    try {
      const client = (await direct.signIn('ADMIN')).client;
      const p = await direct.createProject((await direct.createUser({ role: 'POC' })).user.id, { status: 'APPROVED', piStatus: 'VERIFIED' });
      const ready = await direct.anonymous.get('/readyz');
      assert.equal(ready.status, 200, ready.text);
      assert.equal(ready.body.checks.storage, 'ok');

      await s3.stop();
      try {
        const res = await postMultipart(client, form(p.id, { data: pdfBytes }));
        assert.equal(res.status, 500, res.text);
        assert.equal(res.headers.get('content-type'), 'application/json; charset=utf-8');
        assert.match(res.body.error, new RegExp(`^S3 upload of print-orders/${p.id}/po/po_\\d+\\.pdf failed: connect ECONNREFUSED 127\\.0\\.0\\.1:\\d+$`));
        const shown = await client.get(`/api/projects/${p.id}`);
        assert.equal(shown.status, 200);
        assert.deepEqual(shown.body.files, []);
        const activity = await client.get(`/api/activity?entityType=project&entityId=${p.id}`);
        assert.deepEqual(activity.body.items, []);

        const notReady = await direct.anonymous.get('/readyz');
        assert.equal(notReady.status, 503, notReady.text);
        assert.match(notReady.body.error, /^Not ready: storage \(S3 bucket print-orders-test at http:\/\/127\.0\.0\.1:\d+: connect ECONNREFUSED 127\.0\.0\.1:\d+\)$/);
        assert.deepEqual((await direct.anonymous.get('/healthz')).body, { status: 'ok' });
      } finally {
        await s3.restart();
      }

      const body = assertCreated(await postMultipart(client, form(p.id, { data: pdfBytes })), 'document.pdf', pdfBytes.length);
      assert.deepEqual((await s3.get(keyOf(body.url))).bytes, pdfBytes);
      assert.equal((await direct.anonymous.get('/readyz')).status, 200);
      assert.equal((await client.get(`/api/projects/${p.id}`)).body.files.length, 1);
    } finally {
      await direct.close();
    }
  });

  test('a store that accepts connections but never answers: /readyz says so within its timeout', async () => {
    front.stall = true;
    try {
      const res = await svc.anonymous.get('/readyz');
      assert.equal(res.status, 503, res.text);
      // The driver's bound (2.5 s) or /readyz's own (3 s), whichever the scheduler lets fire first.
      assert.ok(
        [`Not ready: storage (S3 bucket ${s3.bucket} at ${front.endpoint} did not answer within 2.5 s)`, 'Not ready: storage (no answer within 3000 ms)'].includes(res.body.error),
        res.text,
      );
    } finally {
      front.stall = false;
    }
    assert.equal((await svc.anonymous.get('/readyz')).status, 200);
  });
});

describe('memory', () => {
  test('a 128 MiB upload streams into the bucket while the server’s RSS grows by less than half of it', async (t) => {
    const FILE_BYTES = 128 * MiB;
    const MAX_RSS_GROWTH = 64 * MiB;
    // Its own process, so its RSS is its own; the keys come from the SDK's default chain (AWS_* variables) here.
    const { S3_ACCESS_KEY_ID: accessKeyId, S3_SECRET_ACCESS_KEY: secretAccessKey, ...env } = s3.env();
    const child = await startChildService({ ...env, AWS_ACCESS_KEY_ID: accessKeyId!, AWS_SECRET_ACCESS_KEY: secretAccessKey!, MAX_UPLOAD_BYTES: String(200 * MiB) });
    try {
      const created = await child.admin.post('/api/projects', { name: 'Big scan' });
      assert.equal(created.status, 201, created.text);
      const projectId = created.body.id as string;
      assert.equal((await child.admin.post(`/api/projects/${projectId}/approve`)).status, 200);

      // 64 KiB chunks, each stamped with its number, so bytes out of order would not hash the same.
      const base = Buffer.alloc(64 * 1024);
      for (let i = 0; i < base.length; i++) base[i] = (i * 31) & 0xff;
      function* chunks(bytes: number) {
        for (let n = 0; n < bytes / base.length; n++) {
          const chunk = Buffer.from(base);
          chunk.writeUInt32BE(n);
          yield chunk;
        }
      }
      const upload = (bytes: number) =>
        streamUpload(child.url, child.admin.cookie!, { projectId, fileType: 'PO', filename: 'big.bin', type: 'application/octet-stream', chunks: chunks(bytes) });

      // Warm up (SDK, pools, buffers), then measure from a settled baseline.
      const warm = await upload(8 * MiB);
      assert.equal(warm.status, 201, warm.text);
      const baseline = await settledRss(child.pid);
      const sampler = new RssSampler(child.pid, 50).start();
      let res;
      try {
        res = await upload(FILE_BYTES);
      } finally {
        sampler.stop();
      }
      assert.equal(res.status, 201, res.text);
      const peak = Math.max(baseline, sampler.peak);
      const growth = peak - baseline;
      t.diagnostic(`server RSS: baseline ${(baseline / MiB).toFixed(1)} MiB, peak ${(peak / MiB).toFixed(1)} MiB, growth ${(growth / MiB).toFixed(1)} MiB (${sampler.samples} samples)`);
      assert.ok(growth < MAX_RSS_GROWTH, `server RSS grew by ${(growth / MiB).toFixed(1)} MiB (baseline ${(baseline / MiB).toFixed(1)} MiB, peak ${(peak / MiB).toFixed(1)} MiB)`);

      // Every byte arrived, in order.
      const { url, size } = res.body as { url: string; size: number };
      assert.equal(size, FILE_BYTES);
      const expected = createHash('sha256');
      for (const c of chunks(FILE_BYTES)) expected.update(c);
      const stored = await fetch(url);
      assert.equal(stored.status, 200);
      assert.equal(stored.headers.get('content-length'), String(FILE_BYTES));
      const actual = createHash('sha256');
      for await (const c of stored.body!) actual.update(c);
      assert.equal(actual.digest('hex'), expected.digest('hex'));
    } finally {
      await child.stop();
    }
  });
});
