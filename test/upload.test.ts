/**
 * POST /api/upload over real HTTP (specification 4.1 and part 7, interface.md "Files"): every
 * refusal with its exact status and body and nothing left behind, the success path end to end
 * (record, activity, notifications, serving the stored file), both orders of the parts, the size
 * limit, broken bodies and unique public names.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { PiStatus, ProjectStatus, Role, User } from '../src/domain/model.js';
import { newId } from '../src/ids.js';
import { Client, type TestService, collectEvents, startTestService } from './helpers/service.js';
import {
  type Part,
  assertNothingStoredSince,
  eventuallyNothingStoredSince,
  filesUnder,
  hangUpMidBody,
  httpGet,
  multipart,
  partHead,
  postMultipart,
  repeat,
  sendAtOnce,
  storedState,
  streamRequest,
} from './helpers/upload.js';

const REQUIRED = 'file, projectId and fileType are required';
const INVALID_TYPE = 'Invalid fileType';
const NOT_FOUND = 'Project not found';
const NOT_OWN = 'You can only upload files to your own projects';
const NOT_APPROVED = 'POCs can upload documents only after admin approves the project and verifies the PI';
const PO_RULE = 'PO can only be uploaded after project approval';
const CHALLAN_RULE = 'Challan can only be uploaded after dispatch';
const INVOICE_RULE = 'Invoice can only be uploaded after dispatch';
const MALFORMED = 'Malformed multipart body';
const UNAUTHORIZED = 'Unauthorized';

interface Person {
  user: User;
  client: Client;
}

let svc: TestService;
let admin: Person;
let poc: Person;
let otherPoc: Person;
let clientUser: Person;

before(async () => {
  svc = await startTestService();
  const [a, p, o, c] = await Promise.all((['ADMIN', 'POC', 'POC', 'CLIENT'] as Role[]).map((role) => svc.signIn(role)));
  admin = a!;
  poc = p!;
  otherPoc = o!;
  clientUser = c!;
});
after(() => svc.close());

const pdfBytes = Buffer.from('%PDF-1.4\n% test document\n1 0 obj << >> endobj\n%%EOF\n');

/** A project in the given state; by default owned by the POC, approved and with the PI verified. */
function project(opts: { owner?: Person; status?: ProjectStatus; piStatus?: PiStatus; approval?: 'APPROVED' | 'PENDING' | 'REJECTED' | null } = {}) {
  return svc.createProject((opts.owner ?? poc).user.id, { status: opts.status ?? 'APPROVED', piStatus: opts.piStatus ?? 'VERIFIED', approval: opts.approval });
}

/** The three parts, in the usual order (fields first) or with the file first (spooled). */
function form(projectId: string, fileType: string, file: { data: Buffer | string; filename?: string; type?: string } = { data: pdfBytes }, fileFirst = false): Part[] {
  const parts: Part[] = [
    { name: 'projectId', value: projectId },
    { name: 'fileType', value: fileType },
  ];
  const filePart: Part = { name: 'file', filename: file.filename ?? 'document.pdf', type: file.type ?? 'application/pdf', data: file.data };
  return fileFirst ? [filePart, ...parts] : [...parts, filePart];
}

const ORDERS = [
  { label: 'fields first', fileFirst: false },
  { label: 'file first', fileFirst: true },
];

/** Sends, expects exactly {status, {error}}, then checks that nothing at all was stored. */
async function expectRefusal(send: () => Promise<{ status: number; body: unknown; text?: string }>, status: number, error: string, projectIds: string[] = []) {
  const before = await storedState(svc, projectIds);
  const res = await send();
  assert.equal(res.status, status, res.text);
  assert.deepEqual(res.body, { error });
  await assertNothingStoredSince(svc, before);
}

/** The same refusal with the parts in both orders. */
async function expectRefusalBothOrders(who: Person, projectId: string, fileType: string, status: number, error: string) {
  for (const { fileFirst } of ORDERS) {
    await expectRefusal(() => postMultipart(who.client, form(projectId, fileType, undefined, fileFirst)), status, error, [projectId]);
  }
}

/** A successful upload's answer: exactly {id, url, filename, size}. */
function assertCreated(res: { status: number; body: unknown; text: string }, filename: string, size: number) {
  assert.equal(res.status, 201, res.text);
  const body = res.body as Record<string, unknown>;
  assert.deepEqual(Object.keys(body).sort(), ['filename', 'id', 'size', 'url']);
  assert.equal(typeof body.id, 'string');
  assert.equal(typeof body.url, 'string');
  assert.equal(body.filename, filename);
  assert.equal(body.size, size);
  return body as { id: string; url: string; filename: string; size: number };
}

async function fetchBytes(url: string, headers: Record<string, string> = {}) {
  const res = await fetch(url, { headers });
  return { res, bytes: Buffer.from(await res.arrayBuffer()) };
}

describe('401: no session', () => {
  test('an upload without a session cookie is refused and nothing is stored', async () => {
    const p = await project();
    for (const { fileFirst } of ORDERS) {
      await expectRefusal(() => postMultipart(svc.anonymous, form(p.id, 'PO', undefined, fileFirst)), 401, UNAUTHORIZED, [p.id]);
    }
  });

  test('an unknown session token is refused', async () => {
    const p = await project();
    const stranger = new Client(svc.url);
    stranger.cookie = 'session=not-a-real-token';
    await expectRefusal(() => postMultipart(stranger, form(p.id, 'PO')), 401, UNAUTHORIZED, [p.id]);
  });

  test('no session beats every other check (even an empty or non-multipart body)', async () => {
    await expectRefusal(() => svc.anonymous.request('POST', '/api/upload'), 401, UNAUTHORIZED);
    await expectRefusal(() => svc.anonymous.post('/api/upload', { projectId: 'x' }), 401, UNAUTHORIZED);
    await expectRefusal(() => postMultipart(svc.anonymous, form(newId(), 'nope')), 401, UNAUTHORIZED);
  });
});

describe('400: file, projectId and fileType are required', () => {
  const cases: [string, (projectId: string) => Part[]][] = [
    ['no file part', (id) => [{ name: 'projectId', value: id }, { name: 'fileType', value: 'PO' }]],
    ['no projectId', () => [{ name: 'fileType', value: 'PO' }, { name: 'file', data: pdfBytes }]],
    ['no fileType', (id) => [{ name: 'projectId', value: id }, { name: 'file', data: pdfBytes }]],
    ['empty projectId', () => form('', 'PO')],
    ['blank projectId', () => form('  \t ', 'PO')],
    ['empty fileType', (id) => form(id, '')],
    ['blank fileType', (id) => form(id, '   ')],
    ['a file part with no filename parameter', (id) => [...form(id, 'PO').slice(0, 2), { name: 'file', filename: null, data: pdfBytes }]],
    ['a file part with an empty filename', (id) => [...form(id, 'PO').slice(0, 2), { name: 'file', filename: '', data: pdfBytes }]],
    ['"file" sent as a text field', (id) => [...form(id, 'PO').slice(0, 2), { name: 'file', value: 'just text' }]],
    ['a zero-byte file', (id) => form(id, 'PO', { data: Buffer.alloc(0) })],
    ['the file under another part name', (id) => [...form(id, 'PO').slice(0, 2), { name: 'document', filename: 'a.pdf', data: pdfBytes }]],
    ['no parts at all', () => []],
    // check 2 comes before check 3
    ['no file and an invalid fileType', (id) => [{ name: 'projectId', value: id }, { name: 'fileType', value: 'RECEIPT' }]],
    ['no projectId and an invalid fileType', () => [{ name: 'fileType', value: 'po' }, { name: 'file', data: pdfBytes }]],
    ['a zero-byte file and an unknown project', () => form(newId(), 'PO', { data: '' })],
  ];
  for (const [label, parts] of cases) {
    test(`${label} (parts in both orders)`, async () => {
      const p = await project({ owner: admin });
      await expectRefusal(() => postMultipart(admin.client, parts(p.id)), 400, REQUIRED, [p.id]);
      await expectRefusal(() => postMultipart(admin.client, parts(p.id).reverse()), 400, REQUIRED, [p.id]);
    });
  }

  const notMultipart: [string, Record<string, string>, string | undefined][] = [
    ['JSON', { 'content-type': 'application/json' }, JSON.stringify({ projectId: 'PROJECT', fileType: 'PO', file: 'data' })],
    ['malformed JSON', { 'content-type': 'application/json' }, '{"projectId": "'],
    ['urlencoded', { 'content-type': 'application/x-www-form-urlencoded' }, 'projectId=PROJECT&fileType=PO&file=data'],
    ['plain text', { 'content-type': 'text/plain' }, 'projectId=PROJECT'],
    ['raw file bytes', { 'content-type': 'application/pdf' }, pdfBytes.toString('latin1')],
    ['no body and no content type', {}, undefined],
  ];
  for (const [label, headers, body] of notMultipart) {
    test(`a body that is not multipart carries no fields: ${label}`, async () => {
      const p = await project({ owner: admin });
      await expectRefusal(() => admin.client.request('POST', '/api/upload', { headers, body: body?.replace('PROJECT', p.id) }), 400, REQUIRED, [p.id]);
    });
  }

  test('through a browser-style FormData body too', async () => {
    const p = await project({ owner: admin });
    await expectRefusal(() => admin.client.upload([['projectId', p.id], ['fileType', 'PO']]), 400, REQUIRED, [p.id]);
    await expectRefusal(() => admin.client.upload([['projectId', p.id], ['fileType', 'PO'], ['file', { data: '', filename: 'empty.pdf' }]]), 400, REQUIRED, [p.id]);
  });
});

describe('400: Invalid fileType', () => {
  for (const fileType of ['po', 'Po', 'challan', 'RECEIPT', ' PO', 'PO ', 'PO,CHALLAN']) {
    test(`fileType ${JSON.stringify(fileType)} (fileType is case-sensitive and exact)`, async () => {
      const p = await project({ owner: admin });
      await expectRefusalBothOrders(admin, p.id, fileType, 400, INVALID_TYPE);
    });
  }

  test('an invalid fileType is reported before an unknown project or a foreign project', async () => {
    await expectRefusalBothOrders(admin, newId(), 'po', 400, INVALID_TYPE);
    const foreign = await project({ owner: otherPoc, status: 'REQUESTED', piStatus: 'PENDING' });
    await expectRefusalBothOrders(poc, foreign.id, 'RECEIPT', 400, INVALID_TYPE);
  });
});

describe('404: Project not found', () => {
  test('an unknown project id, for an admin and for a POC (before the ownership check)', async () => {
    for (const who of [admin, poc]) await expectRefusalBothOrders(who, newId(), 'PO', 404, NOT_FOUND);
    await expectRefusalBothOrders(admin, 'not-an-id', 'INVOICE', 404, NOT_FOUND);
  });
});

describe('403: You can only upload files to your own projects', () => {
  test("a POC uploading to another POC's ready project", async () => {
    const p = await project({ owner: otherPoc });
    await expectRefusalBothOrders(poc, p.id, 'PO', 403, NOT_OWN);
  });

  test("a CLIENT uploading to someone else's project", async () => {
    const p = await project({ owner: poc });
    await expectRefusalBothOrders(clientUser, p.id, 'PO', 403, NOT_OWN);
  });

  test('ownership is checked before approval and status rules', async () => {
    const p = await project({ owner: otherPoc, status: 'REQUESTED', piStatus: 'PENDING' });
    await expectRefusalBothOrders(poc, p.id, 'CHALLAN', 403, NOT_OWN);
  });
});

describe('403: POCs can upload documents only after admin approves the project and verifies the PI', () => {
  const cases: [string, { status: ProjectStatus; piStatus: PiStatus; approval?: 'APPROVED' | 'PENDING' | 'REJECTED' | null }][] = [
    ['requested, PI pending', { status: 'REQUESTED', piStatus: 'PENDING' }],
    ['requested, PI verified, not approved', { status: 'REQUESTED', piStatus: 'VERIFIED', approval: null }],
    ['approval pending, PI verified', { status: 'REQUESTED', piStatus: 'VERIFIED', approval: 'PENDING' }],
    ['cancelled without approval, PI verified', { status: 'CANCELLED', piStatus: 'VERIFIED', approval: null }],
    ['approved but PI submitted', { status: 'APPROVED', piStatus: 'SUBMITTED' }],
    ['approved but PI pending', { status: 'APPROVED', piStatus: 'PENDING' }],
    ['dispatched but PI rejected', { status: 'DISPATCHED', piStatus: 'REJECTED' }],
  ];
  for (const [label, state] of cases) {
    test(`owning POC, ${label}`, async () => {
      const p = await project({ owner: poc, ...state });
      await expectRefusalBothOrders(poc, p.id, 'PO', 403, NOT_APPROVED);
    });
  }

  test('owning CLIENT, project not approved or PI not verified', async () => {
    const requested = await project({ owner: clientUser, status: 'REQUESTED', piStatus: 'PENDING' });
    await expectRefusalBothOrders(clientUser, requested.id, 'PO', 403, NOT_APPROVED);
    const unverified = await project({ owner: clientUser, status: 'APPROVED', piStatus: 'SUBMITTED' });
    await expectRefusalBothOrders(clientUser, unverified.id, 'PO', 403, NOT_APPROVED);
  });

  test('the approval check comes before the status rules', async () => {
    const p = await project({ owner: poc, status: 'REQUESTED', piStatus: 'PENDING' });
    await expectRefusalBothOrders(poc, p.id, 'INVOICE', 403, NOT_APPROVED);
  });
});

describe('400: status rules (they apply to admins as well)', () => {
  const cases: [string, ProjectStatus, string, string][] = [
    ['PO', 'REQUESTED', PO_RULE, 'ADMIN'],
    ['PO', 'CANCELLED', PO_RULE, 'ADMIN'],
    ['CHALLAN', 'REQUESTED', CHALLAN_RULE, 'ADMIN'],
    ['CHALLAN', 'APPROVED', CHALLAN_RULE, 'ADMIN'],
    ['CHALLAN', 'PRINTING', CHALLAN_RULE, 'ADMIN'],
    ['CHALLAN', 'CANCELLED', CHALLAN_RULE, 'ADMIN'],
    ['INVOICE', 'APPROVED', INVOICE_RULE, 'ADMIN'],
    ['INVOICE', 'PRINTING', INVOICE_RULE, 'ADMIN'],
    ['INVOICE', 'REQUESTED', INVOICE_RULE, 'ADMIN'],
    ['CHALLAN', 'APPROVED', CHALLAN_RULE, 'POC'],
    ['INVOICE', 'PRINTING', INVOICE_RULE, 'POC'],
  ];
  for (const [type, status, error, role] of cases) {
    test(`${role}: ${type} on a ${status} project`, async () => {
      const who = role === 'ADMIN' ? admin : poc;
      const p = await project({ owner: poc, status, piStatus: 'VERIFIED' });
      await expectRefusalBothOrders(who, p.id, type, 400, error);
    });
  }

  test('an owning POC of a project approved by record but still REQUESTED passes check 6 and meets the PO rule', async () => {
    const p = await project({ owner: poc, status: 'REQUESTED', piStatus: 'VERIFIED', approval: 'APPROVED' });
    await expectRefusalBothOrders(poc, p.id, 'PO', 400, PO_RULE);
  });
});

describe('repeated fields: the first one counts', () => {
  test('projectId', async () => {
    const p = await project({ owner: admin });
    const unknown = newId();
    const res = await postMultipart(admin.client, [{ name: 'projectId', value: p.id }, { name: 'projectId', value: unknown }, ...form(p.id, 'PO').slice(1)]);
    const body = assertCreated(res, 'document.pdf', pdfBytes.length);
    assert.match(body.url, new RegExp(`/files/print-orders/${p.id}/po/`));
    assert.equal((await svc.deps.store.files.listForProject(p.id)).length, 1);

    await expectRefusal(
      () => postMultipart(admin.client, [{ name: 'projectId', value: unknown }, { name: 'projectId', value: p.id }, ...form(p.id, 'PO').slice(1)]),
      404,
      NOT_FOUND,
      [p.id],
    );
    await expectRefusal(
      () => postMultipart(admin.client, [{ name: 'projectId', value: '' }, { name: 'projectId', value: p.id }, ...form(p.id, 'PO').slice(1)]),
      400,
      REQUIRED,
      [p.id],
    );
  });

  test('fileType', async () => {
    const p = await project({ owner: admin, status: 'APPROVED' });
    const [idPart, , filePart] = form(p.id, 'PO');
    const ok = assertCreated(await postMultipart(admin.client, [idPart!, { name: 'fileType', value: 'PO' }, { name: 'fileType', value: 'CHALLAN' }, filePart!]), 'document.pdf', pdfBytes.length);
    assert.match(ok.url, /\/po\/po_\d+\.pdf$/);
    const again = assertCreated(await postMultipart(admin.client, [{ name: 'fileType', value: 'PO' }, idPart!, { name: 'fileType', value: 'nope' }, filePart!]), 'document.pdf', pdfBytes.length);
    assert.match(again.url, /\/po\/po_\d+\.pdf$/);
    await expectRefusal(() => postMultipart(admin.client, [idPart!, { name: 'fileType', value: 'nope' }, { name: 'fileType', value: 'PO' }, filePart!]), 400, INVALID_TYPE, [p.id]);
    await expectRefusal(() => postMultipart(admin.client, [idPart!, { name: 'fileType', value: 'CHALLAN' }, { name: 'fileType', value: 'PO' }, filePart!]), 400, CHALLAN_RULE, [p.id]);
  });

  for (const { label, fileFirst } of ORDERS) {
    test(`file (${label})`, async () => {
      const p = await project({ owner: admin });
      const first = Buffer.from('first file bytes');
      const second = Buffer.from('the second file, which must be ignored');
      const files: Part[] = [
        { name: 'file', filename: 'first.txt', type: 'text/plain', data: first },
        { name: 'file', filename: 'second.txt', type: 'text/plain', data: second },
      ];
      const fields = form(p.id, 'PO').slice(0, 2);
      const body = assertCreated(await postMultipart(admin.client, fileFirst ? [...files, ...fields] : [...fields, ...files]), 'first.txt', first.length);
      const { res, bytes } = await fetchBytes(body.url);
      assert.equal(res.status, 200);
      assert.deepEqual(bytes, first);
      assert.equal(res.headers.get('content-type'), 'text/plain');
      assert.equal(filesUnder(path.join(svc.dataDir, 'uploads', 'print-orders', p.id)).length, 1);
      assert.deepEqual(filesUnder(path.join(svc.dataDir, 'tmp')), []);

      // An empty first file part is a missing file, even when a second one has bytes.
      const emptyFirst: Part[] = [{ name: 'file', filename: 'empty.txt', data: '' }, files[1]!];
      await expectRefusal(() => postMultipart(admin.client, fileFirst ? [...emptyFirst, ...fields] : [...fields, ...emptyFirst]), 400, REQUIRED, [p.id]);
    });
  }
});

describe('201: successful uploads', () => {
  test('by an ADMIN: the answer, the stored file as served, the record, the activity entry and the notifications', async () => {
    const p = await project({ owner: poc, status: 'APPROVED', piStatus: 'PENDING' });
    const data = Buffer.concat([pdfBytes, randomBytes(4096), Buffer.from(`\r\n--not-the-boundary\r\n`), Buffer.from(Array.from({ length: 256 }, (_, i) => i))]);
    let res: Awaited<ReturnType<Client['upload']>> | undefined;
    const t0 = Date.now();
    const events = await collectEvents(admin.client, 2, async () => {
      res = await admin.client.upload([['projectId', p.id], ['fileType', 'PO'], ['file', { data, filename: 'purchase order.pdf', type: 'application/pdf' }]]);
    });
    const t1 = Date.now();
    const body = assertCreated(res!, 'purchase order.pdf', data.length);

    // interface.md: PUBLIC_URL/files/print-orders/<projectId>/<type>/<type>_<ms>.<ext>
    const m = new RegExp(`^${svc.url.replace(/\./g, '\\.')}/files/print-orders/${p.id}/po/po_(\\d+)\\.pdf$`).exec(body.url);
    assert.ok(m, body.url);
    const ms = Number(m[1]);
    assert.ok(ms >= t0 && ms <= t1, `public name time ${ms} not within the request (${t0}..${t1})`);
    assert.deepEqual(filesUnder(path.join(svc.dataDir, 'uploads', 'print-orders', p.id)), [`po${path.sep}po_${ms}.pdf`]);
    assert.deepEqual(filesUnder(path.join(svc.dataDir, 'tmp')), []);

    // The notifications, in order.
    assert.deepEqual(
      events.map((e) => [e.event, e.data]),
      [
        ['project-updated', { channel: 'projects', payload: { id: p.id } }],
        ['stats-updated', { channel: 'dashboard', payload: {} }],
      ],
    );

    // The record.
    const records = await svc.deps.store.files.listForProject(p.id);
    assert.equal(records.length, 1);
    const record = records[0]!;
    assert.equal(record.id, body.id);
    assert.equal(record.projectId, p.id);
    assert.equal(record.type, 'PO');
    assert.equal(record.url, body.url);
    assert.equal(record.filename, 'purchase order.pdf');
    assert.equal(record.size, data.length);
    assert.equal(record.uploadedById, admin.user.id);
    assert.equal(record.contentType, 'application/pdf');

    // The activity entry.
    const activity = await svc.deps.store.activity.list({ all: true }, { entityId: p.id, limit: 50 });
    assert.equal(activity.items.length, 1);
    const { id: _id, createdAt: _at, ...entry } = activity.items[0]!;
    assert.deepEqual(entry, { userId: admin.user.id, userName: admin.user.name, action: 'PO_UPLOADED', entityType: 'project', entityId: p.id, details: { filename: 'purchase order.pdf', size: data.length } });

    // The upload changes nothing about the project.
    const after = await svc.deps.store.projects.findById(p.id);
    assert.equal(after!.status, 'APPROVED');
    assert.equal(after!.piStatus, 'PENDING');
    assert.deepEqual(after!.approval?.status, 'APPROVED');

    // Served publicly, byte for byte, so that a browser cannot run it on our origin.
    const { res: file, bytes } = await fetchBytes(body.url);
    assert.equal(file.status, 200);
    assert.deepEqual(bytes, data);
    assert.equal(file.headers.get('content-type'), 'application/pdf');
    assert.equal(file.headers.get('x-content-type-options'), 'nosniff');
    assert.match(file.headers.get('content-security-policy') ?? '', /(^|;)\s*sandbox\s*(;|$)/);
    assert.match(file.headers.get('content-disposition') ?? '', /^inline\b/);
    assert.match(file.headers.get('content-disposition') ?? '', /filename\*=UTF-8''purchase%20order\.pdf/);

    // Range requests.
    const range = await fetchBytes(body.url, { range: 'bytes=10-41' });
    assert.equal(range.res.status, 206);
    assert.deepEqual(range.bytes, data.subarray(10, 42));
    assert.equal(range.res.headers.get('content-range'), `bytes 10-41/${data.length}`);
    const tail = await fetchBytes(body.url, { range: 'bytes=-100' });
    assert.equal(tail.res.status, 206);
    assert.deepEqual(tail.bytes, data.subarray(data.length - 100));

    // ETags.
    const etag = file.headers.get('etag');
    assert.ok(etag, 'no ETag');
    const cached = await httpGet(body.url, { 'if-none-match': etag });
    assert.equal(cached.status, 304);
    assert.equal(cached.bytes.length, 0);
    const changed = await httpGet(body.url, { 'if-none-match': '"something-else"' });
    assert.equal(changed.status, 200);
    assert.deepEqual(changed.bytes, data);
  });

  test('by the owning POC of an approved project with a verified PI', async () => {
    const p = await project({ owner: poc, status: 'APPROVED', piStatus: 'VERIFIED' });
    const html = Buffer.from('<!doctype html><script>alert(document.cookie)</script>');
    const res = await poc.client.upload([['projectId', p.id], ['fileType', 'PO'], ['file', { data: html, filename: 'order.html', type: 'text/html' }]]);
    const body = assertCreated(res, 'order.html', html.length);
    assert.match(body.url, new RegExp(`/files/print-orders/${p.id}/po/po_\\d+\\.html$`));

    const records = await svc.deps.store.files.listForProject(p.id);
    assert.deepEqual(
      records.map((r) => [r.id, r.uploadedById, r.type, r.size]),
      [[body.id, poc.user.id, 'PO', html.length]],
    );
    const activity = await svc.deps.store.activity.list({ all: true }, { entityId: p.id, limit: 50 });
    assert.deepEqual(
      activity.items.map((a) => [a.userId, a.action, a.entityType, a.entityId, a.details]),
      [[poc.user.id, 'PO_UPLOADED', 'project', p.id, { filename: 'order.html', size: html.length }]],
    );

    const { res: file, bytes } = await fetchBytes(body.url);
    assert.equal(file.status, 200);
    assert.deepEqual(bytes, html);
    assert.equal(file.headers.get('content-type'), 'text/html');
    assert.equal(file.headers.get('x-content-type-options'), 'nosniff');
    assert.match(file.headers.get('content-security-policy') ?? '', /\bsandbox\b/);
    assert.match(file.headers.get('content-disposition') ?? '', /^attachment\b/);
  });

  test('an SVG is served as a download', async () => {
    const p = await project({ owner: admin });
    const svg = Buffer.from('<svg xmlns="http://www.w3.org/2000/svg" onload="alert(1)"/>');
    const body = assertCreated(await admin.client.upload([['projectId', p.id], ['fileType', 'PO'], ['file', { data: svg, filename: 'logo.svg', type: 'image/svg+xml' }]]), 'logo.svg', svg.length);
    const { res, bytes } = await fetchBytes(body.url);
    assert.deepEqual(bytes, svg);
    assert.equal(res.headers.get('content-type'), 'image/svg+xml');
    assert.equal(res.headers.get('x-content-type-options'), 'nosniff');
    assert.match(res.headers.get('content-security-policy') ?? '', /\bsandbox\b/);
    assert.match(res.headers.get('content-disposition') ?? '', /^attachment\b/);
  });

  test('a CLIENT that owns a ready project may upload too', async () => {
    const p = await project({ owner: clientUser, status: 'DELIVERED', piStatus: 'VERIFIED' });
    const body = assertCreated(await clientUser.client.upload([['projectId', p.id], ['fileType', 'INVOICE'], ['file', { data: pdfBytes, filename: 'inv.pdf', type: 'application/pdf' }]]), 'inv.pdf', pdfBytes.length);
    assert.equal((await svc.deps.store.files.listForProject(p.id))[0]!.uploadedById, clientUser.user.id);
    assert.match(body.url, /\/invoice\/invoice_\d+\.pdf$/);
  });

  test('every allowed status for each type; CHALLAN and INVOICE go to their own folders and actions', async () => {
    const allowed: [string, ProjectStatus[]][] = [
      ['PO', ['APPROVED', 'PRINTING', 'DISPATCHED', 'DELIVERED']],
      ['CHALLAN', ['DISPATCHED', 'DELIVERED']],
      ['INVOICE', ['DISPATCHED', 'DELIVERED']],
    ];
    for (const [type, statuses] of allowed) {
      for (const status of statuses) {
        for (const who of [admin, poc]) {
          const p = await project({ owner: poc, status, piStatus: 'VERIFIED' });
          const body = assertCreated(await postMultipart(who.client, form(p.id, type)), 'document.pdf', pdfBytes.length);
          const lower = type.toLowerCase();
          assert.match(body.url, new RegExp(`/files/print-orders/${p.id}/${lower}/${lower}_\\d+\\.pdf$`));
          const activity = await svc.deps.store.activity.list({ all: true }, { entityId: p.id, limit: 50 });
          assert.deepEqual(
            activity.items.map((a) => [a.action, a.userId]),
            [[`${type}_UPLOADED`, who.user.id]],
          );
        }
      }
    }
  });

  test('the public name takes the extension only when it is 1–10 letters or digits', async () => {
    const p = await project({ owner: admin });
    const names: [string, RegExp][] = [
      ['README', /\/po\/po_\d+$/],
      ['archive.tar.gz', /\/po\/po_\d+\.gz$/],
      ['scan.JPEG', /\/po\/po_\d+\.JPEG$/],
      ['weird.extension12', /\/po\/po_\d+$/],
      ['dots.', /\/po\/po_\d+$/],
      ['über menü.pdf', /\/po\/po_\d+\.pdf$/],
    ];
    for (const [filename, url] of names) {
      const body = assertCreated(await postMultipart(admin.client, form(p.id, 'PO', { data: 'x', filename, type: 'application/octet-stream' })), filename, 1);
      assert.match(body.url, url);
      const { res, bytes } = await fetchBytes(body.url);
      assert.equal(res.status, 200);
      assert.equal(bytes.toString(), 'x');
      assert.match(res.headers.get('content-disposition') ?? '', /^attachment\b/);
    }
  });
});

describe('the file before projectId and fileType (spooled to a temporary file)', () => {
  test('is accepted, stored byte for byte, and leaves DATA_DIR/tmp empty', async () => {
    const p = await project({ owner: poc });
    const data = randomBytes(256 * 1024);
    const body = assertCreated(await postMultipart(poc.client, form(p.id, 'PO', { data, filename: 'big.bin', type: 'application/octet-stream' }, true)), 'big.bin', data.length);
    const { res, bytes } = await fetchBytes(body.url);
    assert.equal(res.status, 200);
    assert.deepEqual(bytes, data);
    assert.equal(res.headers.get('content-type'), 'application/octet-stream');
    assert.deepEqual(filesUnder(path.join(svc.dataDir, 'tmp')), []);
    const records = await svc.deps.store.files.listForProject(p.id);
    assert.deepEqual(
      records.map((r) => [r.uploadedById, r.size, r.filename]),
      [[poc.user.id, data.length, 'big.bin']],
    );
  });

  test('via FormData in that order too', async () => {
    const p = await project({ owner: admin });
    const res = await admin.client.upload([['file', { data: pdfBytes, filename: 'first.pdf', type: 'application/pdf' }], ['fileType', 'PO'], ['projectId', p.id]]);
    assertCreated(res, 'first.pdf', pdfBytes.length);
    assert.deepEqual(filesUnder(path.join(svc.dataDir, 'tmp')), []);
  });

  test('when then refused, stores nothing (one field between the file and the other)', async () => {
    const p = await project({ owner: otherPoc });
    const [idPart, typePart, filePart] = form(p.id, 'PO');
    await expectRefusal(() => postMultipart(poc.client, [idPart!, filePart!, typePart!]), 403, NOT_OWN, [p.id]);
    await expectRefusal(() => postMultipart(poc.client, [typePart!, filePart!]), 400, REQUIRED, [p.id]);
  });
});

describe('413: the upload size limit', () => {
  let small: TestService;
  let smallAdmin: Client;
  before(async () => {
    small = await startTestService({ env: { MAX_UPLOAD_BYTES: '1024' } });
    smallAdmin = (await small.signIn('ADMIN')).client;
  });
  after(() => small.close());

  const TOO_LARGE = 'File is larger than the upload limit of 1 kB';

  for (const { label, fileFirst } of ORDERS) {
    test(`1025 bytes is refused and nothing is stored (${label})`, async () => {
      const p = await small.createProject((await small.createUser()).user.id, { status: 'APPROVED', piStatus: 'VERIFIED' });
      const before = await storedState(small, [p.id]);
      const res = await postMultipart(smallAdmin, form(p.id, 'PO', { data: Buffer.alloc(1025, 1) }, fileFirst));
      assert.equal(res.status, 413, res.text);
      assert.deepEqual(res.body, { error: TOO_LARGE });
      await assertNothingStoredSince(small, before);

      // Many at once (a spooled file refused before its temporary file opened must not appear after the cleanup).
      const again = await Promise.all(Array.from({ length: 20 }, (_, i) => postMultipart(smallAdmin, form(p.id, 'PO', { data: Buffer.alloc(1025 + i * 100, 1) }, fileFirst))));
      for (const r of again) assert.deepEqual([r.status, r.body], [413, { error: TOO_LARGE }]);
      await new Promise((r) => setTimeout(r, 50));
      await assertNothingStoredSince(small, before);

      // Far over the limit (and streamed), same answer, and the connection's next request works.
      const big = await postMultipart(smallAdmin, form(p.id, 'PO', { data: Buffer.alloc(3 * 1024 * 1024, 2) }, fileFirst));
      assert.equal(big.status, 413, big.text);
      assert.deepEqual(big.body, { error: TOO_LARGE });
      await assertNothingStoredSince(small, before);
    });

    test(`exactly 1024 bytes is accepted (${label})`, async () => {
      const p = await small.createProject((await small.createUser()).user.id, { status: 'APPROVED', piStatus: 'VERIFIED' });
      const data = randomBytes(1024);
      const body = assertCreated(await postMultipart(smallAdmin, form(p.id, 'PO', { data }, fileFirst)), 'document.pdf', 1024);
      assert.deepEqual((await fetchBytes(body.url)).bytes, data);
      assert.deepEqual(filesUnder(path.join(small.dataDir, 'tmp')), []);
    });
  }

  test('a refusal by an earlier check wins over the size', async () => {
    const before = await storedState(small);
    const res = await postMultipart(smallAdmin, form(newId(), 'PO', { data: Buffer.alloc(4096) }));
    assert.equal(res.status, 404, res.text);
    assert.deepEqual(res.body, { error: NOT_FOUND });
    await assertNothingStoredSince(small, before);
  });
});

describe('400: malformed multipart bodies', () => {
  /** Streams head + the given bytes with chunked encoding, then ends the HTTP body cleanly: the multipart is what is broken. */
  async function sendBroken(who: Person, boundary: string, bytes: Buffer[], contentType = `multipart/form-data; boundary=${boundary}`) {
    return streamRequest(`${svc.url}/api/upload`, { headers: { cookie: who.client.cookie!, 'content-type': contentType }, body: bytes });
  }

  /** A request that must succeed right after, on the same server. */
  async function stillServes() {
    const p = await project({ owner: admin });
    assertCreated(await postMultipart(admin.client, form(p.id, 'PO')), 'document.pdf', pdfBytes.length);
  }

  const b = 'broken-boundary';
  const cases: [string, (projectId: string) => Buffer[]][] = [
    [
      'breaks off mid-file, fields first',
      (id) => [partHead({ name: 'projectId', value: '' }, b), Buffer.from(`${id}\r\n`), partHead({ name: 'fileType', value: '' }, b), Buffer.from('PO\r\n'), partHead({ name: 'file', data: '' }, b), Buffer.alloc(200_000, 3)],
    ],
    [
      'breaks off mid-file, file first',
      () => [partHead({ name: 'file', data: '' }, b), Buffer.alloc(200_000, 3)],
    ],
    [
      'breaks off after the whole file, before the closing delimiter',
      (id) => [multipart(form(id, 'PO'), b).body.subarray(0, -`--${b}--\r\n`.length), Buffer.from(`--${b}\r\nContent-Disposition: form-da`)],
    ],
    [
      'the file complete but no closing delimiter at all',
      (id) => [multipart(form(id, 'PO'), b).body.subarray(0, -`--${b}--\r\n`.length - 2)],
    ],
  ];
  for (const [label, bytes] of cases) {
    test(`a body that ${label}: 400, nothing stored, the server keeps serving`, async () => {
      const p = await project({ owner: admin });
      await expectRefusal(() => sendBroken(admin, b, bytes(p.id)), 400, MALFORMED, [p.id]);
      await stillServes();
    });

    test(`a body that ${label}, arriving all at once (parsed before the handler reads it): 400, nothing stored`, async () => {
      const p = await project({ owner: admin });
      const body = Buffer.concat(bytes(p.id).map((c) => (c.length > 4096 ? c.subarray(0, 4096) : c)));
      const headers = { cookie: admin.client.cookie!, 'content-type': `multipart/form-data; boundary=${b}` };
      await expectRefusal(() => sendAtOnce(svc.url, { path: '/api/upload', headers, body }), 400, MALFORMED, [p.id]);
      await stillServes();
    });
  }

  test('a multipart content type without a boundary', async () => {
    const p = await project({ owner: admin });
    const { body } = multipart(form(p.id, 'PO'), b);
    await expectRefusal(() => sendBroken(admin, b, [body], 'multipart/form-data'), 400, MALFORMED, [p.id]);
    await expectRefusal(
      () => admin.client.request('POST', '/api/upload', { headers: { 'content-type': 'multipart/form-data' }, body: new Uint8Array(body) }),
      400,
      MALFORMED,
      [p.id],
    );
    await stillServes();
  });

  for (const { label, fileFirst } of ORDERS) {
    test(`a client that hangs up mid-file leaves nothing behind (${label})`, async () => {
      const p = await project({ owner: admin });
      const before = await storedState(svc, [p.id]);
      const { body, contentType } = multipart(form(p.id, 'PO', { data: Buffer.alloc(2 * 1024 * 1024, 5) }, fileFirst), b);
      await hangUpMidBody(svc.url, { path: '/api/upload', headers: { cookie: admin.client.cookie!, 'content-type': contentType, 'content-length': String(body.length) } }, body.subarray(0, 1024 * 1024));
      await eventuallyNothingStoredSince(svc, before);
      await new Promise((r) => setTimeout(r, 100)); // and nothing turns up a little later either
      await assertNothingStoredSince(svc, before);
      await stillServes();
    });
  }
});

describe('refused while the client is still sending', () => {
  test('an unauthenticated 50 MiB body gets 401 JSON, nothing is stored, and the server keeps serving', async () => {
    const p = await project({ owner: admin });
    const before = await storedState(svc, [p.id]);
    const boundary = 'huge-boundary';
    const chunk = Buffer.alloc(64 * 1024, 9);
    async function* body() {
      yield Buffer.concat([multipart(form(p.id, 'PO').slice(0, 2), boundary).body.subarray(0, -`--${boundary}--\r\n`.length), partHead({ name: 'file', data: '' }, boundary)]);
      yield* repeat(chunk, 800); // 50 MiB
      yield Buffer.from(`\r\n--${boundary}--\r\n`);
    }
    const res = await streamRequest(`${svc.url}/api/upload`, { headers: { 'content-type': `multipart/form-data; boundary=${boundary}` }, body: body() });
    assert.equal(res.status, 401, res.text);
    assert.deepEqual(res.body, { error: UNAUTHORIZED });
    await assertNothingStoredSince(svc, before);
    const health = await svc.anonymous.get('/healthz');
    assert.equal(health.status, 200);
    assertCreated(await postMultipart(admin.client, form(p.id, 'PO')), 'document.pdf', pdfBytes.length);
  });

  test('a signed-in 20 MiB upload refused by check 5 is answered, stores nothing, and the server keeps serving', async () => {
    const p = await project({ owner: otherPoc });
    const before = await storedState(svc, [p.id]);
    const boundary = 'refused-boundary';
    async function* body() {
      yield Buffer.concat([multipart(form(p.id, 'PO').slice(0, 2), boundary).body.subarray(0, -`--${boundary}--\r\n`.length), partHead({ name: 'file', data: '' }, boundary)]);
      yield* repeat(Buffer.alloc(64 * 1024, 4), 320);
      yield Buffer.from(`\r\n--${boundary}--\r\n`);
    }
    const res = await streamRequest(`${svc.url}/api/upload`, { headers: { cookie: poc.client.cookie!, 'content-type': `multipart/form-data; boundary=${boundary}` }, body: body() });
    assert.equal(res.status, 403, res.text);
    assert.deepEqual(res.body, { error: NOT_OWN });
    await assertNothingStoredSince(svc, before);
    const mine = await project({ owner: poc });
    assertCreated(await postMultipart(poc.client, form(mine.id, 'PO')), 'document.pdf', pdfBytes.length);
  });
});

describe('public names never collide', () => {
  test('10 concurrent uploads of one type to one project all succeed with distinct urls', async () => {
    const p = await project({ owner: poc, status: 'DISPATCHED' });
    const datas = Array.from({ length: 10 }, (_, i) => Buffer.from(`document number ${i} `.repeat(50 + i)));
    const results = await Promise.all(datas.map((data, i) => (i % 2 ? poc : admin).client.upload([['projectId', p.id], ['fileType', 'CHALLAN'], ['file', { data, filename: `c${i}.pdf`, type: 'application/pdf' }]])));
    const bodies = results.map((res, i) => assertCreated(res, `c${i}.pdf`, datas[i]!.length));
    assert.equal(new Set(bodies.map((b) => b.url)).size, 10);
    for (const body of bodies) assert.match(body.url, new RegExp(`/files/print-orders/${p.id}/challan/challan_\\d+\\.pdf$`));
    for (const [i, body] of bodies.entries()) assert.deepEqual((await fetchBytes(body.url)).bytes, datas[i]);
    assert.equal((await svc.deps.store.files.listForProject(p.id)).length, 10);
    assert.equal(filesUnder(path.join(svc.dataDir, 'uploads', 'print-orders', p.id)).length, 10);
    assert.equal((await svc.deps.store.activity.list({ all: true }, { entityId: p.id, action: 'CHALLAN_UPLOADED', limit: 50 })).items.length, 10);
  });

  test('a name already on disk (left by an earlier deployment) moves to the next free millisecond', async () => {
    const p = await project({ owner: admin });
    const dir = path.join(svc.dataDir, 'uploads', 'print-orders', p.id, 'po');
    fs.mkdirSync(dir, { recursive: true });
    const now = Date.now();
    const squatters = Array.from({ length: 400 }, (_, i) => path.join(dir, `po_${now + i}.pdf`));
    for (const f of squatters) fs.writeFileSync(f, 'old');
    const body = assertCreated(await postMultipart(admin.client, form(p.id, 'PO')), 'document.pdf', pdfBytes.length);
    assert.ok(!squatters.some((f) => body.url.endsWith(path.basename(f))), body.url);
    assert.deepEqual((await fetchBytes(body.url)).bytes, pdfBytes);
    for (const f of squatters) assert.equal(fs.readFileSync(f, 'utf8'), 'old');
    const incoming = path.join(svc.dataDir, 'uploads', '.incoming'); // a small file is written straight under its key: none made
    assert.deepEqual(fs.existsSync(incoming) ? fs.readdirSync(incoming) : [], [], 'no bytes left behind');
  });
});

describe('folders removed while the service runs (an operator cleaning up) are made again', () => {
  const large = (seed: number) => Buffer.concat([pdfBytes, Buffer.alloc(2 * 1024 * 1024, seed)]);
  const incoming = () => path.join(svc.dataDir, 'uploads', '.incoming');

  const cases: [string, () => string, boolean][] = [
    ['uploads/.incoming (a large file is written there first)', incoming, false],
    ['uploads itself', () => path.join(svc.dataDir, 'uploads'), false],
    ['tmp (a file sent before the fields is spooled there)', () => path.join(svc.dataDir, 'tmp'), true],
  ];
  for (const [label, dir, fileFirst] of cases) {
    test(`DATA_DIR/${label}`, async () => {
      const p = await project({ owner: admin });
      // One upload first, so the service has made (and knows) the folder.
      const first = large(1);
      assertCreated(await postMultipart(admin.client, form(p.id, 'PO', { data: first }, fileFirst)), 'document.pdf', first.length);
      fs.rmSync(dir(), { recursive: true, force: true });
      for (const seed of [2, 3]) {
        const data = large(seed);
        const body = assertCreated(await postMultipart(admin.client, form(p.id, 'PO', { data }, fileFirst)), 'document.pdf', data.length);
        assert.deepEqual((await fetchBytes(body.url)).bytes, data);
      }
      assert.deepEqual(filesUnder(path.join(svc.dataDir, 'tmp')), []);
    });
  }

  test('DATA_DIR/uploads/.incoming removed while a large file is being written there: stored whole all the same', async () => {
    const p = await project({ owner: admin });
    const chunk = Buffer.alloc(64 * 1024, 6);
    const boundary = 'removed-incoming';
    const head = Buffer.concat([multipart(form(p.id, 'PO').slice(0, 2), boundary).body.subarray(0, -`--${boundary}--\r\n`.length), partHead({ name: 'file', data: '', filename: 'big.pdf', type: 'application/pdf' }, boundary)]);
    let removed = false;
    async function* body() {
      yield head;
      yield pdfBytes;
      yield* repeat(chunk, 32); // 2 MiB: past what is held in memory, so the bytes go to .incoming
      // Wait for the temporary file, then take the folder away under it.
      for (let i = 0; i < 200 && !(fs.existsSync(incoming()) && fs.readdirSync(incoming()).length); i++) await new Promise((r) => setTimeout(r, 10));
      fs.rmSync(incoming(), { recursive: true, force: true });
      removed = true;
      yield* repeat(chunk, 16);
      yield Buffer.from(`\r\n--${boundary}--\r\n`);
    }
    const res = await streamRequest(`${svc.url}/api/upload`, { headers: { cookie: admin.client.cookie!, 'content-type': `multipart/form-data; boundary=${boundary}` }, body: body() });
    assert.ok(removed);
    const expected = Buffer.concat([pdfBytes, ...Array.from({ length: 48 }, () => chunk)]);
    const created = assertCreated(res, 'big.pdf', expected.length);
    assert.deepEqual((await fetchBytes(created.url)).bytes, expected);
  });
});

describe('content types that are not media types', () => {
  test('a file part whose Content-Type is not a valid media type is stored and served with a valid one', async () => {
    const p = await project({ owner: admin });
    for (const type of ['text/plain\u0100', 'text/plain; name="é"', 'plain', '']) {
      const data = Buffer.from(`declared as ${JSON.stringify(type)}\n`);
      const res = await postMultipart(admin.client, form(p.id, 'PO', { data, filename: 'odd.txt', type }));
      const body = assertCreated(res, 'odd.txt', data.length);
      const served = await httpGet(body.url);
      assert.equal(served.status, 200, JSON.stringify(type));
      assert.match(String(served.headers['content-type']), /^[!#$%&'*+.^_`|~0-9A-Za-z-]+\/[!#$%&'*+.^_`|~0-9A-Za-z-]+(;[ -~]*)?$/, JSON.stringify(type));
      assert.deepEqual(served.bytes, data);
    }
  });

  test('a document kept earlier with an invalid type is served as application/octet-stream, not a 500', async () => {
    const p = await project({ owner: admin });
    const data = pdfBytes;
    const body = assertCreated(await postMultipart(admin.client, form(p.id, 'PO', { data })), 'document.pdf', data.length);
    await svc.deps.database.db.updateTable('file_uploads').set({ content_type: 'text/plain\u0100' }).where('id', '=', body.id).execute();
    const served = await httpGet(body.url);
    assert.equal(served.status, 200);
    assert.equal(served.headers['content-type'], 'application/octet-stream');
    assert.equal(served.headers['content-disposition']?.startsWith('attachment;'), true);
    assert.deepEqual(served.bytes, data);
  });
});
