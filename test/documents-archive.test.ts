/**
 * GET /api/projects/:id/documents.zip over real HTTP, with the local driver, with S3 (s3rver) and
 * with Cloudinary (the fake, whose secure URLs serve the stored bytes):
 * the archive passes `unzip -t`, unpacks to byte-identical files in folders by type with unique
 * names, and its manifest and SHA256SUMS match the bytes (`sha256sum -c`). Who may download it, and
 * a document the store lost. (A 1 GiB project in flat memory: documents-archive-memory.test.ts.)
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { FileUpload, Role, User } from '../src/domain/model.js';
import { type FakeCloudinary, startFakeCloudinary } from './helpers/fake-cloudinary.js';
import { type S3Server, startS3Server } from './helpers/s3-server.js';
import { type Client, type TestService, startTestService } from './helpers/service.js';
import { type Part, postMultipart } from './helpers/upload.js';

interface Person {
  user: User;
  client: Client;
}

const form = (projectId: string, fileType: string, data: Buffer, filename: string, type = 'application/pdf'): Part[] => [
  { name: 'projectId', value: projectId },
  { name: 'fileType', value: fileType },
  { name: 'file', filename, type, data },
];

/** GET with the client's session, the body as bytes. */
async function download(client: Client, urlPath: string): Promise<{ status: number; headers: Headers; bytes: Buffer }> {
  const res = await fetch(new URL(urlPath, client.baseUrl), { headers: client.cookie ? { cookie: client.cookie } : {} });
  return { status: res.status, headers: res.headers, bytes: Buffer.from(await res.arrayBuffer()) };
}

function unpack(zip: Buffer): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'documents-zip-'));
  fs.writeFileSync(path.join(dir, 'documents.zip'), zip);
  execFileSync('unzip', ['-t', '-q', 'documents.zip'], { cwd: dir }); // throws unless every entry's CRC checks
  execFileSync('unzip', ['-q', 'documents.zip', '-d', 'out'], { cwd: dir });
  return path.join(dir, 'out');
}

let s3: S3Server | undefined;
let cloudinary: FakeCloudinary | undefined;
/** Each storage driver's settings, and (where the test can) how a stored document is lost behind the service's back. */
const drivers: { name: string; env: () => Record<string, string>; lose?: (svc: TestService, record: FileUpload) => void }[] = [
  { name: 'local', env: () => ({}), lose: (svc, record) => fs.rmSync(path.join(svc.dataDir, 'uploads', record.storageKey)) },
  { name: 's3', env: () => s3!.env(s3!.endpoint) },
  {
    name: 'cloudinary',
    env: () => cloudinary!.env(),
    lose: (_svc, record) => {
      const [key] = [...cloudinary!.assets].find(([, a]) => a.secureUrl === record.url)!;
      cloudinary!.assets.delete(key);
    },
  },
];

before(async () => {
  [s3, cloudinary] = await Promise.all([startS3Server(), startFakeCloudinary({ serveAssets: true })]);
});
after(() => Promise.all([s3?.close(), cloudinary?.close()]));

for (const driver of drivers) {
  describe(`documents.zip (${driver.name} storage)`, () => {
    let svc: TestService;
    let admin: Person;
    let poc: Person;
    let otherPoc: Person;

    before(async () => {
      svc = await startTestService({ env: driver.env() });
      const [a, p, o] = await Promise.all((['ADMIN', 'POC', 'POC'] as Role[]).map((r) => svc.signIn(r)));
      [admin, poc, otherPoc] = [a!, p!, o!];
    });
    after(() => svc.close());

    test('unpacks (unzip -t) to byte-identical files, by type, with unique names and a matching manifest', async () => {
      const p = await svc.createProject(poc.user.id, { status: 'DELIVERED', piStatus: 'VERIFIED', name: 'Annual report' });
      const uploads: { fileType: string; filename: string; data: Buffer; type?: string }[] = [
        { fileType: 'PO', filename: 'order.pdf', data: Buffer.concat([Buffer.from('%PDF-1.4\n'), randomBytes(2 * 1024 * 1024)]) },
        { fileType: 'PO', filename: 'order.pdf', data: Buffer.from('%PDF-1.4\nsecond\n') },
        { fileType: 'PO', filename: 'ORDER.pdf', data: Buffer.from('%PDF-1.4\nthird\n') },
        { fileType: 'CHALLAN', filename: 'order.pdf', data: Buffer.from('%PDF-1.4\nchallan\n') },
        { fileType: 'INVOICE', filename: 'lines.csv', data: Buffer.from('item,amount\n'.repeat(5000)), type: 'text/csv' },
        // busboy keeps the base name only
        { fileType: 'INVOICE', filename: '../escape.txt', data: Buffer.from('no way out'), type: 'text/plain' },
      ];
      const ids: string[] = [];
      for (const u of uploads) {
        const res = await postMultipart(poc.client, form(p.id, u.fileType, u.data, u.filename, u.type));
        assert.equal(res.status, 201, res.text);
        ids.push(res.body.id);
      }

      for (const who of [poc, admin]) {
        const res = await download(who.client, `/api/projects/${p.id}/documents.zip`);
        assert.equal(res.status, 200);
        assert.equal(res.headers.get('content-type'), 'application/zip');
        assert.equal(res.headers.get('content-disposition'), 'attachment; filename="Annual-report-documents.zip"');
        const out = unpack(res.bytes);
        const expectedPaths = ['PO/order.pdf', 'PO/order (2).pdf', 'PO/ORDER (3).pdf', 'CHALLAN/order.pdf', 'INVOICE/lines.csv', 'INVOICE/escape.txt'];
        uploads.forEach((u, i) => assert.deepEqual(fs.readFileSync(path.join(out, expectedPaths[i]!)), u.data, expectedPaths[i]));

        const manifest = JSON.parse(fs.readFileSync(path.join(out, 'manifest.json'), 'utf8'));
        assert.deepEqual(manifest.project, { id: p.id, name: 'Annual report' });
        assert.deepEqual(
          manifest.documents.map((d: { id: string; path: string }) => [d.id, d.path]),
          ids.map((id, i) => [id, expectedPaths[i]]),
        );
        for (const d of manifest.documents) {
          const sum = execFileSync('sha256sum', [path.join(out, d.path)], { encoding: 'utf8' }).split(' ')[0];
          assert.equal(d.sha256, sum, d.path);
        }
        execFileSync('sha256sum', ['-c', '--quiet', 'SHA256SUMS'], { cwd: out });
        const entries = execFileSync('unzip', ['-Z1', path.join(out, '..', 'documents.zip')], { encoding: 'utf8' }).trim().split('\n');
        assert.deepEqual(entries.sort(), [...expectedPaths, 'manifest.json', 'SHA256SUMS'].sort());
      }
      if (driver.name === 'cloudinary') {
        // the bytes came from each document's secure URL, once per download
        const fetched = cloudinary!.requests.filter((r) => r.action === 'deliver' && r.status === 200).map((r) => r.path);
        for (const f of await svc.deps.store.files.listForProject(p.id)) {
          assert.equal(fetched.filter((at) => at === new URL(f.url).pathname).length, 2, f.url);
        }
      }
    });

    test('only whoever may see the project: another POC gets 404, no session 401; an empty project is a valid empty archive', async () => {
      const p = await svc.createProject(poc.user.id, { status: 'APPROVED', piStatus: 'VERIFIED' });
      const other = await download(otherPoc.client, `/api/projects/${p.id}/documents.zip`);
      assert.equal(other.status, 404);
      assert.deepEqual(JSON.parse(other.bytes.toString()), { error: 'Project not found' });
      const anonymous = await download(svc.anonymous, `/api/projects/${p.id}/documents.zip`);
      assert.equal(anonymous.status, 401);
      const empty = await download(poc.client, `/api/projects/${p.id}/documents.zip`);
      assert.equal(empty.status, 200);
      const out = unpack(empty.bytes);
      assert.deepEqual(JSON.parse(fs.readFileSync(path.join(out, 'manifest.json'), 'utf8')).documents, []);
    });

    const lose = driver.lose;
    if (lose) {
      test('a document the store no longer holds is listed as missing and left out', async () => {
        const p = await svc.createProject(poc.user.id, { status: 'APPROVED', piStatus: 'VERIFIED' });
        const kept = await postMultipart(poc.client, form(p.id, 'PO', Buffer.from('%PDF-1.4\nkept'), 'kept.pdf'));
        const lost = await postMultipart(poc.client, form(p.id, 'PO', Buffer.from('%PDF-1.4\nlost'), 'lost.pdf'));
        const record = (await svc.deps.store.files.listForProject(p.id)).find((f) => f.id === lost.body.id)!;
        lose(svc, record);
        const res = await download(poc.client, `/api/projects/${p.id}/documents.zip`);
        assert.equal(res.status, 200);
        const out = unpack(res.bytes);
        const manifest = JSON.parse(fs.readFileSync(path.join(out, 'manifest.json'), 'utf8'));
        assert.deepEqual(
          manifest.documents.map((d: { id: string; path: string | null; missing?: boolean }) => [d.id, d.path, d.missing ?? false]),
          [
            [kept.body.id, 'PO/kept.pdf', false],
            [lost.body.id, null, true],
          ],
        );
        assert.equal(fs.existsSync(path.join(out, 'PO', 'lost.pdf')), false);
      });
    }
  });
}
