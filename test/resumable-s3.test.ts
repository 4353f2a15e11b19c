/**
 * Resumable uploads with STORAGE_DRIVER=s3 (the tus S3 store, through s3rver and its front) and on
 * two instances sharing the database and the bucket: an upload in several PATCHes, one of them cut,
 * resumed and finished becomes one document with the bytes sent and their SHA-256, its parts kept
 * in S3 (never under DATA_DIR) and removed once done; a refused creation stores nothing; the
 * reconciler leaves a live upload's multipart upload alone, and the expiry sweep removes an expired
 * one (its multipart upload, its objects and its row). Across instances: an upload cut on A resumes on B, and two PATCHes racing on A and B never
 * both write (the lease lock in the database: the later one asks the holder to let go, then finds
 * the offset moved on).
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { Role, User } from '../src/domain/model.js';
import { reconcile } from '../src/storage/reconcile.js';
import { sha256sum } from './helpers/checksum.js';
import { eventually } from './helpers/eventually.js';
import { type S3Front, type S3Server, startS3Front, startS3Server } from './helpers/s3-server.js';
import { Client, type TestService, startTestService } from './helpers/service.js';
import { TUS, tusCreate as create, tusMetadata as metadata, tusPatch as patch } from './helpers/tus.js';
import { assertNothingStoredSince, httpGet, storedState, streamRequest } from './helpers/upload.js';

const MiB = 1024 * 1024;

let s3: S3Server;
let front: S3Front;
let a: TestService;
let b: TestService;
let poc: User;
let onA: Client;
let onB: Client;

before(async () => {
  s3 = await startS3Server();
  front = await startS3Front(s3);
  const env = { ...s3.env(front.endpoint), MAX_UPLOAD_BYTES: String(64 * MiB) };
  a = await startTestService({ env });
  b = await startTestService({ env, sharedDatabase: a.deps.config.database });
  const signedIn = await a.signIn('POC' as Role);
  poc = signedIn.user;
  onA = signedIn.client;
  // The same session on instance B: a client that reconnected to another instance.
  onB = new Client(b.url);
  onB.cookie = onA.cookie;
});
after(async () => {
  await b?.close();
  await a?.close();
  await front?.close();
  await s3?.close();
});

const readyProject = () => a.createProject(poc.id, { status: 'DISPATCHED', piStatus: 'VERIFIED' });
const pdf = (size: number) => Buffer.concat([Buffer.from('%PDF-1.4\n'), randomBytes(size - 9)]);

const offsetOf = async (who: Client, location: string) => {
  const head = await who.request('HEAD', location, { headers: TUS });
  assert.equal(head.status, 200, head.text);
  return Number(head.headers.get('upload-offset'));
};

/**
 * Resumes as a tus client does after a dropped link: from the offset HEAD reports, and from the new
 * one if the cut request was still being stored and moved it on meanwhile (409 Upload-Offset conflict).
 */
async function resume(who: Client, location: string, data: Buffer, end = data.length) {
  for (let attempt = 1; ; attempt++) {
    const from = await offsetOf(who, location);
    const res = await patch(who, location, from, data.subarray(from, end));
    if (res.status !== 409 || attempt === 10) return { from, res };
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** A PATCH whose connection is cut after `sent` bytes of its body, as a dropped link does. */
function cutPatch(svc: TestService, who: Client, location: string, offset: number, length: number, sent: Buffer): Promise<void> {
  const { hostname, port } = new URL(svc.url);
  return new Promise((resolve) => {
    const socket = net.connect(Number(port), hostname);
    socket.on('error', () => {});
    socket.on('close', () => resolve());
    socket.on('connect', () => {
      const head = [
        `PATCH ${location} HTTP/1.1`,
        `Host: ${hostname}:${port}`,
        `Cookie: ${who.cookie}`,
        'Tus-Resumable: 1.0.0',
        `Upload-Offset: ${offset}`,
        'Content-Type: application/offset+octet-stream',
        `Content-Length: ${length}`,
      ];
      socket.write(`${head.join('\r\n')}\r\n\r\n`);
      socket.write(sent, () => socket.destroy());
    });
  });
}

const tusKeys = () => s3.keys().filter((k) => k.startsWith('resumable/'));
const tusUploads = () => s3.pendingUploadDetails().filter((u) => u.key.startsWith('resumable/'));
const resumableDir = (svc: TestService) => {
  const dir = path.join(svc.dataDir, 'resumable');
  return fs.existsSync(dir) ? fs.readdirSync(dir) : [];
};

async function assertOneDocument(projectId: string, location: string, data: Buffer, who = onA) {
  const result = await who.get(`${location}/result`);
  assert.equal(result.status, 200, result.text);
  assert.equal(result.body.size, data.length);
  const stored = await httpGet(result.body.url);
  assert.equal(stored.status, 200);
  assert.ok(stored.bytes.equals(data), 'the stored bytes are the bytes sent');
  const files = await a.deps.store.files.listForProject(projectId);
  assert.equal(files.length, 1);
  assert.equal(files[0]!.sha256, sha256sum(data));
  assert.equal(files[0]!.detectedType, 'application/pdf');
  assert.ok(files[0]!.storageKey.startsWith('print-orders/'), files[0]!.storageKey);
}

describe('STORAGE_DRIVER=s3: the tus S3 store', () => {
  test('several PATCHes, one cut and resumed, become one document; the parts were in S3, never under DATA_DIR, and are gone once done', async () => {
    const p = await readyProject();
    const data = pdf(20 * MiB);
    const created = await create(onA, data.length, { projectId: p.id, fileType: 'INVOICE', filename: 'big invoice.pdf', filetype: 'application/pdf' });
    assert.equal(created.status, 201, created.text);
    const location = created.headers.get('location')!;
    const id = location.split('/').pop()!;
    assert.deepEqual(
      tusUploads().map((u) => u.key),
      [`resumable/${id}`],
      'one multipart upload in S3 for the tus upload',
    );

    assert.equal((await patch(onA, location, 0, data.subarray(0, 8 * MiB))).status, 204);
    await cutPatch(a, onA, location, 8 * MiB, 6 * MiB, data.subarray(8 * MiB, 11 * MiB));
    for (const end of [14 * MiB, 17 * MiB, 20 * MiB]) {
      const { from, res } = await resume(onA, location, data, end);
      if (end === 14 * MiB) assert.ok(from >= 8 * MiB && from <= 11 * MiB, `resumes from ${from}`);
      assert.equal(res.status, 204, res.text);
      assert.equal(res.headers.get('upload-offset'), String(end));
    }
    assert.deepEqual(resumableDir(a), [], 'nothing under DATA_DIR/resumable');
    await assertOneDocument(p.id, location, data);
    assert.deepEqual(tusKeys(), [], 'the assembled object and its description are removed');
    assert.deepEqual(tusUploads(), []);
  });

  test('a creation that carries the whole file (creation-with-upload): 201 with Location, one document, nothing left in S3', async () => {
    const p = await readyProject();
    const data = pdf(300_000);
    const res = await onA.request('POST', '/api/resumable-uploads', {
      headers: { ...TUS, 'content-type': 'application/offset+octet-stream', 'upload-length': String(data.length), 'upload-metadata': metadata({ projectId: p.id, fileType: 'INVOICE', filename: 'whole.pdf', filetype: 'application/pdf' }) },
      body: new Uint8Array(data),
    });
    assert.equal(res.status, 201, res.text);
    assert.equal(res.headers.get('upload-offset'), String(data.length));
    const location = res.headers.get('location')!;
    assert.match(location, /^\/api\/resumable-uploads\/[0-9a-f-]{36}$/);
    await assertOneDocument(p.id, location, data);
    assert.deepEqual(tusKeys(), [], 'the assembled object and its description are removed');
    assert.deepEqual(tusUploads(), []);
  });

  test('a refused creation stores nothing, in S3 or anywhere else', async () => {
    const approved = await a.createProject(poc.id, { status: 'APPROVED', piStatus: 'VERIFIED' });
    const before = await storedState(a, [approved.id]);
    const keysBefore = s3.keys();
    const uploadsBefore = s3.pendingUploads();
    const res = await create(onA, 10, { projectId: approved.id, fileType: 'CHALLAN', filename: 'c.pdf', filetype: 'application/pdf' });
    assert.deepEqual([res.status, res.body], [400, { error: 'Challan can only be uploaded after dispatch' }]);
    await assertNothingStoredSince(a, before);
    assert.deepEqual(s3.keys(), keysBefore);
    assert.deepEqual(s3.pendingUploads(), uploadsBefore);
  });

  test("the reconciler leaves a live upload's multipart upload alone; the expiry sweep removes an expired one", async () => {
    const p = await readyProject();
    const data = pdf(6 * MiB);
    const live = (await create(onA, data.length, { projectId: p.id, fileType: 'PO', filename: 'po.pdf', filetype: 'application/pdf' })).headers.get('location')!;
    assert.equal((await patch(onA, live, 0, data.subarray(0, 5 * MiB))).status, 204);
    const report = await reconcile(a.deps, { repair: true, graceMs: 0 });
    assert.deepEqual(report.incomplete, [], JSON.stringify(report));
    assert.equal(tusUploads().length, 1);
    assert.equal((await patch(onA, live, 5 * MiB, data.subarray(5 * MiB))).status, 204);
    await assertOneDocument(p.id, live, data);

    const stale = (await create(onA, 100, { projectId: p.id, fileType: 'INVOICE', filename: 'old.pdf', filetype: 'application/pdf' })).headers.get('location')!;
    assert.equal((await patch(onA, stale, 0, pdf(100).subarray(0, 40))).status, 204);
    const [expired] = tusUploads();
    assert.ok(expired);
    // Begun two days ago, as the store reports it (RESUMABLE_UPLOAD_EXPIRY_HOURS defaults to 24).
    const keyFile = path.join(s3.dir, s3.bucket, '._S3rver_uploads', expired.uploadId, 'key');
    const twoDaysAgo = new Date(Date.now() - 48 * 3_600_000);
    fs.utimesSync(keyFile, twoDaysAgo, twoDaysAgo);
    // And as its row says.
    const staleId = stale.split('/').pop()!;
    await a.deps.database.db.updateTable('resumable_uploads').set({ created_at: twoDaysAgo.toISOString() }).where('id', '=', staleId).execute();
    const rowOf = (id: string) => a.deps.database.db.selectFrom('resumable_uploads').select('id').where('id', '=', id).executeTakeFirst();
    assert.ok(await rowOf(staleId));
    // A third instance's start-up sweep finds it.
    const c = await startTestService({ env: { ...s3.env(front.endpoint) }, sharedDatabase: a.deps.config.database });
    try {
      await eventually('the expired upload is removed', () => tusUploads().length === 0 && tusKeys().length === 0);
      await eventually('its row is removed', async () => (await rowOf(staleId)) === undefined);
      const head = await onA.request('HEAD', stale, { headers: TUS });
      assert.equal(head.status, 404);
    } finally {
      await c.close();
    }
  });
});

describe('two instances on one database and bucket', () => {
  test('an upload cut on instance A resumes on instance B and yields one document', async () => {
    const p = await readyProject();
    const data = pdf(12 * MiB);
    const location = (await create(onA, data.length, { projectId: p.id, fileType: 'PO', filename: 'po.pdf', filetype: 'application/pdf' })).headers.get('location')!;
    assert.equal((await patch(onA, location, 0, data.subarray(0, 8 * MiB))).status, 204);
    await cutPatch(a, onA, location, 8 * MiB, 4 * MiB, data.subarray(8 * MiB, 10 * MiB));
    // What arrived before the cut is kept where the store could keep it (a short tail waits as `<id>.part`).
    const { from, res } = await resume(onB, location, data);
    assert.ok(from >= 8 * MiB && from <= 10 * MiB, `resumes from ${from}`);
    assert.equal(res.status, 204, res.text);
    await assertOneDocument(p.id, location, data, onB);
  });

  test('two PATCHes racing on A and B never both write: the later one has the holder let go, then finds the offset moved on', async () => {
    const p = await readyProject();
    const data = pdf(8 * MiB);
    const location = (await create(onA, data.length, { projectId: p.id, fileType: 'PO', filename: 'po.pdf', filetype: 'application/pdf' })).headers.get('location')!;
    const id = location.split('/').pop()!;
    // A's PATCH sends its first MiB and then stalls (a half-open connection), holding the lock.
    let unstall!: () => void;
    const stalled = new Promise<void>((resolve) => (unstall = resolve));
    const first = streamRequest(`${a.url}${location}`, {
      method: 'PATCH',
      headers: { ...TUS, cookie: onA.cookie!, 'upload-offset': '0', 'content-type': 'application/offset+octet-stream', 'content-length': String(data.length) },
      body: (async function* () {
        yield data.subarray(0, MiB);
        await stalled;
      })(),
    }).catch((err: Error) => err);
    const locks = () => a.deps.database.db.selectFrom('upload_locks').select(['id', 'holder']).where('id', '=', id).execute();
    await eventually("A's PATCH holds the lock", async () => (await locks()).length === 1);

    const second = await patch(onB, location, 0, data);
    assert.equal(second.status, 409, `B must not write while A held the upload: ${second.status} ${second.text}`);
    unstall();
    await first;
    const from = await offsetOf(onB, location);
    assert.equal(from, MiB, "what A received before it let go is kept, and nothing of B's");
    const rest = await patch(onB, location, from, data.subarray(from));
    assert.equal(rest.status, 204, rest.text);
    await assertOneDocument(p.id, location, data, onB);
    assert.deepEqual(await locks(), [], 'every lease released');
  });
});
