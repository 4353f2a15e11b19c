/**
 * Withdrawing a wrong document (interface.md, "Withdrawing a wrong document") over real HTTP, on
 * the local driver, S3 (s3rver) and Cloudinary (the fake, which serves its secure URLs and checks
 * the destroy call's signature as Cloudinary does): who may void and when (the service's clock is
 * moved past 24 hours), bad input, twice; the bytes gone from each store and the url answering
 * 404; the record listed with who, when and why; the ZIP, duplicate detection and the dashboard
 * counts without it; and a deletion that fails (or a crash between the record and the deletion):
 * nothing is reachable through our own /files/ route meanwhile, and the reconciler finishes it.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { Role, User } from '../src/domain/model.js';
import { startService } from '../src/service.js';
import { reconcile } from '../src/storage/reconcile.js';
import { eventually } from './helpers/eventually.js';
import { type FakeCloudinary, startFakeCloudinary } from './helpers/fake-cloudinary.js';
import { activityOf } from './helpers/projects.js';
import { type S3Front, type S3Server, startS3Front, startS3Server } from './helpers/s3-server.js';
import { type Client, type TestService, startTestService } from './helpers/service.js';
import { type Part, postMultipart } from './helpers/upload.js';

interface Person {
  user: User;
  client: Client;
}

const HOUR = 3_600_000;
const form = (projectId: string, fileType: string, data: Buffer, filename: string): Part[] => [
  { name: 'projectId', value: projectId },
  { name: 'fileType', value: fileType },
  { name: 'file', filename, type: 'application/pdf', data },
];
const pdf = (label: string) => Buffer.concat([Buffer.from(`%PDF-1.4\n% ${label}\n`), randomBytes(4096), Buffer.from('\n%%EOF\n')]);

/** GET with the client's session (or none), the body as bytes. */
async function download(client: Client | null, url: string): Promise<{ status: number; bytes: Buffer }> {
  const res = await fetch(url, { headers: client?.cookie ? { cookie: client.cookie } : {} });
  return { status: res.status, bytes: Buffer.from(await res.arrayBuffer()) };
}

/** The names inside a ZIP, and its manifest's document ids. */
function zipContents(zip: Buffer): { entries: string[]; manifestIds: string[]; sums: string } {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'void-zip-'));
  try {
    fs.writeFileSync(path.join(dir, 'd.zip'), zip);
    execFileSync('unzip', ['-q', 'd.zip', '-d', 'out'], { cwd: dir });
    const entries = execFileSync('unzip', ['-Z1', 'd.zip'], { cwd: dir, encoding: 'utf8' }).trim().split('\n').sort();
    const manifest = JSON.parse(fs.readFileSync(path.join(dir, 'out', 'manifest.json'), 'utf8')) as { documents: { id: string }[] };
    return { entries, manifestIds: manifest.documents.map((d) => d.id), sums: fs.readFileSync(path.join(dir, 'out', 'SHA256SUMS'), 'utf8') };
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

let s3: S3Server | undefined;
/** What AWS answers and s3rver does not (listing multipart uploads: the reconciler's question). */
let s3Front: S3Front | undefined;
let cloudinary: FakeCloudinary | undefined;

interface Driver {
  name: string;
  env: () => Record<string, string>;
  /** Whether the store still holds the document at this url (looked at from outside the service). */
  holds: (svc: TestService, record: { storageKey: string; url: string }) => Promise<boolean>;
  /** Makes the store fail deletions (as a store away would); resolves with the way back. */
  breakDeletion: (svc: TestService) => Promise<() => Promise<void>>;
}

const drivers: Driver[] = [
  {
    name: 'local',
    env: () => ({}),
    holds: async (svc, r) => fs.existsSync(path.join(svc.dataDir, 'uploads', r.storageKey)),
    // A disk that refuses the removal: the driver's own call fails.
    breakDeletion: async (svc) => {
      const storage = svc.deps.storage;
      const original = storage.delete.bind(storage);
      storage.delete = () => Promise.reject(new Error('EIO: the disk refused'));
      return async () => void (storage.delete = original);
    },
  },
  {
    name: 's3',
    env: () => s3!.env(s3Front!.endpoint),
    holds: async (_svc, r) => s3!.keys().includes(r.storageKey),
    // The store goes away (every connection dropped), then comes back with its objects.
    breakDeletion: async () => {
      await s3!.stop();
      return () => s3!.restart();
    },
  },
  {
    name: 'cloudinary',
    env: () => cloudinary!.env(),
    holds: async (_svc, r) => [...cloudinary!.assets.values()].some((a) => a.secureUrl === r.url),
    // The cloud refuses the service's signature (its secret revoked), then accepts it again.
    breakDeletion: async () => {
      const secret = cloudinary!.apiSecret;
      cloudinary!.rotateSecret('revoked-meanwhile');
      return async () => cloudinary!.rotateSecret(secret);
    },
  },
];

before(async () => {
  [s3, cloudinary] = await Promise.all([startS3Server(), startFakeCloudinary({ serveAssets: true })]);
  s3Front = await startS3Front(s3);
});
after(async () => {
  await s3Front?.close();
  await Promise.all([s3?.close(), cloudinary?.close()]);
});

for (const driver of drivers) {
  describe(`withdrawing a document (${driver.name} storage)`, () => {
    let svc: TestService;
    let admin: Person;
    let poc: Person;

    before(async () => {
      svc = await startTestService({ env: driver.env() });
      const [a, p] = await Promise.all((['ADMIN', 'POC'] as Role[]).map((r) => svc.signIn(r)));
      [admin, poc] = [a!, p!];
    });
    after(() => svc?.close());

    const upload = async (who: Person, projectId: string, type: string, data: Buffer, filename: string) => {
      const res = await postMultipart(who.client, form(projectId, type, data, filename));
      assert.equal(res.status, 201, res.text);
      return (await svc.deps.store.files.findById(res.body.id))!;
    };
    const documents = async () => (await admin.client.get('/api/dashboard/stats')).body.documents as { total: number; byType: Record<string, number> };

    test('the uploader within 24 hours: 200 with who, when and why; the bytes gone from the store, the url 404; listed, out of the ZIP, duplicates and counts', async () => {
      const p = await svc.createProject(poc.user.id, { status: 'DISPATCHED', piStatus: 'VERIFIED', name: 'Wrong customer' });
      const wrongBytes = pdf('wrong');
      const wrong = await upload(poc, p.id, 'PO', wrongBytes, 'po-wrong.pdf');
      const kept = await upload(poc, p.id, 'CHALLAN', pdf('kept'), 'challan.pdf');
      assert.equal((await download(null, wrong.url)).status, 200);
      assert.ok(await driver.holds(svc, wrong));
      const countsBefore = await documents();
      const since = Date.now();

      const res = await poc.client.post(`/api/projects/${p.id}/files/${wrong.id}/void`, { reason: '  Uploaded to the wrong customer  ' });
      assert.equal(res.status, 200, res.text);
      assert.equal(res.body.id, wrong.id);
      assert.equal(res.body.url, wrong.url);
      assert.equal(res.body.voidedById, poc.user.id);
      assert.equal(res.body.voidedByName, poc.user.name);
      assert.equal(res.body.voidReason, 'Uploaded to the wrong customer');
      assert.ok(Date.parse(res.body.voidedAt) >= since - 1000 && Date.parse(res.body.voidedAt) <= Date.now() + 1000, res.body.voidedAt);
      assert.equal(res.body.duplicateOf, null);

      // The bytes are gone from the store, and the address answers 404 (our /files/ route, or the store's own).
      assert.equal(await driver.holds(svc, wrong), false, 'the store no longer holds the bytes');
      assert.equal((await download(null, wrong.url)).status, 404);
      assert.equal((await download(poc.client, wrong.url)).status, 404);
      await assert.rejects(svc.deps.storage.open({ key: wrong.storageKey, url: wrong.url }));
      assert.equal((await download(null, kept.url)).status, 200, 'the other document is untouched');
      if (driver.name === 'cloudinary') {
        // One signed destroy of the asset the url names, its CDN copies invalidated.
        const destroys = cloudinary!.requests.filter((r) => r.action === 'destroy' && r.params.public_id === `print-orders/${p.id}/po/${path.basename(wrong.storageKey, '.pdf')}`);
        assert.deepEqual(
          destroys.map((r) => [r.status, r.resourceType, r.params.type, r.params.invalidate, (r.answer as { result?: string }).result]),
          [[200, 'image', 'upload', 'true', 'ok']],
        );
      }

      // The record stays, listed with who, when and why; the other document says it stands.
      const detail = await poc.client.get(`/api/projects/${p.id}`);
      const listed = detail.body.files.find((f: { id: string }) => f.id === wrong.id);
      assert.deepEqual(
        [listed.voidedAt, listed.voidedById, listed.voidedByName, listed.voidReason, listed.filename],
        [res.body.voidedAt, poc.user.id, poc.user.name, 'Uploaded to the wrong customer', 'po-wrong.pdf'],
      );
      const standing = detail.body.files.find((f: { id: string }) => f.id === kept.id);
      assert.deepEqual([standing.voidedAt, standing.voidedById, standing.voidedByName, standing.voidReason], [null, null, null, null]);

      // The activity: <TYPE>_VOIDED with {filename, reason}, by the POC.
      const entry = (await activityOf(admin.client, p.id)).find((e) => e.action === 'PO_VOIDED');
      assert.ok(entry, 'PO_VOIDED written');
      assert.deepEqual(entry.details, { filename: 'po-wrong.pdf', reason: 'Uploaded to the wrong customer' });
      assert.equal(entry.userId, poc.user.id);
      // The admins hear of it by email, like an upload by the POC.
      const queued = await svc.deps.database.db.selectFrom('outbox').select(['recipient_id', 'events']).where('project_id', '=', p.id).execute();
      const events = queued.filter((r) => r.recipient_id === admin.user.id).flatMap((r) => (typeof r.events === 'string' ? JSON.parse(r.events) : r.events) as { action: string }[]);
      assert.ok(events.some((e) => e.action === 'PO_VOIDED'), JSON.stringify(events));

      // The dashboard counts it no more.
      const countsAfter = await documents();
      assert.equal(countsAfter.total, countsBefore.total - 1);
      assert.equal(countsAfter.byType.PO ?? 0, (countsBefore.byType.PO ?? 0) - 1);

      // The ZIP: not an entry, not named in the manifest or SHA256SUMS.
      const zip = await download(poc.client, `${svc.url}/api/projects/${p.id}/documents.zip`);
      assert.equal(zip.status, 200);
      const contents = zipContents(zip.bytes);
      assert.deepEqual(contents.entries, ['CHALLAN/challan.pdf', 'SHA256SUMS', 'manifest.json']);
      assert.deepEqual(contents.manifestIds, [kept.id]);
      assert.ok(!contents.sums.includes('po-wrong'));

      // A replacement of the same bytes is no duplicate of the withdrawn one.
      const replacement = await upload(poc, p.id, 'PO', wrongBytes, 'po.pdf');
      const after = await poc.client.get(`/api/projects/${p.id}`);
      assert.equal(after.body.files.find((f: { id: string }) => f.id === replacement.id).duplicateOf, null);
      assert.equal(after.body.files.find((f: { id: string }) => f.id === wrong.id).duplicateOf, null);
      assert.equal((await download(null, replacement.url)).status, 200);
      // And the reconciler finds nothing to say of the withdrawn record (not "missing").
      const report = await reconcile(svc.deps, { repair: false, graceMs: 0 });
      assert.deepEqual(report.missing, []);
      assert.deepEqual(report.voidedDeleted, []);
      assert.deepEqual(report.problems, []);
    });

    test('a deletion that fails: the void stands (200), nothing is reachable through our /files/ route, and the reconciler deletes the bytes', async () => {
      const p = await svc.createProject(poc.user.id, { status: 'DISPATCHED', piStatus: 'VERIFIED' });
      const doc = await upload(poc, p.id, 'INVOICE', pdf('invoice'), 'invoice.pdf');
      const restore = await driver.breakDeletion(svc);
      let res;
      try {
        res = await admin.client.post(`/api/projects/${p.id}/files/${doc.id}/void`, { reason: 'Wrong amount' });
      } finally {
        await restore();
      }
      assert.equal(res.status, 200, res.text);
      assert.equal(res.body.voidedById, admin.user.id);
      // The deletion is pending: the bytes are still in the store.
      assert.ok(await driver.holds(svc, doc), 'the store still holds the bytes');
      const pending = await svc.deps.store.files.pendingDeletions(null, 100);
      assert.deepEqual(pending.map((f) => f.id), [doc.id]);
      // Our own route answers 404 for it even now (the S3 and Cloudinary addresses are the store's own, until the reconciler runs).
      if (driver.name === 'local') assert.equal((await download(null, doc.url)).status, 404);
      // A second void is refused even though the deletion is pending.
      assert.equal((await admin.client.post(`/api/projects/${p.id}/files/${doc.id}/void`, { reason: 'again' })).status, 409);

      const report = await reconcile(svc.deps, { repair: false, graceMs: 0 });
      assert.deepEqual(report.voidedDeleted, [doc.storageKey]);
      assert.deepEqual(report.missing, [], 'a withdrawn record is never "missing"');
      assert.deepEqual(report.orphans, []);
      assert.deepEqual(report.problems, []);
      assert.equal(await driver.holds(svc, doc), false);
      assert.equal((await download(null, doc.url)).status, 404);
      assert.deepEqual(await svc.deps.store.files.pendingDeletions(null, 100), []);
      // Run again: nothing left to do.
      assert.deepEqual((await reconcile(svc.deps, { repair: false, graceMs: 0 })).voidedDeleted, []);
    });
  });
}

describe('withdrawing a document: who may, when, and what is refused (local storage)', () => {
  let svc: TestService;
  let admin: Person;
  let owner: Person;
  let otherPoc: Person;
  let client: Person;

  before(async () => {
    svc = await startTestService();
    const [a, o, p, c] = await Promise.all((['ADMIN', 'POC', 'POC', 'CLIENT'] as Role[]).map((r) => svc.signIn(r)));
    [admin, owner, otherPoc, client] = [a!, o!, p!, c!];
  });
  after(() => svc?.close());

  const later = (ms: number) => ({ now: () => new Date(Date.now() + ms) });
  const uploadAs = async (who: Person, projectId: string, type = 'PO') => {
    const res = await postMultipart(who.client, form(projectId, type, pdf(`${type}-${Math.random()}`), `${type.toLowerCase()}.pdf`));
    assert.equal(res.status, 201, res.text);
    return (await svc.deps.store.files.findById(res.body.id))!;
  };
  const voidOf = (who: Client, projectId: string, fileId: string, body: unknown = { reason: 'Wrong document' }) =>
    who.request('POST', `/api/projects/${projectId}/files/${fileId}/void`, { json: body });
  /** The record and the project's activity as they are: nothing may change on a refusal. */
  const stateOf = async (projectId: string, fileId: string) => ({
    file: await svc.deps.store.files.findById(fileId),
    activity: (await activityOf(admin.client, projectId)).length,
  });

  test('the uploader within 24 hours (to the millisecond) and after it (403); an admin at any time; the owner who did not upload it 403; anyone who may not see the project 404; no session 401', async (t) => {
    t.after(() => void (svc.deps.clock = { now: () => new Date() }));
    const p = await svc.createProject(owner.user.id, { status: 'DISPATCHED', piStatus: 'VERIFIED' });
    const mine = await uploadAs(owner, p.id);
    const byAdmin = await uploadAs(admin, p.id, 'CHALLAN');
    const late = await uploadAs(owner, p.id, 'INVOICE');

    // Who may not see the project: 404, whatever the document.
    for (const who of [otherPoc, client]) {
      const res = await voidOf(who.client, p.id, mine.id);
      assert.equal(res.status, 404, who.user.role);
      assert.deepEqual(res.body, { error: 'Project not found' });
    }
    assert.equal((await voidOf(svc.anonymous, p.id, mine.id)).status, 401);
    // The owner may see the project, but did not upload this one.
    const notTheirs = await voidOf(owner.client, p.id, byAdmin.id);
    assert.equal(notTheirs.status, 403);
    assert.deepEqual(notTheirs.body, { error: 'Only an admin or the uploader can withdraw a document' });

    // 24 hours and a little after the upload: the uploader is too late; at 24 hours exactly, still in time.
    svc.deps.clock = { now: () => new Date(Date.parse(late.createdAt) + 24 * HOUR + 1) };
    const tooLate = await voidOf(owner.client, p.id, late.id);
    assert.equal(tooLate.status, 403);
    assert.deepEqual(tooLate.body, { error: 'The uploader can withdraw a document only within 24 hours of uploading it; ask an admin' });
    assert.equal((await svc.deps.store.files.findById(late.id))!.voidedAt, null);
    svc.deps.clock = { now: () => new Date(Date.parse(mine.createdAt) + 24 * HOUR) };
    assert.equal((await voidOf(owner.client, p.id, mine.id)).status, 200);

    // An admin, a week on.
    svc.deps.clock = later(7 * 24 * HOUR);
    const res = await voidOf(admin.client, p.id, late.id, { reason: 'Superseded' });
    assert.equal(res.status, 200, res.text);
    assert.equal(res.body.voidedByName, admin.user.name);
    // The admin's own upload, too.
    assert.equal((await voidOf(admin.client, p.id, byAdmin.id)).status, 200);
  });

  test('twice → 409; an unknown document or one of another project → 404; nothing changes', async () => {
    const p = await svc.createProject(owner.user.id, { status: 'DISPATCHED', piStatus: 'VERIFIED' });
    const other = await svc.createProject(owner.user.id, { status: 'DISPATCHED', piStatus: 'VERIFIED' });
    const doc = await uploadAs(owner, p.id);
    const elsewhere = await uploadAs(owner, other.id);
    assert.equal((await voidOf(owner.client, p.id, doc.id)).status, 200);
    const before = await stateOf(p.id, doc.id);
    for (const who of [owner, admin]) {
      const twice = await voidOf(who.client, p.id, doc.id, { reason: 'Again' });
      assert.equal(twice.status, 409);
      assert.deepEqual(twice.body, { error: 'This document has already been withdrawn' });
    }
    assert.deepEqual(await stateOf(p.id, doc.id), before, 'the first void stands as it was');

    const unknown = await voidOf(admin.client, p.id, '01900000-0000-7000-8000-000000000000');
    assert.equal(unknown.status, 404);
    assert.deepEqual(unknown.body, { error: 'Document not found' });
    const wrongProject = await voidOf(admin.client, p.id, elsewhere.id);
    assert.equal(wrongProject.status, 404);
    assert.deepEqual(wrongProject.body, { error: 'Document not found' });
    assert.equal((await svc.deps.store.files.findById(elsewhere.id))!.voidedAt, null);
    assert.equal((await voidOf(admin.client, '01900000-0000-7000-8000-000000000000', doc.id)).status, 404);
  });

  test('bad input: a clear JSON 400, nothing changed; 500 characters is the most', async () => {
    const p = await svc.createProject(owner.user.id, { status: 'DISPATCHED', piStatus: 'VERIFIED' });
    const doc = await uploadAs(owner, p.id);
    const before = await stateOf(p.id, doc.id);
    const cases: [unknown, string][] = [
      [{}, 'Reason is required'],
      [{ reason: '' }, 'Reason is required'],
      [{ reason: '   \n ' }, 'Reason is required'],
      [{ reason: 'x'.repeat(501) }, 'Reason must be at most 500 characters'],
      [{ reason: 42 }, 'Reason must be text'],
      [{ reason: null }, 'Reason must be text'],
      [{ reason: 'ok', note: 'extra' }, 'Note is not a known field'],
    ];
    for (const [body, message] of cases) {
      const res = await voidOf(owner.client, p.id, doc.id, body);
      assert.equal(res.status, 400, JSON.stringify(body));
      assert.match(res.headers.get('content-type') ?? '', /application\/json/);
      assert.deepEqual(res.body, { error: message }, JSON.stringify(body));
    }
    const notJson = await owner.client.request('POST', `/api/projects/${p.id}/files/${doc.id}/void`, { body: 'reason=x', headers: { 'content-type': 'text/plain' } });
    assert.ok(notJson.status === 400 || notJson.status === 415, `${notJson.status} ${notJson.text}`);
    assert.deepEqual(await stateOf(p.id, doc.id), before);
    assert.ok(fs.existsSync(path.join(svc.dataDir, 'uploads', doc.storageKey)), 'the bytes are untouched');

    // 500 characters (not code units: an emoji is one) is accepted.
    const longest = `${'é'.repeat(498)}📄!`;
    const res = await voidOf(owner.client, p.id, doc.id, { reason: longest });
    assert.equal(res.status, 200, res.text);
    assert.equal(res.body.voidReason, longest);
  });

  test('a crash between the record and the deletion: nothing reachable meanwhile, and a restarted service deletes the bytes at start-up', async () => {
    const own = await startTestService();
    try {
      const uploader = await own.signIn('POC');
      const p = await own.createProject(uploader.user.id, { status: 'DISPATCHED', piStatus: 'VERIFIED' });
      const res = await postMultipart(uploader.client, form(p.id, 'PO', pdf('crash'), 'po.pdf'));
      assert.equal(res.status, 201, res.text);
      const doc = (await own.deps.store.files.findById(res.body.id))!;
      // What a crash right after the commit leaves: the record voided (as the use case's first step writes it), the bytes still stored.
      assert.ok(await own.deps.store.files.markVoided(doc.id, { voidedAt: new Date().toISOString(), voidedById: uploader.user.id, voidReason: 'Crashed' }));
      const file = path.join(own.dataDir, 'uploads', doc.storageKey);
      assert.ok(fs.existsSync(file));
      assert.equal((await download(null, doc.url)).status, 404, 'our /files/ route answers 404 at once');
      const zip = await download(uploader.client, `${own.url}/api/projects/${p.id}/documents.zip`);
      assert.deepEqual(zipContents(zip.bytes).entries, ['SHA256SUMS', 'manifest.json']);

      // The service's start-up reconciler (RECONCILE_ON_START, default repair) finishes the deletion.
      await own.running.close();
      const again = await startService(own.deps.config);
      try {
        await eventually('the start-up reconciler deletes the bytes', () => !fs.existsSync(file));
        await eventually('and records it', async () => (await again.deps.store.files.pendingDeletions(null, 10)).length === 0);
        assert.equal((await download(null, doc.url)).status, 404);
      } finally {
        await again.close();
      }
    } finally {
      await own.close();
    }
  });
});
