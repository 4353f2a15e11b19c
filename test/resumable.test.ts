/**
 * Resumable uploads (tus 1.0 at /api/resumable-uploads) over real HTTP: a creation that fails the
 * specification's checks 1–7 answers its status and message and stores nothing; an upload in
 * chunks becomes one document by the same steps as POST /api/upload (checksum, record, activity,
 * result); an upload whose connection is cut halfway (a TCP proxy in the test) resumes from its offset with
 * tus-js-client and yields one document; uploads are private to their creator; a completion the
 * project no longer allows is refused with the specification's answer and stores nothing; the
 * completion names, announces and emails the document as POST /api/upload does; UPLOAD_ALLOWED_TYPES
 * refuses a declared type at creation and HTML bytes declared as a PDF at completion; an unfinished
 * upload past RESUMABLE_UPLOAD_EXPIRY_HOURS is swept away.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import * as tus from 'tus-js-client';
import type { Role, User } from '../src/domain/model.js';
import { sha256sum } from './helpers/checksum.js';
import { eventually } from './helpers/eventually.js';
import { type Client, type TestService, openEventStream, startTestService } from './helpers/service.js';
import { TUS, tusCreate as create, tusMetadata as metadata, tusPatch as patch } from './helpers/tus.js';
import { assertNothingStoredSince, filesUnder, httpGet, storedState } from './helpers/upload.js';

interface Person {
  user: User;
  client: Client;
}

let svc: TestService;
let admin: Person;
let poc: Person;
let otherPoc: Person;
const MAX = 8 * 1024 * 1024;

before(async () => {
  svc = await startTestService({ env: { MAX_UPLOAD_BYTES: String(MAX) } });
  const [a, p, o] = await Promise.all((['ADMIN', 'POC', 'POC'] as Role[]).map((r) => svc.signIn(r)));
  [admin, poc, otherPoc] = [a!, p!, o!];
});
after(() => svc.close());

const readyProject = (status: 'APPROVED' | 'DISPATCHED' = 'DISPATCHED') => svc.createProject(poc.user.id, { status, piStatus: 'VERIFIED' });

const resumableFiles = (on = svc) => {
  const dir = path.join(on.dataDir, 'resumable');
  return fs.existsSync(dir) ? fs.readdirSync(dir) : [];
};
const resumableRow = (on: TestService, id: string) => on.deps.database.db.selectFrom('resumable_uploads').select('id').where('id', '=', id).executeTakeFirst();
const resumableRowCount = async (on: TestService) => (await on.deps.database.db.selectFrom('resumable_uploads').select('id').execute()).length;
const idOf = (location: string) => location.split('/').pop()!;

describe('creation runs checks 1–7 before a byte', () => {
  test("each refusal answers the specification's status and message and stores nothing", async () => {
    const approved = await readyProject('APPROVED');
    const requested = await svc.createProject(poc.user.id, { status: 'REQUESTED' });
    const others = await svc.createProject(otherPoc.user.id, { status: 'DISPATCHED', piStatus: 'VERIFIED' });
    const adminsRequested = await svc.createProject(admin.user.id, { status: 'REQUESTED' });
    const file = { filename: 'po.pdf', filetype: 'application/pdf' };
    const cases: [string, Client, number, Record<string, string>, number, string][] = [
      ['no session', svc.anonymous, 10, { projectId: approved.id, fileType: 'PO', ...file }, 401, 'Unauthorized'],
      ['no projectId', poc.client, 10, { fileType: 'PO', ...file }, 400, 'file, projectId and fileType are required'],
      ['no file name', poc.client, 10, { projectId: approved.id, fileType: 'PO', filetype: 'application/pdf' }, 400, 'file, projectId and fileType are required'],
      ['an empty file', poc.client, 0, { projectId: approved.id, fileType: 'PO', ...file }, 400, 'file, projectId and fileType are required'],
      ['a blank fileType', poc.client, 10, { projectId: approved.id, fileType: ' ', ...file }, 400, 'file, projectId and fileType are required'],
      ['an unknown fileType', poc.client, 10, { projectId: approved.id, fileType: 'BILL', ...file }, 400, 'Invalid fileType'],
      ['an unknown project', poc.client, 10, { projectId: 'nope', fileType: 'PO', ...file }, 404, 'Project not found'],
      ["another POC's project", poc.client, 10, { projectId: others.id, fileType: 'PO', ...file }, 403, 'You can only upload files to your own projects'],
      ['a project not approved', poc.client, 10, { projectId: requested.id, fileType: 'PO', ...file }, 403, 'POCs can upload documents only after admin approves the project and verifies the PI'],
      ['PO before approval (admin)', admin.client, 10, { projectId: adminsRequested.id, fileType: 'PO', ...file }, 400, 'PO can only be uploaded after project approval'],
      ['a challan before dispatch', poc.client, 10, { projectId: approved.id, fileType: 'CHALLAN', ...file }, 400, 'Challan can only be uploaded after dispatch'],
      ['past the size limit', poc.client, MAX + 1, { projectId: approved.id, fileType: 'PO', ...file }, 413, 'File is larger than the upload limit of 8 MB'],
    ];
    for (const [label, who, length, meta, status, error] of cases) {
      const before = await storedState(svc, [approved.id, requested.id, others.id, adminsRequested.id]);
      const filesBefore = resumableFiles();
      const res = await create(who, length, meta);
      assert.equal(res.status, status, `${label}: ${res.text}`);
      assert.deepEqual(res.body, { error }, label);
      assert.equal(res.headers.get('location'), null, label);
      await assertNothingStoredSince(svc, before, label);
      assert.deepEqual(resumableFiles(), filesBefore, label);
    }
  });
});

describe('an upload in chunks', () => {
  test('becomes one document by the same steps as POST /api/upload; the result reads like its answer', async () => {
    const p = await readyProject();
    const data = Buffer.concat([Buffer.from('%PDF-1.4\n'), randomBytes(3 * 1024 * 1024)]);
    const created = await create(poc.client, data.length, { projectId: p.id, fileType: 'INVOICE', filename: 'invoice 7.pdf', filetype: 'application/pdf' });
    assert.equal(created.status, 201, created.text);
    const location = created.headers.get('location')!;
    assert.match(location, /^\/api\/resumable-uploads\/[0-9a-f-]{36}$/);
    const id = location.split('/').pop()!;

    const unfinished = await poc.client.get(`${location}/result`);
    assert.deepEqual([unfinished.status, unfinished.body], [409, { error: 'The upload is not finished' }]);

    const chunk = 1024 * 1024 + 7;
    for (let offset = 0; offset < data.length; offset += chunk) {
      const res = await patch(poc.client, location, offset, data.subarray(offset, offset + chunk));
      assert.equal(res.status, 204, res.text);
      assert.equal(res.headers.get('upload-offset'), String(Math.min(offset + chunk, data.length)));
    }
    const result = await poc.client.get(`${location}/result`);
    assert.equal(result.status, 200, result.text);
    assert.deepEqual(Object.keys(result.body).sort(), ['filename', 'id', 'size', 'url']);
    assert.equal(result.body.filename, 'invoice 7.pdf');
    assert.equal(result.body.size, data.length);
    assert.deepEqual((await httpGet(result.body.url)).bytes, data);

    const project = await poc.client.get(`/api/projects/${p.id}`);
    assert.equal(project.body.files.length, 1);
    assert.equal(project.body.files[0].sha256, sha256sum(data));
    assert.equal(project.body.files[0].detectedContentType, 'application/pdf');
    const activity = await admin.client.get(`/api/activity?entityId=${p.id}&action=INVOICE_UPLOADED`);
    assert.equal(activity.body.items.length, 1);
    // the assembled copy is gone once the document is stored
    assert.ok(!resumableFiles().includes(id));
  });

  test('completion names the document as POST /api/upload does (…/<type>/<type>_<ms>.<ext>), sends project-updated and stats-updated, and queues the admins\' emails', async () => {
    const p = await readyProject();
    const data = Buffer.concat([Buffer.from('%PDF-1.4\n'), randomBytes(200_000)]);
    // Opened before the creation: the first events it carries are the completion's.
    const stream = await openEventStream(admin.client);
    try {
      const created = await create(poc.client, data.length, { projectId: p.id, fileType: 'PO', filename: 'purchase order.pdf', filetype: 'application/pdf' });
      assert.equal(created.status, 201, created.text);
      const location = created.headers.get('location')!;
      assert.equal((await patch(poc.client, location, 0, data.subarray(0, 100_000))).status, 204);
      const t0 = Date.now();
      const last = await patch(poc.client, location, 100_000, data.subarray(100_000));
      const t1 = Date.now();
      assert.equal(last.status, 204, last.text);

      const result = await poc.client.get(`${location}/result`);
      assert.equal(result.status, 200, result.text);
      // interface.md: PUBLIC_URL/files/print-orders/<projectId>/<type>/<type>_<ms>.<ext>, named when the document is placed
      const m = new RegExp(`^${svc.url.replace(/\./g, '\\.')}/files/print-orders/${p.id}/po/po_(\\d+)\\.pdf$`).exec(result.body.url);
      assert.ok(m, result.body.url);
      const ms = Number(m[1]);
      assert.ok(ms >= t0 && ms <= t1, `public name time ${ms} not within the last PATCH (${t0}..${t1})`);
      assert.deepEqual(filesUnder(path.join(svc.dataDir, 'uploads', 'print-orders', p.id)), [`po${path.sep}po_${ms}.pdf`]);

      const events = await stream.next(2);
      assert.deepEqual(
        events.map((e) => [e.event, e.data]),
        [
          ['project-updated', { channel: 'projects', payload: { id: p.id } }],
          ['stats-updated', { channel: 'dashboard', payload: {} }],
        ],
      );
    } finally {
      stream.close();
    }

    // The POC's upload is the admins' news (mail/rules.ts): one email to the one admin, none to the POC.
    const emails = await svc.deps.database.db.selectFrom('outbox').select(['recipient_id', 'events']).where('project_id', '=', p.id).execute();
    assert.deepEqual(
      emails.map((e) => [e.recipient_id, (typeof e.events === 'string' ? JSON.parse(e.events) : e.events).map((ev: { action: string; actorId: string; details: unknown }) => [ev.action, ev.actorId, ev.details])]),
      [[admin.user.id, [['PO_UPLOADED', poc.user.id, { filename: 'purchase order.pdf', size: data.length }]]]],
    );
  });

  test("another user's upload is unknown to them: HEAD, PATCH and the result are 404", async () => {
    const p = await readyProject();
    const created = await create(poc.client, 100, { projectId: p.id, fileType: 'PO', filename: 'a.pdf', filetype: 'application/pdf' });
    const location = created.headers.get('location')!;
    const head = await otherPoc.client.request('HEAD', location, { headers: TUS });
    assert.equal(head.status, 404);
    const res = await patch(otherPoc.client, location, 0, Buffer.alloc(100));
    assert.deepEqual([res.status, res.body], [404, { error: 'Upload not found' }]);
    assert.equal((await otherPoc.client.get(`${location}/result`)).status, 404);
    const mine = await poc.client.request('HEAD', location, { headers: TUS });
    assert.equal(mine.status, 200);
    assert.equal(mine.headers.get('upload-offset'), '0');
  });

  test("a completion the project no longer allows answers the specification's refusal, again at the result, and stores nothing", async () => {
    const p = await readyProject();
    const data = Buffer.from('%PDF-1.4\nchallan\n');
    const created = await create(poc.client, data.length, { projectId: p.id, fileType: 'CHALLAN', filename: 'c.pdf', filetype: 'application/pdf' });
    assert.equal(created.status, 201);
    const location = created.headers.get('location')!;
    await svc.deps.store.projects.update(p.id, { status: 'APPROVED' }, new Date().toISOString());
    const before = await storedState(svc, [p.id]);
    const res = await patch(poc.client, location, 0, data);
    assert.deepEqual([res.status, res.body], [400, { error: 'Challan can only be uploaded after dispatch' }]);
    await assertNothingStoredSince(svc, before);
    const result = await poc.client.get(`${location}/result`);
    assert.deepEqual([result.status, result.body], [400, { error: 'Challan can only be uploaded after dispatch' }]);
  });
});

describe('folders removed while the service runs', () => {
  test('DATA_DIR/resumable (and DATA_DIR/uploads) removed: a new upload makes them again and completes', async () => {
    const p = await readyProject();
    for (const dir of ['resumable', 'uploads']) fs.rmSync(path.join(svc.dataDir, dir), { recursive: true, force: true });
    const data = Buffer.concat([Buffer.from('%PDF-1.4\n'), randomBytes(2 * 1024 * 1024)]);
    const created = await create(poc.client, data.length, { projectId: p.id, fileType: 'PO', filename: 'again.pdf', filetype: 'application/pdf' });
    assert.equal(created.status, 201, created.text);
    const location = created.headers.get('location')!;
    const done = await patch(poc.client, location, 0, data);
    assert.equal(done.status, 204, done.text);
    const result = await poc.client.get(`${location}/result`);
    assert.equal(result.status, 200, result.text);
    assert.deepEqual((await httpGet(result.body.url)).bytes, data);
  });
});

describe('a dropped connection', () => {
  test('an upload cut halfway (TCP proxy) resumes from its offset with tus-js-client and yields one document', async () => {
    const p = await readyProject();
    const data = Buffer.concat([Buffer.from('%PDF-1.4\n'), randomBytes(6 * 1024 * 1024)]);
    const port = Number(new URL(svc.url).port);
    // Cuts the one connection that has carried half the file towards the server, once.
    let cut = false;
    const proxy = net.createServer((client) => {
      const upstream = net.connect(port, '127.0.0.1');
      let forwarded = 0;
      client.on('data', (chunk: Buffer) => {
        forwarded += chunk.length;
        if (!cut && forwarded > data.length / 2) {
          cut = true;
          upstream.write(chunk.subarray(0, chunk.length - (forwarded - Math.floor(data.length / 2))), () => {
            upstream.destroy();
            client.destroy();
          });
          return;
        }
        upstream.write(chunk);
      });
      upstream.pipe(client);
      client.on('error', () => upstream.destroy());
      upstream.on('error', () => client.destroy());
      client.on('close', () => upstream.destroy());
    });
    await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
    const proxyPort = (proxy.address() as net.AddressInfo).port;
    const offsetsAfterCut: number[] = [];
    try {
      const url = await new Promise<string>((resolve, reject) => {
        const upload = new tus.Upload(data, {
          endpoint: `http://127.0.0.1:${proxyPort}/api/resumable-uploads`,
          headers: { cookie: poc.client.cookie! },
          metadata: { projectId: p.id, fileType: 'PO', filename: 'big.pdf', filetype: 'application/pdf' },
          retryDelays: [50, 100, 200, 400, 800],
          chunkSize: Infinity,
          onAfterResponse: (req, res) => {
            if (cut && req.getMethod() === 'HEAD') offsetsAfterCut.push(Number(res.getHeader('Upload-Offset')));
          },
          onSuccess: () => resolve(upload.url!),
          onError: reject,
        });
        upload.start();
      });
      assert.ok(cut, 'the connection was cut');
      assert.ok(offsetsAfterCut.length >= 1, 'the client asked where to resume');
      assert.ok(offsetsAfterCut[0]! > 0 && offsetsAfterCut[0]! < data.length, `resumed from ${offsetsAfterCut[0]}, not from the start or the end`);
      const location = new URL(url).pathname;
      const result = await poc.client.get(`${location}/result`);
      assert.equal(result.status, 200, result.text);
      assert.deepEqual((await httpGet(result.body.url)).bytes, data);
      const files = await svc.deps.store.files.listForProject(p.id);
      assert.equal(files.length, 1);
      assert.equal(files[0]!.sha256, sha256sum(data));
    } finally {
      proxy.close();
    }
  });
});

describe('UPLOAD_ALLOWED_TYPES=application/pdf', () => {
  let typed: TestService;
  let owner: Person;
  const HTML = Buffer.from(`<!doctype html><html><body><script>alert(document.cookie)</script>${'<p>Invoice</p>'.repeat(500)}</body></html>`);

  before(async () => {
    typed = await startTestService({ env: { UPLOAD_ALLOWED_TYPES: 'application/pdf' } });
    owner = await typed.signIn('POC');
  });
  after(() => typed.close());

  const project = () => typed.createProject(owner.user.id, { status: 'DISPATCHED', piStatus: 'VERIFIED' });

  test("a creation declaring a type outside the list answers 415 with POST /api/upload's message, no Location, and stores nothing", async () => {
    const p = await project();
    for (const filetype of ['text/html', 'text/csv', 'image/png']) {
      const before = await storedState(typed, [p.id]);
      const filesBefore = resumableFiles(typed);
      const rowsBefore = await resumableRowCount(typed);
      const res = await create(owner.client, 100, { projectId: p.id, fileType: 'PO', filename: 'po.pdf', filetype });
      assert.equal(res.status, 415, `${filetype}: ${res.text}`);
      assert.deepEqual(res.body, { error: `File type ${filetype} is not allowed` });
      assert.equal(res.headers.get('location'), null, filetype);
      await assertNothingStoredSince(typed, before, filetype);
      assert.deepEqual(resumableFiles(typed), filesBefore, filetype);
      assert.equal(await resumableRowCount(typed), rowsBefore, `a resumable upload was recorded for ${filetype}`);
    }
    const ok = await create(owner.client, 100, { projectId: p.id, fileType: 'PO', filename: 'po.pdf', filetype: 'application/pdf' });
    assert.equal(ok.status, 201, ok.text);
  });

  test('HTML bytes declared as application/pdf are refused at completion (the last PATCH) with 415, again at the result, and nothing is stored', async () => {
    const p = await project();
    const created = await create(owner.client, HTML.length, { projectId: p.id, fileType: 'INVOICE', filename: 'invoice.pdf', filetype: 'application/pdf' });
    assert.equal(created.status, 201, created.text);
    const location = created.headers.get('location')!;
    const before = await storedState(typed, [p.id]);
    // The type is judged once the upload is whole: the PATCH carrying the first bytes is accepted.
    const first = await patch(owner.client, location, 0, HTML.subarray(0, 1000));
    assert.equal(first.status, 204, first.text);
    const last = await patch(owner.client, location, 1000, HTML.subarray(1000));
    assert.deepEqual([last.status, last.body], [415, { error: 'File type text/html is not allowed' }]);
    const result = await owner.client.get(`${location}/result`);
    assert.deepEqual([result.status, result.body], [415, { error: 'File type text/html is not allowed' }]);
    await assertNothingStoredSince(typed, before);
    assert.deepEqual(filesUnder(path.join(typed.dataDir, 'uploads')), []);
    // The assembled bytes are not kept either.
    assert.ok(!resumableFiles(typed).some((f) => f.startsWith(idOf(location))), resumableFiles(typed).join());
  });

  test('a declared type that says nothing (application/octet-stream, as the web app sends for a file without one) is left to the bytes, as POST /api/upload does', async () => {
    const p = await project();
    const pdf = Buffer.concat([Buffer.from('%PDF-1.4\n'), randomBytes(5000)]);
    const unknown = Buffer.alloc(5000, 'A');
    const plain = await owner.client.upload([['projectId', p.id], ['fileType', 'PO'], ['file', { data: pdf, filename: 'scan', type: 'application/octet-stream' }]]);
    assert.equal(plain.status, 201, plain.text);

    const meta = { projectId: p.id, fileType: 'PO', filename: 'scan', filetype: 'application/octet-stream' };
    const created = await create(owner.client, pdf.length, meta);
    assert.equal(created.status, 201, created.text);
    const done = await patch(owner.client, created.headers.get('location')!, 0, pdf);
    assert.equal(done.status, 204, done.text);

    const refused = await create(owner.client, unknown.length, meta);
    assert.equal(refused.status, 201, refused.text);
    const before = await storedState(typed, [p.id]);
    const last = await patch(owner.client, refused.headers.get('location')!, 0, unknown);
    assert.deepEqual([last.status, last.body], [415, { error: 'File type application/octet-stream is not allowed' }]);
    await assertNothingStoredSince(typed, before);
  });
});

describe('expiry (the local file store)', () => {
  test('an unfinished upload past RESUMABLE_UPLOAD_EXPIRY_HOURS is swept: its bytes, its description and its row are gone, HEAD is 404; a younger one stays', async () => {
    const p = await readyProject();
    const meta = { projectId: p.id, fileType: 'PO', filename: 'po.pdf', filetype: 'application/pdf' };
    const stale = (await create(poc.client, 100, meta)).headers.get('location')!;
    assert.equal((await patch(poc.client, stale, 0, Buffer.from('%PDF-1.4\nhalf'))).status, 204);
    const young = (await create(poc.client, 100, meta)).headers.get('location')!;
    const [staleId, youngId] = [idOf(stale), idOf(young)];
    for (const id of [staleId, youngId]) assert.ok(resumableFiles().includes(id) && resumableFiles().includes(`${id}.json`), `${id}: ${resumableFiles().join()}`);

    // Begun two days ago (RESUMABLE_UPLOAD_EXPIRY_HOURS defaults to 24), as its description and its row say.
    const twoDaysAgo = new Date(Date.now() - 48 * 3_600_000).toISOString();
    const description = path.join(svc.dataDir, 'resumable', `${staleId}.json`);
    fs.writeFileSync(description, JSON.stringify({ ...JSON.parse(fs.readFileSync(description, 'utf8')), creation_date: twoDaysAgo }));
    await svc.deps.database.db.updateTable('resumable_uploads').set({ created_at: twoDaysAgo }).where('id', '=', staleId).execute();

    // A second instance on the same DATA_DIR and database sweeps at start-up.
    const sweeper = await startTestService({ env: { DATA_DIR: svc.dataDir }, sharedDatabase: svc.deps.config.database });
    try {
      await eventually('the expired upload is removed', async () => !resumableFiles().includes(staleId) && (await resumableRow(svc, staleId)) === undefined);
      assert.ok(!resumableFiles().includes(`${staleId}.json`), 'its description is removed');
      const head = await poc.client.request('HEAD', stale, { headers: TUS });
      assert.equal(head.status, 404);
      assert.equal((await poc.client.get(`${stale}/result`)).status, 404);

      assert.ok(resumableFiles().includes(youngId) && resumableFiles().includes(`${youngId}.json`), 'the younger upload is kept');
      assert.ok(await resumableRow(svc, youngId));
      const kept = await poc.client.request('HEAD', young, { headers: TUS });
      assert.deepEqual([kept.status, kept.headers.get('upload-offset')], [200, '0']);
    } finally {
      await sweeper.close();
    }
  });
});

describe('creation-with-upload: the POST carries the file (or its beginning)', () => {
  const OCTETS = { 'content-type': 'application/offset+octet-stream' };

  test('the whole file: 201 with Location and Upload-Offset, one document, the result gives it', async () => {
    const p = await readyProject();
    const data = Buffer.concat([Buffer.from('%PDF-1.4\n'), randomBytes(300_000)]);
    const meta = { projectId: p.id, fileType: 'PO', filename: 'whole.pdf', filetype: 'application/pdf' };
    const res = await poc.client.request('POST', '/api/resumable-uploads', {
      headers: { ...TUS, ...OCTETS, 'upload-length': String(data.length), 'upload-metadata': metadata(meta) },
      body: new Uint8Array(data),
    });
    assert.equal(res.status, 201, res.text);
    const location = res.headers.get('location');
    assert.match(location ?? '', /^\/api\/resumable-uploads\/[0-9a-f-]{36}$/);
    assert.equal(res.headers.get('upload-offset'), String(data.length));
    const result = await poc.client.get(`${location}/result`);
    assert.equal(result.status, 200, result.text);
    assert.equal(result.body.filename, 'whole.pdf');
    assert.deepEqual((await httpGet(result.body.url)).bytes, data);
    const files = await svc.deps.store.files.listForProject(p.id);
    assert.deepEqual(files.map((f) => f.id), [result.body.id]);
    assert.equal(files[0]!.sha256, sha256sum(data));
    assert.ok(!resumableFiles().includes(idOf(location!)), 'the assembled copy is gone');
  });

  test('the beginning of the file: 201 with its offset, the rest by PATCH', async () => {
    const p = await readyProject();
    const data = Buffer.concat([Buffer.from('%PDF-1.4\n'), randomBytes(200_000)]);
    const meta = { projectId: p.id, fileType: 'PO', filename: 'half.pdf', filetype: 'application/pdf' };
    const res = await poc.client.request('POST', '/api/resumable-uploads', {
      headers: { ...TUS, ...OCTETS, 'upload-length': String(data.length), 'upload-metadata': metadata(meta) },
      body: new Uint8Array(data.subarray(0, 100_000)),
    });
    assert.equal(res.status, 201, res.text);
    assert.equal(res.headers.get('upload-offset'), '100000');
    const location = res.headers.get('location')!;
    assert.equal((await poc.client.get(`${location}/result`)).status, 409);
    assert.equal((await patch(poc.client, location, 100_000, data.subarray(100_000))).status, 204);
    const result = await poc.client.get(`${location}/result`);
    assert.equal(result.status, 200, result.text);
    assert.deepEqual((await httpGet(result.body.url)).bytes, data);
  });

  test('tus-js-client with uploadDataDuringCreation: one document', async () => {
    const p = await readyProject();
    const data = Buffer.concat([Buffer.from('%PDF-1.4\n'), randomBytes(50_000)]);
    const url = await new Promise<string>((resolve, reject) => {
      const upload = new tus.Upload(data, {
        endpoint: `${svc.url}/api/resumable-uploads`,
        headers: { cookie: poc.client.cookie! },
        metadata: { projectId: p.id, fileType: 'PO', filename: 'client.pdf', filetype: 'application/pdf' },
        uploadDataDuringCreation: true,
        retryDelays: [],
        onSuccess: () => resolve(upload.url!),
        onError: reject,
      });
      upload.start();
    });
    const result = await poc.client.get(`${new URL(url).pathname}/result`);
    assert.equal(result.status, 200, result.text);
    assert.equal((await svc.deps.store.files.listForProject(p.id)).length, 1);
  });
});

describe('content types that are not media types', () => {
  test('a filetype such as text/plain\\u0100 is kept as application/octet-stream: the document can be downloaded', async () => {
    const p = await readyProject();
    const data = Buffer.from('plain text, declared oddly\n');
    for (const filetype of ['text/plain\u0100', 'text/plain\r\nX-Injected: yes', 'plain', 'text/plain; name="é"']) {
      const created = await create(poc.client, data.length, { projectId: p.id, fileType: 'PO', filename: 'odd.txt', filetype });
      assert.equal(created.status, 201, created.text);
      const location = created.headers.get('location')!;
      assert.equal((await patch(poc.client, location, 0, data)).status, 204);
      const result = await poc.client.get(`${location}/result`);
      assert.equal(result.status, 200, result.text);
      const served = await httpGet(result.body.url);
      assert.equal(served.status, 200, JSON.stringify(filetype));
      assert.equal(served.headers['content-type'], 'application/octet-stream');
      assert.equal(served.headers['x-injected'], undefined);
      assert.deepEqual(served.bytes, data);
      const [file] = (await svc.deps.store.files.listForProject(p.id)).filter((f) => f.id === result.body.id);
      assert.equal(file!.contentType, 'application/octet-stream');
    }
  });
});

describe('metadata PostgreSQL cannot store', () => {
  test('NUL in any metadata value is a 400 naming it, before anything is checked or stored', async () => {
    const p = await readyProject();
    const meta = { projectId: p.id, fileType: 'PO', filename: 'po.pdf', filetype: 'application/pdf' };
    for (const key of ['projectId', 'fileType', 'filename', 'filetype', 'extra']) {
      const before = await storedState(svc, [p.id]);
      const rows = await resumableRowCount(svc);
      const res = await create(poc.client, 10, { ...meta, [key]: 'a\u0000b' });
      assert.equal(res.status, 400, `${key}: ${res.text}`);
      assert.deepEqual(res.body, { error: `Upload-Metadata ${key} must not contain NUL characters` });
      assert.equal(res.headers.get('location'), null);
      await assertNothingStoredSince(svc, before, key);
      assert.equal(await resumableRowCount(svc), rows, key);
    }
  });
});

describe('a Host header that is not a host', () => {
  /** One request over a bare socket; the status line and body, or a failure if nothing comes within 5 s. */
  function sendRaw(method: string, target: string, headers: Record<string, string>): Promise<{ status: number; headers: string; body: string }> {
    const { port } = new URL(svc.url);
    return new Promise((resolve, reject) => {
      const socket = net.connect(Number(port), '127.0.0.1');
      let received = '';
      socket.setEncoding('latin1');
      socket.on('data', (d: string) => {
        received += d;
        const split = received.indexOf('\r\n\r\n');
        if (split < 0) return;
        const head = received.slice(0, split);
        const length = Number(/\r\ncontent-length: *(\d+)/i.exec(head)?.[1] ?? 0);
        const body = received.slice(split + 4);
        if (method !== 'HEAD' && Buffer.byteLength(body, 'latin1') < length) return;
        clearTimeout(timer);
        socket.destroy();
        resolve({ status: Number(head.split(' ')[1]), headers: head, body: method === 'HEAD' ? '' : body });
      });
      socket.on('error', () => {});
      const timer = setTimeout(() => {
        socket.destroy();
        reject(new Error(`no answer to ${method} ${target} within 5 s: ${JSON.stringify(received)}`));
      }, 5000);
      const lines = [`${method} ${target} HTTP/1.1`, ...Object.entries(headers).map(([k, v]) => `${k}: ${v}`), 'Content-Length: 0'];
      socket.write(`${lines.join('\r\n')}\r\n\r\n`);
    });
  }

  test('every tus method answers 400 in JSON, at once', async () => {
    const p = await readyProject();
    const location = (await create(poc.client, 10, { projectId: p.id, fileType: 'PO', filename: 'po.pdf', filetype: 'application/pdf' })).headers.get('location')!;
    const common = { Cookie: poc.client.cookie!, 'Tus-Resumable': '1.0.0', 'Upload-Length': '10', 'Upload-Metadata': metadata({ projectId: p.id, fileType: 'PO', filename: 'po.pdf' }) };
    const requests: [string, string][] = [
      ['POST', '/api/resumable-uploads'],
      ['OPTIONS', '/api/resumable-uploads'],
      ['HEAD', location],
      ['PATCH', location],
      ['DELETE', location],
      ['OPTIONS', location],
    ];
    for (const host of ['a b', 'a/b', 'user@host']) {
      for (const [method, target] of requests) {
        const res = await sendRaw(method, target, { Host: host, ...common, 'Upload-Offset': '0', 'Content-Type': 'application/offset+octet-stream' });
        const label = `${method} ${target} with Host ${host}`;
        assert.equal(res.status, 400, `${label}: ${res.headers}`);
        assert.match(res.headers, /\r\ncontent-type: application\/json/i, label);
        if (method !== 'HEAD') assert.deepEqual(JSON.parse(res.body), { error: 'Invalid Host header' }, label);
      }
    }
    const head = await poc.client.request('HEAD', location, { headers: TUS });
    assert.deepEqual([head.status, head.headers.get('upload-offset')], [200, '0'], 'nothing was done to the upload');
  });
});

describe('every error answer is JSON, a client mistake a 4xx, and tus headers are kept', () => {
  test('the tus server’s own refusals', async () => {
    const p = await readyProject();
    const meta = { projectId: p.id, fileType: 'PO', filename: 'po.pdf', filetype: 'application/pdf' };
    const location = (await create(poc.client, 10, meta)).headers.get('location')!;
    const creation = (headers: Record<string, string>) => poc.client.request('POST', '/api/resumable-uploads', { headers: { 'upload-length': '10', 'upload-metadata': metadata(meta), ...headers } });
    const octets = { ...TUS, 'content-type': 'application/offset+octet-stream' };
    const cases: [string, () => Promise<{ status: number; body: unknown; text: string; headers: Headers }>, number, string][] = [
      ['no Tus-Resumable', () => creation({}), 412, 'Tus-Resumable: 1.0.0 is required'],
      ['Upload-Concat', () => creation({ ...TUS, 'upload-concat': 'partial' }), 400, 'Upload-Concat is not supported: send the file as one upload (no parallel uploads)'],
      ['Upload-Length and Upload-Defer-Length', () => creation({ ...TUS, 'upload-defer-length': '1' }), 400, 'Upload-Length or Upload-Defer-Length header required'],
      ['a PATCH at the wrong offset', () => poc.client.request('PATCH', location, { headers: { ...octets, 'upload-offset': '5' }, body: 'abcde' }), 409, 'Upload-Offset conflict'],
      ['a PATCH without Upload-Offset', () => poc.client.request('PATCH', location, { headers: octets, body: 'abcde' }), 400, 'Upload-Offset is required'],
      ['a PATCH of another content type', () => poc.client.request('PATCH', location, { headers: { ...TUS, 'upload-offset': '0', 'content-type': 'text/plain' }, body: 'abcde' }), 400, 'Invalid content-type'],
      // An empty type is refused by Fastify before the route (415), not the route's 500 for a failure.
      ['a PATCH with an empty Content-Type', () => poc.client.request('PATCH', location, { headers: { ...TUS, 'upload-offset': '0', 'content-type': '' }, body: 'abcde' }), 415, 'Unsupported Media Type'],
      ['a creation with an empty Content-Type', () => creation({ ...TUS, 'content-type': '' }), 415, 'Unsupported Media Type'],
      ['a PATCH past the upload’s length', () => poc.client.request('PATCH', location, { headers: { ...octets, 'upload-offset': '0' }, body: 'abcdefghijklmnop' }), 413, "upload's size exceeded"],
      ['an unknown upload', () => poc.client.request('PATCH', '/api/resumable-uploads/nope', { headers: { ...octets, 'upload-offset': '0' }, body: 'abc' }), 404, 'Upload not found'],
      ['no session', () => svc.anonymous.request('PATCH', location, { headers: { ...octets, 'upload-offset': '0' }, body: 'abc' }), 401, 'Unauthorized'],
    ];
    for (const [label, send, status, error] of cases) {
      const res = await send();
      assert.deepEqual([res.status, res.body], [status, { error }], `${label}: ${res.text}`);
      assert.match(res.headers.get('content-type') ?? '', /^application\/json/, label);
      assert.equal(res.headers.get('tus-resumable'), '1.0.0', label);
    }
    const head = await poc.client.request('HEAD', location, { headers: TUS });
    assert.deepEqual([head.status, head.headers.get('upload-offset')], [200, '0'], 'the upload is untouched');
  });

  test('a terminated upload is gone: DELETE 204, then its result, HEAD and PATCH are 404', async () => {
    const p = await readyProject();
    const location = (await create(poc.client, 10, { projectId: p.id, fileType: 'PO', filename: 'po.pdf', filetype: 'application/pdf' })).headers.get('location')!;
    assert.equal((await patch(poc.client, location, 0, Buffer.from('%PDF'))).status, 204);
    const deleted = await poc.client.request('DELETE', location, { headers: TUS });
    assert.equal(deleted.status, 204, deleted.text);
    assert.equal(deleted.headers.get('tus-resumable'), '1.0.0');
    const result = await poc.client.get(`${location}/result`);
    assert.deepEqual([result.status, result.body], [404, { error: 'Upload not found' }]);
    assert.equal((await poc.client.request('HEAD', location, { headers: TUS })).status, 404);
    const again = await patch(poc.client, location, 4, Buffer.from('more'));
    assert.deepEqual([again.status, again.body], [404, { error: 'Upload not found' }]);
    assert.equal(await resumableRow(svc, idOf(location)), undefined);
  });

  test('a finished upload cannot be terminated: 409 in JSON, and its result stays', async () => {
    const p = await readyProject();
    const data = Buffer.from('%PDF-1.4\nfinished');
    const location = (await create(poc.client, data.length, { projectId: p.id, fileType: 'PO', filename: 'po.pdf', filetype: 'application/pdf' })).headers.get('location')!;
    assert.equal((await patch(poc.client, location, 0, data)).status, 204);
    const deleted = await poc.client.request('DELETE', location, { headers: TUS });
    assert.deepEqual([deleted.status, deleted.body], [409, { error: 'A finished upload cannot be terminated' }]);
    assert.equal(deleted.headers.get('tus-resumable'), '1.0.0');
    assert.equal((await poc.client.get(`${location}/result`)).status, 200);
  });
});
