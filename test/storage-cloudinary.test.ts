/**
 * STORAGE_DRIVER=cloudinary against a fake of Cloudinary's API over real HTTP
 * (test/helpers/fake-cloudinary.ts, which checks signatures as Cloudinary does): the
 * specification's upload properties and the secure_url as the record's address; raw files keep
 * their extension; a revoked secret and an unreachable cloud answer 500 with the reason and record
 * nothing; a taken public id is never overwritten; a discarded upload is destroyed; /readyz.
 */
import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import { Readable } from 'node:stream';
import { after, before, describe, test } from 'node:test';
import { eventually } from './helpers/eventually.js';
import { type FakeCloudinary, INTRUDER_ASSET_BYTES, startFakeCloudinary } from './helpers/fake-cloudinary.js';
import { type Client, type TestService, startTestService } from './helpers/service.js';
import { type Part, assertNothingStoredSince, multipart, postMultipart, storedState, streamRequest } from './helpers/upload.js';

let fake: FakeCloudinary;
let svc: TestService;
let admin: Client;

before(async () => {
  fake = await startFakeCloudinary();
  svc = await startTestService({ env: fake.env() });
  admin = (await svc.signIn('ADMIN')).client;
});
after(async () => {
  await svc?.close();
  await fake?.close();
});

const pdfBytes = Buffer.concat([Buffer.from('%PDF-1.4\n'), randomBytes(3000), Buffer.from('\n%%EOF\n')]);

const readyProject = async () => svc.createProject((await svc.createUser({ role: 'POC' })).user.id, { status: 'DISPATCHED', piStatus: 'VERIFIED' });

function form(projectId: string, file: { data: Buffer; filename?: string; type?: string } = { data: pdfBytes }, opts: { fileType?: string; fileFirst?: boolean } = {}): Part[] {
  const fields: Part[] = [
    { name: 'projectId', value: projectId },
    { name: 'fileType', value: opts.fileType ?? 'PO' },
  ];
  const part: Part = { name: 'file', filename: file.filename ?? 'document.pdf', type: file.type ?? 'application/pdf', data: file.data };
  return opts.fileFirst ? [part, ...fields] : [...fields, part];
}

function assertCreated(res: { status: number; body: unknown; text: string }, filename: string, size: number): { id: string; url: string } {
  assert.equal(res.status, 201, res.text);
  assert.deepEqual(Object.keys(res.body as object).sort(), ['filename', 'id', 'size', 'url']);
  const body = res.body as { id: string; url: string; filename: string; size: number };
  assert.equal(body.filename, filename);
  assert.equal(body.size, size);
  return body;
}

const uploadsSince = (from: number) => fake.requests.slice(from).filter((r) => r.action === 'upload');
const assetsOf = (projectId: string) => [...fake.assets.values()].filter((a) => a.publicId.includes(projectId));

describe('uploads', () => {
  test("the specification's properties (folder, public id, resource type auto, public access; the file typed by its name); the record's url is the secure_url", async () => {
    const p = await readyProject();
    const from = fake.requests.length;
    const t0 = Date.now();
    const res = await admin.upload([['projectId', p.id], ['fileType', 'INVOICE'], ['file', { data: pdfBytes, filename: 'invoice 7.pdf', type: 'application/pdf' }]]);
    const t1 = Date.now();
    const body = assertCreated(res, 'invoice 7.pdf', pdfBytes.length);

    const [upload, ...more] = uploadsSince(from);
    assert.equal(more.length, 0);
    assert.equal(upload!.status, 200);
    assert.equal(upload!.method, 'POST');
    assert.equal(upload!.path, `/v1_1/${fake.cloudName}/auto/upload`);
    const { timestamp, signature, ...params } = upload!.params;
    const ms = Number(/^invoice_(\d+)$/.exec(params.public_id!)?.[1]);
    assert.ok(ms >= t0 && ms <= t1, `public id ${params.public_id} not within the request (${t0}..${t1})`);
    assert.deepEqual(params, { folder: `print-orders/${p.id}/invoice`, public_id: `invoice_${ms}`, access_mode: 'public', overwrite: '0', api_key: fake.apiKey });
    assert.match(signature!, /^[0-9a-f]{40}$/);
    assert.ok(Math.abs(Number(timestamp) - Date.now() / 1000) < 60);
    // The secret signs; it never travels.
    assert.ok(!JSON.stringify(upload!.params).includes(fake.apiSecret));
    // The file part: its bytes, and the name Cloudinary types it by (the SDK labels every part application/octet-stream).
    assert.deepEqual(upload!.file, { filename: `invoice_${ms}.pdf`, contentType: 'application/octet-stream', size: pdfBytes.length });

    const [asset, ...others] = assetsOf(p.id);
    assert.equal(others.length, 0);
    assert.deepEqual(asset!.bytes, pdfBytes);
    assert.equal(asset!.resourceType, 'image');
    assert.equal(asset!.format, 'pdf');
    assert.equal(asset!.accessMode, 'public');
    assert.equal(asset!.publicId, `print-orders/${p.id}/invoice/invoice_${ms}`);
    assert.equal(body.url, asset!.secureUrl);
    assert.equal(body.url, `https://res.cloudinary.com/${fake.cloudName}/image/upload/v${asset!.version}/print-orders/${p.id}/invoice/invoice_${ms}.pdf`);

    const shown = await admin.get(`/api/projects/${p.id}`);
    assert.deepEqual(
      shown.body.files.map((f: { url: string; filename: string; contentType: string }) => [f.url, f.filename, f.contentType]),
      [[body.url, 'invoice 7.pdf', 'application/pdf']],
    );
    const activity = await svc.deps.store.activity.list({ all: true }, { entityId: p.id, limit: 10 });
    assert.deepEqual(activity.items.map((a) => a.action), ['INVOICE_UPLOADED']);
  });

  test('a raw file keeps its extension in the public id, so its address has it too (file part first, spooled)', async () => {
    const p = await readyProject();
    const docx = Buffer.concat([Buffer.from('PK\x03\x04'), randomBytes(5000)]);
    const type = 'application/vnd.openxmlformats-officedocument.wordprocessingml.document';
    const from = fake.requests.length;
    const body = assertCreated(await postMultipart(admin, form(p.id, { data: docx, filename: 'challan.docx', type }, { fileType: 'CHALLAN', fileFirst: true })), 'challan.docx', docx.length);
    const [upload] = uploadsSince(from);
    const ms = Number(/^challan_(\d+)\.docx$/.exec(upload!.params.public_id!)?.[1]);
    assert.ok(ms > 0, upload!.params.public_id);
    assert.equal(upload!.file!.filename, `challan_${ms}.docx`);
    const [asset] = assetsOf(p.id);
    assert.equal(asset!.resourceType, 'raw');
    assert.deepEqual(asset!.bytes, docx);
    assert.equal(body.url, `https://res.cloudinary.com/${fake.cloudName}/raw/upload/v${asset!.version}/print-orders/${p.id}/challan/challan_${ms}.docx`);
  });

  test('concurrent uploads to one project and type each land at their own public id', async () => {
    const p = await readyProject();
    const datas = Array.from({ length: 5 }, (_, i) => Buffer.concat([Buffer.from(`%PDF-1.4 copy ${i}\n`), randomBytes(1000 + i)]));
    const results = await Promise.all(datas.map((data, i) => postMultipart(admin, form(p.id, { data, filename: `c${i}.pdf` }))));
    const urls = results.map((res, i) => assertCreated(res, `c${i}.pdf`, datas[i]!.length).url);
    assert.equal(new Set(urls).size, datas.length);
    const byUrl = new Map(assetsOf(p.id).map((a) => [a.secureUrl, a.bytes]));
    for (const [i, url] of urls.entries()) assert.deepEqual(byUrl.get(url), datas[i]);
  });
});

describe('refusals and failures', () => {
  test('a revoked secret: the upload answers 500 with Cloudinary’s message and records nothing; /readyz is 503 naming storage; the right secret recovers', async () => {
    const p = await readyProject();
    const before = await storedState(svc, [p.id]);
    const secret = fake.apiSecret;
    fake.rotateSecret('a-new-secret');
    try {
      const res = await postMultipart(admin, form(p.id));
      assert.equal(res.status, 500, res.text);
      assert.match(
        res.body.error,
        new RegExp(`^Cloudinary upload of print-orders/${p.id}/po/po_\\d+\\.pdf failed: Invalid Signature [0-9a-f]{40}\\. String to sign - 'access_mode=public&folder=print-orders/${p.id}/po&overwrite=0&public_id=po_\\d+&timestamp=\\d+'\\. \\(HTTP 401\\)$`),
      );
      await assertNothingStoredSince(svc, before);
      assert.deepEqual(assetsOf(p.id), []);
      assert.equal((await admin.get(`/api/projects/${p.id}`)).body.files.length, 0);

      const notReady = await svc.anonymous.get('/readyz');
      assert.equal(notReady.status, 503, notReady.text);
      assert.equal(notReady.body.error, `Not ready: storage (Cloudinary cloud ${fake.cloudName}: Invalid api_key ${fake.apiKey} or api_secret (HTTP 401))`);
    } finally {
      fake.rotateSecret(secret);
    }
    assert.equal((await svc.anonymous.get('/readyz')).status, 200);
    assertCreated(await postMultipart(admin, form(p.id)), 'document.pdf', pdfBytes.length);
  });

  test('a public id another writer took first is not overwritten: the refused upload answers 500 and records nothing', async () => {
    const p = await readyProject();
    const before = await storedState(svc, [p.id]);
    const from = fake.requests.length;
    fake.takeNextUploadName();
    // Past the size a file is held whole in memory (1 MiB): a smaller one would simply go to the next name.
    const res = await postMultipart(admin, form(p.id, { data: Buffer.concat([pdfBytes, randomBytes(2 * 1024 * 1024)]) }));
    const [upload] = uploadsSince(from);
    const taken = `print-orders/${p.id}/po/${upload!.params.public_id}`;
    assert.equal((upload!.answer as { existing?: boolean }).existing, true);
    // Cloudinary says so only once it has the whole body: those bytes cannot be sent again under the next name.
    assert.equal(res.status, 500, res.text);
    assert.deepEqual(res.body, { error: `Storage object ${taken}.pdf already exists` });
    assert.deepEqual(fake.assets.get(`image/${taken}`)!.bytes, INTRUDER_ASSET_BYTES);
    await assertNothingStoredSince(svc, before);

    // The name stays reserved; the next upload gets another.
    const body = assertCreated(await postMultipart(admin, form(p.id)), 'document.pdf', pdfBytes.length);
    assert.ok(!body.url.includes(`${taken}.`), body.url);
    assert.deepEqual(fake.assets.get(`image/${taken}`)!.bytes, INTRUDER_ASSET_BYTES);
  });

  test('a small file (held whole in memory) whose public id another writer took first goes to the next name, the holder untouched', async () => {
    const p = await readyProject();
    const from = fake.requests.length;
    fake.takeNextUploadName();
    const body = assertCreated(await postMultipart(admin, form(p.id)), 'document.pdf', pdfBytes.length);
    const [refused, stored] = uploadsSince(from);
    const taken = `print-orders/${p.id}/po/${refused!.params.public_id}`;
    assert.equal((refused!.answer as { existing?: boolean }).existing, true);
    assert.equal(stored!.status, 200);
    assert.ok(!body.url.includes(`${taken}.`), body.url);
    assert.deepEqual(fake.assets.get(`image/${taken}`)!.bytes, INTRUDER_ASSET_BYTES);
  });

  test('a body that breaks off after the whole file: 400, and the asset is destroyed again', async () => {
    const p = await readyProject();
    const before = await storedState(svc, [p.id]);
    const from = fake.requests.length;
    const b = 'broken-boundary';
    const stored = () => uploadsSince(from).some((r) => r.status === 200);
    async function* body() {
      // Up to the next part's delimiter (the file is complete), then the break once the asset is stored.
      yield Buffer.concat([multipart(form(p.id), b).body.subarray(0, -`--${b}--\r\n`.length), Buffer.from(`--${b}\r\n`)]);
      await eventually('the asset stored', stored);
      yield Buffer.from('Content-Disposition: form-da');
    }
    const res = await streamRequest(`${svc.url}/api/upload`, { headers: { cookie: admin.cookie!, 'content-type': `multipart/form-data; boundary=${b}` }, body: body() });
    assert.equal(res.status, 400, res.text);
    assert.deepEqual(res.body, { error: 'Malformed multipart body' });
    await assertNothingStoredSince(svc, before);
    assert.deepEqual(assetsOf(p.id), []);
    const calls = fake.requests.slice(from).map((r) => [r.path, r.status, r.answer]);
    assert.equal(calls.length, 2);
    assert.deepEqual(calls[1], [`/v1_1/${fake.cloudName}/image/destroy`, 200, { result: 'ok' }]);
  });

  test('an unreachable cloud: 500 naming the failure, nothing recorded, /readyz 503, the service stays up', async () => {
    const gone = await startFakeCloudinary({ cloudName: 'gone-cloud' });
    const lone = await startTestService({ env: gone.env() });
    try {
      const client = (await lone.signIn('ADMIN')).client;
      const p = await lone.createProject((await lone.createUser({ role: 'POC' })).user.id, { status: 'APPROVED', piStatus: 'VERIFIED' });
      const before = await storedState(lone, [p.id]);
      await gone.close();
      const res = await postMultipart(client, form(p.id, { data: randomBytes(2 * 1024 * 1024) }));
      assert.equal(res.status, 500, res.text);
      assert.match(res.body.error, new RegExp(`^Cloudinary upload of print-orders/${p.id}/po/po_\\d+\\.pdf failed: connect ECONNREFUSED 127\\.0\\.0\\.1:\\d+$`));
      await assertNothingStoredSince(lone, before);
      const notReady = await lone.anonymous.get('/readyz');
      assert.equal(notReady.status, 503, notReady.text);
      assert.match(notReady.body.error, /^Not ready: storage \(Cloudinary cloud gone-cloud: connect ECONNREFUSED 127\.0\.0\.1:\d+\)$/);
      assert.deepEqual((await lone.anonymous.get('/healthz')).body, { status: 'ok' });
    } finally {
      await lone.close();
      await gone.close();
    }
  });
});

describe('/readyz', () => {
  test('a cloud that accepts connections but never answers: 503 within the check’s timeout', async () => {
    fake.stall = true;
    try {
      const res = await svc.anonymous.get('/readyz');
      assert.equal(res.status, 503, res.text);
      // The driver's bound (2.5 s) or /readyz's own (3 s), whichever the scheduler lets fire first.
      assert.ok(
        [`Not ready: storage (Cloudinary cloud ${fake.cloudName}: did not answer within 2.5 s)`, 'Not ready: storage (no answer within 3000 ms)'].includes(res.body.error),
        res.text,
      );
    } finally {
      fake.stall = false;
    }
    assert.equal((await svc.anonymous.get('/readyz')).status, 200);
  });

  test('answers 200 after a signed call to the cloud (Admin API ping with the key and secret)', async () => {
    const from = fake.requests.length;
    const res = await svc.anonymous.get('/readyz');
    assert.equal(res.status, 200, res.text);
    assert.equal(res.body.checks.storage, 'ok');
    const pings = fake.requests.slice(from).filter((r) => r.action === 'ping');
    assert.equal(pings.length, 1);
    assert.equal(pings[0]!.path, `/v1_1/${fake.cloudName}/ping`);
    assert.equal(pings[0]!.authorization, `Basic ${Buffer.from(`${fake.apiKey}:${fake.apiSecret}`).toString('base64')}`);
  });
});

describe('the driver on its own', () => {
  test('remove() without a remembered upload (another instance) finds the asset by trying each resource type', async () => {
    const { CloudinaryStorage } = await import('../src/storage/cloudinary/index.js');
    const settings = { driver: 'cloudinary' as const, cloudName: fake.cloudName, apiKey: fake.apiKey, apiSecret: fake.apiSecret, uploadPrefix: fake.url };
    const location = { folder: 'print-orders/elsewhere/challan', publicName: `challan_${Date.now()}`, extension: 'csv' };
    const { url } = await new CloudinaryStorage(settings).put(location, Readable.from([Buffer.from('a,b\n1,2\n')]), 'text/csv');
    assert.match(url, new RegExp(`/raw/upload/v\\d+/print-orders/elsewhere/challan/${location.publicName}\\.csv$`));
    const from = fake.requests.length;
    await new CloudinaryStorage(settings).remove(location);
    assert.deepEqual(
      fake.requests.slice(from).map((r) => [r.path, r.params.public_id, r.answer]),
      (['image', 'video', 'raw'] as const).map((type) => [`/v1_1/${fake.cloudName}/${type}/destroy`, `print-orders/elsewhere/challan/${location.publicName}.csv`, { result: type === 'raw' ? 'ok' : 'not found' }]),
    );
    assert.equal(fake.assets.get(`raw/print-orders/elsewhere/challan/${location.publicName}.csv`), undefined);
  });
});

describe('the fake', () => {
  test('refuses a signed destroy without a public id, as Cloudinary does', async () => {
    const { stringToSign } = await import('./helpers/fake-cloudinary.js');
    const params = { timestamp: String(Math.floor(Date.now() / 1000)), type: 'upload' };
    const form = new FormData();
    for (const [k, v] of Object.entries({ ...params, api_key: fake.apiKey, signature: createHash('sha1').update(stringToSign(params) + fake.apiSecret).digest('hex') })) form.append(k, v);
    const res = await fetch(`${fake.url}/v1_1/${fake.cloudName}/image/destroy`, { method: 'POST', body: form });
    assert.equal(res.status, 400);
    assert.deepEqual(await res.json(), { error: { message: 'Missing required parameter - public_id' } });
  });

  test("checks signatures the way the SDK's api_sign_request makes them", async () => {
    const { v2 } = await import('cloudinary');
    const params = { timestamp: 1700000000, public_id: 'a&b', folder: 'x/y', overwrite: 0, access_mode: 'public' };
    const sdk = v2.utils.api_sign_request(params, 'secret');
    const { stringToSign } = await import('./helpers/fake-cloudinary.js');
    const ours = createHash('sha1')
      .update(stringToSign(Object.fromEntries(Object.entries(params).map(([k, v]) => [k, String(v)]))) + 'secret')
      .digest('hex');
    assert.equal(ours, sdk);
  });
});
