/**
 * Documents you can trust (issue 13) over real HTTP: checksums equal to sha256sum of what was
 * sent, in both part orders; duplicates flagged in the file list; types recognised by their bytes
 * (a ".pdf" that is HTML is served as a download and flagged); UPLOAD_ALLOWED_TYPES refusing with
 * 415 and storing nothing, after the specification's checks.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { Role, User } from '../src/domain/model.js';
import { type Client, type TestService, startTestService } from './helpers/service.js';
import { type Part, assertNothingStoredSince, httpGet, postMultipart, storedState } from './helpers/upload.js';

interface Person {
  user: User;
  client: Client;
}

/** What the sha256sum command says of these bytes. */
export function sha256sum(bytes: Buffer): string {
  const file = path.join(os.tmpdir(), `sha256sum-${process.pid}-${randomBytes(4).toString('hex')}`);
  fs.writeFileSync(file, bytes);
  try {
    return execFileSync('sha256sum', [file], { encoding: 'utf8' }).split(' ')[0]!;
  } finally {
    fs.rmSync(file, { force: true });
  }
}

export function form(projectId: string, fileType: string, file: { data: Buffer; filename?: string; type?: string }, fileFirst = false): Part[] {
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

  for (const { label, fileFirst } of ORDERS) {
    test(`the checksum equals sha256sum of what was sent (${label}); the 201 body stays id, url, filename, size`, async () => {
      const p = await project();
      const data = pdf(randomBytes(3 * 1024 * 1024 + 17));
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
    });
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
