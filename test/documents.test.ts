/**
 * Documents you can trust (issue 13) over real HTTP: checksums equal to sha256sum of what was
 * sent, in both part orders; duplicates flagged in the file list; types recognised by their bytes
 * (a ".pdf" that is HTML is served as a download and flagged); UPLOAD_ALLOWED_TYPES refusing with
 * 415 and storing nothing, after the specification's checks.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { Role, User } from '../src/domain/model.js';
import { labelOf } from '../src/domain/labels.js';
import { sha256sum } from './helpers/checksum.js';
import { failWrites } from './helpers/faults.js';
import { Client, type Response, type TestService, startTestService } from './helpers/service.js';
import { type Part, type StoredState, assertNothingStoredSince, httpGet, multipart, postMultipart, storedState } from './helpers/upload.js';

interface Person {
  user: User;
  client: Client;
}

function form(projectId: string, fileType: string, file: { data: Buffer; filename?: string; type?: string }, fileFirst = false): Part[] {
  const fields: Part[] = [
    { name: 'projectId', value: projectId },
    { name: 'fileType', value: fileType },
  ];
  const filePart: Part = { name: 'file', filename: file.filename ?? 'document.pdf', type: file.type ?? 'application/pdf', data: file.data };
  return fileFirst ? [filePart, ...fields] : [...fields, filePart];
}

const ORDERS = [
  { label: 'fields first', fileFirst: false },
  { label: 'file first', fileFirst: true },
];

const pdf = (body: Buffer | string = '') => Buffer.concat([Buffer.from('%PDF-1.4\n'), Buffer.from(body), Buffer.from('\n%%EOF\n')]);
const HTML = Buffer.from('<!DOCTYPE html><html><body><script>alert(document.cookie)</script></body></html>');

describe('checksums, duplicates and true types', () => {
  let svc: TestService;
  let admin: Person;
  let poc: Person;

  before(async () => {
    svc = await startTestService();
    const [a, p] = await Promise.all((['ADMIN', 'POC'] as Role[]).map((role) => svc.signIn(role, { name: role === 'POC' ? 'Priya Shah' : 'Ada Admin' })));
    admin = a!;
    poc = p!;
  });
  after(() => svc.close());

  const project = () => svc.createProject(poc.user.id, { status: 'DISPATCHED', piStatus: 'VERIFIED' });
  const filesOf = async (who: Person, projectId: string) => {
    const res = await who.client.get(`/api/projects/${projectId}`);
    assert.equal(res.status, 200, res.text);
    return res.body.files as Record<string, any>[]; // eslint-disable-line @typescript-eslint/no-explicit-any
  };

  // Sizes either side of the size a file is held whole in memory (1 MiB) and stored in one write; past it, it streams.
  const SIZES = [10 * 1024, 1024 * 1024, 1024 * 1024 + 1, 3 * 1024 * 1024 + 17];
  for (const { label, fileFirst } of ORDERS) {
    test(`the checksum equals sha256sum of what was sent (${label}); the 201 body stays id, url, filename, size`, async () => {
      for (const size of SIZES) await sentAndStored(size, fileFirst);
    });
  }

  async function sentAndStored(size: number, fileFirst: boolean) {
    const p = await project();
    const data = pdf(randomBytes(size - pdf('').length));
    assert.equal(data.length, size);
    const res = await postMultipart(poc.client, form(p.id, 'PO', { data }, fileFirst));
    assert.equal(res.status, 201, res.text);
    assert.deepEqual(Object.keys(res.body).sort(), ['filename', 'id', 'size', 'url']);
    const [file] = await filesOf(poc, p.id);
    assert.equal(file!.id, res.body.id);
    assert.equal(file!.sha256, sha256sum(data));
    assert.match(file!.sha256, /^[0-9a-f]{64}$/);
    assert.equal(file!.detectedContentType, 'application/pdf');
    assert.equal(file!.contentTypeMismatch, false);
    assert.equal(file!.duplicateOf, null);
    // and the stored bytes are the ones hashed
    const served = await httpGet(res.body.url);
    assert.equal(sha256sum(served.bytes), file!.sha256);
    assert.equal(res.body.size, size);
  }

  test('a second upload of the same bytes to a project succeeds as specified and is flagged with the first', async () => {
    const p = await project();
    const data = pdf('purchase order 4711');
    const first = await postMultipart(poc.client, form(p.id, 'PO', { data, filename: 'po-4711.pdf' }));
    assert.equal(first.status, 201, first.text);
    const second = await postMultipart(admin.client, form(p.id, 'INVOICE', { data, filename: 'copy.pdf' }, true));
    assert.equal(second.status, 201, second.text);
    const other = await postMultipart(poc.client, form(p.id, 'PO', { data: pdf('another') }));
    assert.equal(other.status, 201, other.text);

    const files = await filesOf(poc, p.id);
    const byId = new Map(files.map((f) => [f.id, f]));
    assert.equal(byId.get(first.body.id)!.duplicateOf, null);
    assert.equal(byId.get(other.body.id)!.duplicateOf, null);
    const dup = byId.get(second.body.id)!.duplicateOf;
    assert.deepEqual({ ...dup, createdAt: undefined }, { id: first.body.id, filename: 'po-4711.pdf', type: 'PO', uploadedByName: 'Priya Shah', createdAt: undefined });
    assert.equal(dup.createdAt, byId.get(first.body.id)!.createdAt);

    // another project holding the same bytes is no duplicate of these
    const q = await project();
    const elsewhere = await postMultipart(poc.client, form(q.id, 'PO', { data }));
    assert.equal(elsewhere.status, 201);
    assert.equal((await filesOf(poc, q.id))[0]!.duplicateOf, null);
  });

  for (const { label, fileFirst } of ORDERS) {
    test(`a ".pdf" that is HTML is recorded as declared, recognised, flagged and served as an attachment (${label})`, async () => {
      const p = await project();
      const res = await postMultipart(poc.client, form(p.id, 'INVOICE', { data: HTML, filename: 'invoice.pdf', type: 'application/pdf' }, fileFirst));
      assert.equal(res.status, 201, res.text);
      const [file] = await filesOf(admin, p.id);
      assert.equal(file!.contentType, 'application/pdf');
      assert.equal(file!.detectedContentType, 'text/html');
      assert.equal(file!.contentTypeMismatch, true);
      const served = await httpGet(res.body.url);
      assert.equal(served.status, 200);
      assert.match(String(served.headers['content-disposition']), /^attachment;/);
      assert.equal(served.headers['x-content-type-options'], 'nosniff');

      // a real PDF is still shown inline
      const real = await postMultipart(poc.client, form(p.id, 'INVOICE', { data: pdf('x'), filename: 'real.pdf' }, fileFirst));
      assert.match(String((await httpGet(real.body.url)).headers['content-disposition']), /^inline;/);
    });
  }

  test('an SVG declared as a PNG is served as an attachment; a PNG declared as a JPEG is only flagged', async () => {
    const p = await project();
    const svg = await postMultipart(poc.client, form(p.id, 'PO', { data: Buffer.from('<svg xmlns="http://www.w3.org/2000/svg"><script>1</script></svg>'), filename: 'logo.png', type: 'image/png' }));
    assert.equal(svg.status, 201, svg.text);
    assert.match(String((await httpGet(svg.body.url)).headers['content-disposition']), /^attachment;/);
    const png = Buffer.from('89504e470d0a1a0a0000000d49484452000000010000000108060000001f15c4890000000d4944415478da63f8cfc0f01f0005000201b5e1c8a40000000049454e44ae426082', 'hex');
    const asJpeg = await postMultipart(poc.client, form(p.id, 'PO', { data: png, filename: 'scan.jpg', type: 'image/jpeg' }));
    assert.equal(asJpeg.status, 201, asJpeg.text);
    const files = await filesOf(admin, p.id);
    const byId = new Map(files.map((f) => [f.id, f]));
    assert.equal(byId.get(svg.body.id)!.detectedContentType, 'image/svg+xml');
    assert.equal(byId.get(asJpeg.body.id)!.detectedContentType, 'image/png');
    assert.equal(byId.get(asJpeg.body.id)!.contentTypeMismatch, true);
    assert.match(String((await httpGet(asJpeg.body.url)).headers['content-disposition']), /^inline;/);
  });
});

describe('UPLOAD_ALLOWED_TYPES', () => {
  let svc: TestService;
  let poc: Person;

  before(async () => {
    svc = await startTestService({ env: { UPLOAD_ALLOWED_TYPES: 'application/pdf, image/*' } });
    poc = await svc.signIn('POC');
  });
  after(() => svc.close());

  for (const { label, fileFirst } of ORDERS) {
    test(`a type outside the list gets 415 JSON and nothing is stored (${label})`, async () => {
      const p = await svc.createProject(poc.user.id, { status: 'DISPATCHED', piStatus: 'VERIFIED' });
      const cases: { data: Buffer; type: string; refused: string }[] = [
        { data: HTML, type: 'application/pdf', refused: 'text/html' },
        { data: Buffer.from('id,amount\n1,2\n'), type: 'text/csv', refused: 'text/csv' },
        { data: Buffer.concat([Buffer.from('PK\u0003\u0004'), randomBytes(9000)]), type: 'application/pdf', refused: 'application/zip' },
        { data: Buffer.alloc(9000, 'A'), type: 'application/octet-stream', refused: 'application/octet-stream' },
      ];
      for (const c of cases) {
        const before = await storedState(svc, [p.id]);
        const res = await postMultipart(poc.client, form(p.id, 'PO', { data: c.data, type: c.type }, fileFirst));
        assert.equal(res.status, 415, res.text);
        assert.deepEqual(res.body, { error: `File type ${c.refused} is not allowed` });
        await assertNothingStoredSince(svc, before, c.refused);
      }
      const ok = await postMultipart(poc.client, form(p.id, 'PO', { data: pdf(randomBytes(100_000)) }, fileFirst));
      assert.equal(ok.status, 201, ok.text);
    });
  }

  test("the specification's checks come first: a refused type still gets check 4's answer for an unknown project", async () => {
    const res = await postMultipart(poc.client, form('00000000-0000-4000-8000-000000000000', 'PO', { data: HTML, type: 'text/html' }));
    assert.equal(res.status, 404);
    assert.deepEqual(res.body, { error: 'Project not found' });
  });
});

describe('Idempotency-Key on POST /api/upload', () => {
  let svc: TestService;
  let poc: Person;
  let otherPoc: Person;

  before(async () => {
    svc = await startTestService();
    [poc, otherPoc] = await Promise.all([svc.signIn('POC'), svc.signIn('POC')]);
  });
  after(() => svc.close());

  const project = (owner = poc) => svc.createProject(owner.user.id, { status: 'DISPATCHED', piStatus: 'VERIFIED' });
  const send = (who: Person, parts: Part[], key?: string, base = svc) => {
    const { body, contentType } = multipart(parts);
    const headers: Record<string, string> = { 'content-type': contentType };
    if (key !== undefined) headers['idempotency-key'] = key;
    // the session lives in the database, so the same cookie is good on another instance
    const client = base === svc ? who.client : Object.assign(new Client(base.url), { cookie: who.client.cookie });
    return client.request('POST', '/api/upload', { body: new Uint8Array(body), headers });
  };
  const recordsOf = async (projectId: string) => (await svc.deps.store.files.listForProject(projectId)).map((f) => f.id);

  test('without the header, the same request twice stores twice (the specification)', async () => {
    const p = await project();
    const parts = form(p.id, 'PO', { data: pdf('twice') });
    assert.equal((await send(poc, parts)).status, 201);
    assert.equal((await send(poc, parts)).status, 201);
    assert.equal((await recordsOf(p.id)).length, 2);
  });

  for (const { label, fileFirst } of ORDERS) {
    test(`a retry with the same key answers the first result again and stores nothing (${label})`, async () => {
      const p = await project();
      const parts = form(p.id, 'PO', { data: pdf(randomBytes(200_000)) }, fileFirst);
      const key = `key-${randomBytes(8).toString('hex')}`;
      const first = await send(poc, parts, key);
      assert.equal(first.status, 201, first.text);
      const before = await storedState(svc, [p.id]);
      const retry = await send(poc, parts, key);
      assert.equal(retry.status, 201, retry.text);
      assert.deepEqual(retry.body, first.body);
      await assertNothingStoredSince(svc, before);
    });
  }

  test('the same key with a different project, type, name or file is 409 and stores nothing', async () => {
    const p = await project();
    const q = await project();
    const data = pdf('original');
    const key = 'order-42-upload';
    assert.equal((await send(poc, form(p.id, 'PO', { data, filename: 'po.pdf' }), key)).status, 201);
    const variants: Part[][] = [
      form(q.id, 'PO', { data, filename: 'po.pdf' }),
      form(p.id, 'INVOICE', { data, filename: 'po.pdf' }),
      form(p.id, 'PO', { data, filename: 'other.pdf' }),
      form(p.id, 'PO', { data: pdf('changed'), filename: 'po.pdf' }),
    ];
    for (const parts of variants) {
      const before = await storedState(svc, [p.id, q.id]);
      const res = await send(poc, parts, key);
      assert.equal(res.status, 409, res.text);
      assert.deepEqual(res.body, { error: 'Idempotency-Key was already used for a different upload' });
      await assertNothingStoredSince(svc, before);
    }
  });

  test('a retry whose projectId or fileType holds a NUL is a 400 naming the field, as a first request is, and stores nothing', async () => {
    const p = await project();
    const data = pdf('nul retry');
    const key = `nul-${randomBytes(8).toString('hex')}`;
    assert.equal((await send(poc, form(p.id, 'PO', { data }), key)).status, 201);
    for (const { label, fileFirst } of ORDERS) {
      for (const [parts, field] of [
        [form(`${p.id}\u0000`, 'PO', { data }, fileFirst), 'projectId'],
        [form(p.id, 'PO\u0000', { data }, fileFirst), 'fileType'],
      ] as const) {
        const before = await storedState(svc, [p.id]);
        const res = await send(poc, parts, key);
        assert.deepEqual([res.status, res.body], [400, { error: `${labelOf(field)} must not contain NUL characters` }], `${field}, ${label}`);
        await assertNothingStoredSince(svc, before);
      }
    }
  });

  test('keys are per user; an invalid key is 400; a refused request does not use its key up', async () => {
    const p = await project();
    const mine = await project(otherPoc);
    const key = 'shared-key';
    assert.equal((await send(poc, form(p.id, 'PO', { data: pdf('a') }), key)).status, 201);
    assert.equal((await send(otherPoc, form(mine.id, 'PO', { data: pdf('b') }), key)).status, 201);
    assert.equal((await recordsOf(mine.id)).length, 1);

    for (const bad of ['', 'x'.repeat(256), 'tab\there', 'caf\u00e9']) {
      const before = await storedState(svc, [p.id]);
      const res = await send(poc, form(p.id, 'PO', { data: pdf('c') }), bad);
      assert.equal(res.status, 400, JSON.stringify(bad));
      assert.deepEqual(res.body, { error: 'Idempotency-Key must be 1 to 255 visible ASCII characters' });
      await assertNothingStoredSince(svc, before);
    }

    const fresh = 'refused-first';
    const refused = await send(poc, form(p.id, 'BILL', { data: pdf('d') }), fresh);
    assert.deepEqual([refused.status, refused.body], [400, { error: 'Invalid fileType' }]);
    assert.equal((await send(poc, form(p.id, 'PO', { data: pdf('d') }), fresh)).status, 201);
  });

  test('after 24 hours a key is new again', async () => {
    const p = await project();
    const parts = form(p.id, 'PO', { data: pdf('day') });
    assert.equal((await send(poc, parts, 'daily')).status, 201);
    assert.equal((await send(poc, parts, 'daily')).status, 201);
    assert.equal((await recordsOf(p.id)).length, 1);
    const yesterday = new Date(Date.now() - 24 * 3_600_000 - 1000).toISOString();
    await svc.deps.database.db.updateTable('idempotency_keys').set({ created_at: yesterday }).where('key', '=', 'daily').execute();
    assert.equal((await send(poc, parts, 'daily')).status, 201);
    assert.equal((await recordsOf(p.id)).length, 2);
  });

  test('a retry after the key could not be marked with its upload answers that upload (not 409 for an hour) and stores nothing', async () => {
    const p = await project();
    const data = pdf(randomBytes(50_000));
    const parts = form(p.id, 'PO', { data });
    const key = 'marked-too-late';
    // The upload is stored and recorded; marking the key with it (the last write) fails.
    const stopFailing = await failWrites(svc, 'idempotency_keys', 'update', 'idempotency keys are read-only');
    let before: StoredState;
    let answer: { id: string; url: string; filename: string; size: number };
    try {
      const first = await send(poc, parts, key);
      assert.deepEqual([first.status, first.body], [500, { error: 'idempotency keys are read-only' }]);
      const recorded = await svc.deps.store.files.listForProject(p.id);
      assert.equal(recorded.length, 1, 'the upload was recorded');
      answer = { id: recorded[0]!.id, url: recorded[0]!.url, filename: 'document.pdf', size: data.length };
      before = await storedState(svc, [p.id]);
      // While the fault lasts, a retry cannot mark the key either: it still answers the stored upload.
      const retry = await send(poc, parts, key);
      assert.deepEqual([retry.status, retry.body], [201, answer]);
      await assertNothingStoredSince(svc, before);
    } finally {
      await stopFailing();
    }
    const again = await send(poc, parts, key);
    assert.deepEqual([again.status, again.body], [201, answer]);
    await assertNothingStoredSince(svc, before);
    // The key now names its upload: another request with it is the reused key's 409.
    const other = await send(poc, form(p.id, 'PO', { data: pdf('another') }), key);
    assert.deepEqual([other.status, other.body], [409, { error: 'Idempotency-Key was already used for a different upload' }]);
    await assertNothingStoredSince(svc, before);
  });

  /**
   * What a race with one key may answer (README "Safe retries"): the first upload's 201 body, the
   * same for every 201, or 409 while the first still runs; at least one 201.
   */
  const assertRaceAnswers = (answers: Response[]) => {
    const created = answers.filter((a) => a.status === 201);
    assert.ok(created.length >= 1, answers.map((a) => a.text).join('\n'));
    for (const a of answers) {
      if (a.status === 201) assert.deepEqual(a.body, created[0]!.body);
      else assert.deepEqual([a.status, a.body], [409, { error: 'An upload with this Idempotency-Key is still in progress' }]);
    }
    return created[0]!.body as { id: string; url: string; filename: string; size: number };
  };

  /** Exactly one document came of the race, on whichever instance: one record, one stored file holding the bytes, one activity entry, nothing spooled. */
  const assertStoredOnce = async (instances: TestService[], before: StoredState[], projectId: string, answer: { id: string }, data: Buffer) => {
    const now = await Promise.all(instances.map((i) => storedState(i, [projectId])));
    assert.deepEqual(now[0]!.records[projectId], [answer.id]);
    const record = (await svc.deps.store.files.findById(answer.id))!;
    assert.deepEqual(answer, { id: record.id, url: record.url, filename: 'document.pdf', size: data.length });
    const newFiles = now.flatMap((state, i) => state.uploads.filter((f) => !before[i]!.uploads.includes(f)).map((f) => path.join(instances[i]!.dataDir, 'uploads', f)));
    assert.equal(newFiles.length, 1, `files stored: ${newFiles.join(', ')}`);
    assert.ok(newFiles[0]!.endsWith(path.join('uploads', record.storageKey)), newFiles[0]);
    assert.ok(fs.readFileSync(newFiles[0]!).equals(data));
    for (const state of now) assert.deepEqual(state.tmp, []);
    // the activity log is the shared database's: one new entry, the upload's
    const newEntries = now[0]!.activityIds.filter((id) => !before[0]!.activityIds.includes(id));
    assert.equal(newEntries.length, 1, `activity entries written: ${newEntries.length}`);
    const { items } = await svc.deps.store.activity.list({ all: true }, { entityType: 'project', entityId: projectId, limit: 10 });
    assert.deepEqual(
      items.map((a) => [a.id, a.action]),
      [[newEntries[0], 'PO_UPLOADED']],
    );
  };

  test('racing requests with one key store once; each answer is the first upload or 409 in progress', async () => {
    const p = await project();
    const data = pdf(randomBytes(2 * 1024 * 1024));
    const parts = form(p.id, 'PO', { data });
    const before = [await storedState(svc, [p.id])];
    const answers = await Promise.all(Array.from({ length: 6 }, () => send(poc, parts, 'race')));
    const first = assertRaceAnswers(answers);
    await assertStoredOnce([svc], before, p.id, first, data);
    const later = await send(poc, parts, 'race');
    assert.deepEqual([later.status, later.body], [201, first]);
    await assertStoredOnce([svc], before, p.id, first, data);
  });

  test('two instances on one database: racing requests with one key store once; every 201 is the first upload', async () => {
    const second = await startTestService({ sharedDatabase: svc.deps.config.database });
    try {
      const p = await project();
      const data = pdf(randomBytes(1024 * 1024));
      const parts = form(p.id, 'PO', { data });
      const instances = [svc, second];
      const before = await Promise.all(instances.map((i) => storedState(i, [p.id])));
      const answers = await Promise.all(Array.from({ length: 6 }, (_, i) => send(poc, parts, 'two-instances', instances[i % 2])));
      const first = assertRaceAnswers(answers);
      await assertStoredOnce(instances, before, p.id, first, data);
      const later = await send(poc, parts, 'two-instances', second);
      assert.deepEqual([later.status, later.body], [201, first]);
      await assertStoredOnce(instances, before, p.id, first, data);
    } finally {
      await second.close();
    }
  });
});
