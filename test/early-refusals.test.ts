/**
 * An upload refused before its body is in is answered so that the client can read the answer:
 * Node's fetch (undici) sending a multi-MiB body gets the JSON refusal every time, never EPIPE or
 * a reset. The service runs as its own process: in one process with the client, the two share an
 * event loop and the race that loses the answer does not show.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { type ChildService, startChildService } from './helpers/child-service.js';
import { Client } from './helpers/service.js';
import { multipart, type Part } from './helpers/upload.js';

const MiB = 1024 * 1024;
/** Large enough that the client is still sending when the answer comes. */
const BODY_BYTES = 6 * MiB;
const TIMES = 10;

let svc: ChildService;
let admin: Client;
let poc: Client;
let approved: string;
let pocsRequested: string;

before(async () => {
  svc = await startChildService({ MAX_UPLOAD_BYTES: String(2 * MiB) });
  admin = svc.admin;
  const member = { name: 'Early POC', email: `early-${Date.now()}@example.com`, password: 'early-password', role: 'POC' };
  assert.equal((await admin.post('/api/team', member)).status, 201);
  poc = new Client(svc.url);
  assert.equal((await poc.post('/api/auth/login', { email: member.email, password: member.password })).status, 200);
  const created = await admin.post('/api/projects', { name: 'Approved' });
  approved = created.body.id;
  assert.equal((await admin.post(`/api/projects/${approved}/approve`)).status, 200);
  pocsRequested = (await poc.post('/api/projects', { name: 'Requested' })).body.id;
});
after(() => svc?.stop());

const file = (bytes = BODY_BYTES): Part => ({ name: 'file', data: Buffer.alloc(bytes, 7), filename: 'large.pdf', type: 'application/pdf' });
const fields = (projectId: string, fileType: string): Part[] => [
  { name: 'projectId', value: projectId },
  { name: 'fileType', value: fileType },
];

/** Sends the request `TIMES` times with fetch and tallies what came back: `<status> <body>` or the network error's code. */
async function tally(send: () => Promise<Response>): Promise<Record<string, number>> {
  const outcomes: Record<string, number> = {};
  for (let i = 0; i < TIMES; i++) {
    let outcome: string;
    try {
      const res = await send();
      const type = res.headers.get('content-type') ?? '';
      outcome = `${res.status} ${await res.text()}${type.startsWith('application/json') ? '' : ` (${type})`}`;
    } catch (err) {
      const cause = (err as { cause?: { code?: string; message?: string } }).cause;
      outcome = `network error: ${cause?.code ?? cause?.message ?? String(err)}`;
    }
    outcomes[outcome] = (outcomes[outcome] ?? 0) + 1;
  }
  return outcomes;
}

const upload = (who: Client | null, parts: Part[]) => () => {
  const { body, contentType } = multipart(parts);
  return fetch(`${svc.url}/api/upload`, { method: 'POST', body: new Uint8Array(body), headers: { 'content-type': contentType, ...(who?.cookie ? { cookie: who.cookie } : {}) } });
};

const expect = (status: number, error: string) => ({ [`${status} ${JSON.stringify({ error })}`]: TIMES });

describe(`POST /api/upload refused early, with a ${BODY_BYTES / MiB} MiB body sent by fetch, ${TIMES} times each: the JSON answer every time`, () => {
  const cases: [string, () => [Client | null, Part[]] | (() => Promise<Response>), number, string][] = [
    ['no session (401)', () => [null, [...fields(approved, 'PO'), file()]], 401, 'Unauthorized'],
    [
      'a body that is not multipart (400, fields required)',
      () => () => fetch(`${svc.url}/api/upload`, { method: 'POST', body: new Uint8Array(BODY_BYTES), headers: { 'content-type': 'application/octet-stream', cookie: admin.cookie! } }),
      400,
      'file, projectId and fileType are required',
    ],
    ['an invalid fileType (400)', () => [admin, [...fields(approved, 'BILL'), file()]], 400, 'Invalid fileType'],
    ['an unknown project, the body over MAX_UPLOAD_BYTES too (404)', () => [admin, [...fields('no-such-project', 'PO'), file()]], 404, 'Project not found'],
    ["another's project (403)", () => [poc, [...fields(approved, 'PO'), file()]], 403, 'You can only upload files to your own projects'],
    ['an own project not approved (403)', () => [poc, [...fields(pocsRequested, 'PO'), file()]], 403, 'POCs can upload documents only after admin approves the project and verifies the PI'],
    ['a challan before dispatch (400)', () => [admin, [...fields(approved, 'CHALLAN'), file()]], 400, 'Challan can only be uploaded after dispatch'],
    ['a file over MAX_UPLOAD_BYTES, fields first (413)', () => [admin, [...fields(approved, 'PO'), file()]], 413, 'File is larger than the upload limit of 2 MB'],
    ['a file over MAX_UPLOAD_BYTES, file first (413)', () => [admin, [file(), ...fields(approved, 'PO')]], 413, 'File is larger than the upload limit of 2 MB'],
  ];
  for (const [label, request, status, error] of cases) {
    test(label, async () => {
      const made = request();
      const send = typeof made === 'function' ? made : upload(...made);
      assert.deepEqual(await tally(send), expect(status, error));
    });
  }
});

describe(`the resumable endpoint refusing early, with a ${BODY_BYTES / MiB} MiB body sent by fetch, ${TIMES} times each: the JSON answer every time`, () => {
  const TUS = { 'tus-resumable': '1.0.0' };
  const meta = (m: Record<string, string>) =>
    Object.entries(m)
      .map(([k, v]) => `${k} ${Buffer.from(v).toString('base64')}`)
      .join(',');
  let location: string;
  before(async () => {
    const created = await admin.request('POST', '/api/resumable-uploads', {
      headers: { ...TUS, 'upload-length': '10', 'upload-metadata': meta({ projectId: approved, fileType: 'PO', filename: 'po.pdf', filetype: 'application/pdf' }) },
    });
    assert.equal(created.status, 201, created.text);
    location = created.headers.get('location')!;
  });

  const send = (who: () => Client | null, method: string, path: () => string, headers: () => Record<string, string>) => () =>
    fetch(`${svc.url}${path()}`, {
      method,
      body: new Uint8Array(BODY_BYTES),
      headers: { ...TUS, 'content-type': 'application/offset+octet-stream', ...headers(), ...(who()?.cookie ? { cookie: who()!.cookie! } : {}) },
    });
  const cases: [string, () => Promise<Response>, number, string][] = [
    [
      'a creation carrying the file, refused by its fileType (400)',
      send(
        () => admin,
        'POST',
        () => '/api/resumable-uploads',
        () => ({ 'upload-length': String(BODY_BYTES), 'upload-metadata': meta({ projectId: approved, fileType: 'BILL', filename: 'x.pdf' }) }),
      ),
      400,
      'Invalid fileType',
    ],
    [
      'a creation whose body is longer than its Upload-Length (413, answered by the tus server)',
      send(
        () => admin,
        'POST',
        () => '/api/resumable-uploads',
        () => ({ 'upload-length': '10', 'upload-metadata': meta({ projectId: approved, fileType: 'PO', filename: 'x.pdf', filetype: 'application/pdf' }) }),
      ),
      413,
      "upload's size exceeded",
    ],
    ['a PATCH without a session (401)', send(() => null, 'PATCH', () => location, () => ({ 'upload-offset': '0' })), 401, 'Unauthorized'],
    ['a PATCH of an unknown upload (404)', send(() => admin, 'PATCH', () => '/api/resumable-uploads/nope', () => ({ 'upload-offset': '0' })), 404, 'Upload not found'],
    ['a PATCH at the wrong offset (409, answered by the tus server)', send(() => admin, 'PATCH', () => location, () => ({ 'upload-offset': '5' })), 409, 'Upload-Offset conflict'],
    ['a PATCH past the upload’s length (413, answered by the tus server)', send(() => admin, 'PATCH', () => location, () => ({ 'upload-offset': '0' })), 413, "upload's size exceeded"],
  ];
  for (const [label, request, status, error] of cases) {
    test(label, async () => {
      assert.deepEqual(await tally(request), expect(status, error));
    });
  }
});
