/**
 * The reconciler (src/storage/reconcile.ts), at start-up and as `npm run cli -- fsck [--repair]`:
 * stored objects without a record, records without an object, writes that never completed and
 * name reservations never used, on the local driver and on S3; anything younger than the grace
 * period (an upload in flight) is left alone.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { CreateMultipartUploadCommand, S3Client, UploadPartCommand } from '@aws-sdk/client-s3';
import type { Config } from '../src/config.js';
import { newId } from '../src/ids.js';
import { reconcile } from '../src/storage/reconcile.js';
import { insertFile } from './helpers/projects.js';
import { Client, type TestService, startTestService } from './helpers/service.js';
import { type S3Front, type S3Server, S3_KEYS, startS3Front, startS3Server } from './helpers/s3-server.js';

const HOUR = 3_600_000;
const root = path.resolve(import.meta.dirname, '..');

/** The environment the command line needs to reach a test service's database and storage. */
function cliEnv(config: Config, extra: Record<string, string> = {}): Record<string, string> {
  const env: Record<string, string> = { DATA_DIR: config.dataDir, LOG_LEVEL: 'silent', ...extra };
  if (config.database.dialect === 'postgres') {
    env.DATABASE_URL = config.database.url;
    if (config.database.schema) env.DATABASE_SCHEMA = config.database.schema;
  } else env.DATABASE_URL = `file:${config.database.file}`;
  return env;
}

function fsck(config: Config, args: string[], extra: Record<string, string> = {}): { status: number | null; stdout: string; report: Record<string, unknown> } {
  const childEnv: Record<string, string | undefined> = { ...process.env };
  for (const name of ['DATABASE_URL', 'DATABASE_SCHEMA', 'STORAGE_DRIVER', 'NODE_OPTIONS']) delete childEnv[name];
  const result = spawnSync(process.execPath, ['--import', 'tsx', 'src/cli.ts', 'fsck', ...args], { cwd: root, env: { ...childEnv, ...cliEnv(config, extra) }, encoding: 'utf8', timeout: 60_000 });
  const json = result.stdout.slice(result.stdout.indexOf('{'), result.stdout.lastIndexOf('}') + 1);
  return { status: result.status, stdout: result.stdout + result.stderr, report: json ? JSON.parse(json) : {} };
}

async function uploadPdf(client: Client, projectId: string, text: string) {
  const res = await client.upload([
    ['projectId', projectId],
    ['fileType', 'PO'],
    ['file', { data: text, filename: 'order.pdf', type: 'application/pdf' }],
  ]);
  assert.equal(res.status, 201, res.text);
  return res.body as { id: string; url: string };
}

describe('local driver', () => {
  let svc: TestService;
  before(async () => {
    svc = await startTestService({ env: { RECONCILE_ON_START: 'off' } });
  });
  after(() => svc?.close());

  test('fsck reports orphans, missing objects, incomplete writes and unused reservations; --repair removes what it can; young ones stay', { timeout: 120_000 }, async () => {
    const { user, client } = await svc.signIn('ADMIN');
    const project = await svc.createProject(user.id, { status: 'APPROVED', piStatus: 'VERIFIED' });
    const kept = await uploadPdf(client, project.id, '%PDF-1.4\n% kept\n');
    const uploads = path.join(svc.dataDir, 'uploads');
    const old = new Date(Date.now() - 2 * HOUR);
    const placeFile = (rel: string, mtime?: Date) => {
      const file = path.join(uploads, rel);
      fs.mkdirSync(path.dirname(file), { recursive: true });
      fs.writeFileSync(file, 'left behind');
      if (mtime) fs.utimesSync(file, mtime, mtime);
    };
    // A crash after the bytes were placed and before the record: an object and its reservation.
    const orphan = `print-orders/${project.id}/po/po_1000.pdf`;
    placeFile(orphan, old);
    await svc.deps.store.storageNames.reserve(orphan, old.toISOString());
    // An upload in flight right now: within the grace period.
    const young = `print-orders/${project.id}/po/po_2000.pdf`;
    placeFile(young);
    // A crash mid-write: a temporary file.
    const partial = `.incoming/${newId()}`;
    placeFile(partial, old);
    // A reservation whose upload failed before any byte was placed.
    const unused = `print-orders/${project.id}/invoice/invoice_3000.pdf`;
    await svc.deps.store.storageNames.reserve(unused, old.toISOString());
    // A record whose file is gone (deleted by hand, a lost disk).
    const lost = await insertFile(svc, project.id, 'CHALLAN', user.id, old.toISOString());
    // Something that is not a document is none of the reconciler's business.
    fs.writeFileSync(path.join(uploads, 'README.txt'), 'not ours');

    const expected = {
      driver: 'local',
      listable: true,
      orphans: [orphan],
      missing: [{ id: lost.id, projectId: project.id, key: lost.storageKey }],
      incomplete: [partial],
      unrecordedNames: [orphan, unused].sort(),
      voidedDeleted: [],
      problems: [],
    };
    const found = await reconcile(svc.deps, { repair: false, graceMs: HOUR });
    assert.deepEqual({ ...found, repaired: undefined }, { ...expected, repaired: undefined });

    const report = fsck(svc.deps.config, [], { RECONCILE_GRACE_MS: String(HOUR) });
    assert.equal(report.status, 1, report.stdout);
    assert.deepEqual(report.report, { ...expected, repaired: false });
    for (const rel of [orphan, young, partial]) assert.ok(fs.existsSync(path.join(uploads, rel)), `report only: ${rel} stays`);

    const repaired = fsck(svc.deps.config, ['--repair'], { RECONCILE_GRACE_MS: String(HOUR) });
    assert.equal(repaired.status, 1, `the missing object cannot be repaired: ${repaired.stdout}`);
    // The orphan's reservation went with it.
    assert.deepEqual(repaired.report, { ...expected, unrecordedNames: [unused], repaired: true });
    assert.ok(!fs.existsSync(path.join(uploads, orphan)));
    assert.ok(!fs.existsSync(path.join(uploads, partial)));
    assert.ok(fs.existsSync(path.join(uploads, young)), 'within the grace period: left alone');
    assert.ok(fs.existsSync(path.join(uploads, 'README.txt')));
    assert.deepEqual(await svc.deps.store.storageNames.unrecorded(new Date().toISOString()), []);
    assert.equal(await (await fetch(kept.url)).text(), '%PDF-1.4\n% kept\n');

    const after = await reconcile(svc.deps, { repair: false, graceMs: HOUR });
    assert.deepEqual([after.orphans, after.incomplete, after.unrecordedNames, after.missing.map((m) => m.id)], [[], [], [], [lost.id]]);
  });
});

describe('S3 driver', () => {
  let s3: S3Server;
  let front: S3Front;
  let svc: TestService;
  before(async () => {
    s3 = await startS3Server();
    front = await startS3Front(s3);
    svc = await startTestService({ env: { ...s3.env(front.endpoint), RECONCILE_ON_START: 'off' } });
  });
  after(async () => {
    await svc?.close();
    await front?.close();
    await s3?.close();
  });

  test('objects without a record are removed, multipart uploads never completed aborted, records without an object reported; young ones stay', async () => {
    const { user, client } = await svc.signIn('ADMIN');
    const project = await svc.createProject(user.id, { status: 'APPROVED', piStatus: 'VERIFIED' });
    const kept = await uploadPdf(client, project.id, '%PDF-1.4\n% s3 kept\n');
    const orphan = `print-orders/${project.id}/po/po_1000.pdf`;
    await s3.putDirect(orphan, 'left behind');
    await s3.putDirect('elsewhere/not-ours.txt', 'not a document');
    const lost = await insertFile(svc, project.id, 'CHALLAN', user.id, new Date(Date.now() - HOUR).toISOString());
    // An instance that died mid-upload: a multipart upload with a part, never completed.
    const sdk = new S3Client({ endpoint: s3.endpoint, region: 'us-east-1', forcePathStyle: true, credentials: S3_KEYS });
    const dangling = `print-orders/${project.id}/po/po_4000.pdf`;
    const { UploadId } = await sdk.send(new CreateMultipartUploadCommand({ Bucket: s3.bucket, Key: dangling }));
    await sdk.send(new UploadPartCommand({ Bucket: s3.bucket, Key: dangling, UploadId, PartNumber: 1, Body: Buffer.alloc(1024, 1) }));
    sdk.destroy();
    assert.deepEqual(s3.pendingUploads(), [UploadId]);

    // Everything is new: with the default grace period nothing is touched.
    const young = await reconcile(svc.deps, { repair: true, graceMs: HOUR });
    assert.deepEqual([young.orphans, young.incomplete, young.problems], [[], [], []]);
    assert.ok(s3.keys().includes(orphan));
    assert.deepEqual(s3.pendingUploads(), [UploadId]);

    await new Promise((r) => setTimeout(r, 1100)); // S3's LastModified has whole seconds
    const found = await reconcile(svc.deps, { repair: true, graceMs: 1000 });
    assert.deepEqual(found.orphans, [orphan]);
    assert.deepEqual(found.missing, [{ id: lost.id, projectId: project.id, key: lost.storageKey }]);
    assert.deepEqual(found.incomplete, [`${dangling} (multipart upload ${UploadId})`]);
    assert.deepEqual(found.problems, []);
    assert.deepEqual(s3.pendingUploads(), [], 'aborted');
    assert.ok(!s3.keys().includes(orphan));
    assert.ok(s3.keys().includes('elsewhere/not-ours.txt'));
    assert.equal((await s3.get(new URL(kept.url).pathname.split('/').slice(2).join('/'))).status, 200);
  });
});
