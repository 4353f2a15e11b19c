/**
 * DOCUMENT_ACCESS=private (interface.md, "Private documents"), on the local driver, S3 (s3rver) and
 * Cloudinary (the fake, which refuses a private asset's plain address and unsigned or expired
 * downloads as Cloudinary does): every document address refuses an anonymous request (401), a user
 * who may not see the project (404, as for no document), and a POC the project was reassigned away
 * from; the owner gets the bytes (S3 and Cloudinary through a 307 to a signed address that works only
 * while signed and fresh); no answer may be kept by a shared cache; the ZIP still reads every document.
 * Public mode is the specification's (documents.test.ts and the storage tests keep it).
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { loadConfig } from '../src/config.js';
import { createStorage } from '../src/storage/index.js';
import { ObjectMissingError } from '../src/storage/types.js';
import { type FakeCloudinary, startFakeCloudinary } from './helpers/fake-cloudinary.js';
import { type S3Front, type S3Server, startS3Front, startS3Server } from './helpers/s3-server.js';
import { type Client, type TestService, startTestService } from './helpers/service.js';
import { httpGet } from './helpers/upload.js';

const LINK_SECONDS = 2;
const STORES = ['local', 's3', 'cloudinary'] as const;

const pdf = () => Buffer.concat([Buffer.from('%PDF-1.4\n'), randomBytes(2000), Buffer.from('\n%%EOF\n')]);

/** The same JSON refusal, with the private Cache-Control, whatever the reason. */
function assertRefused(res: { status: number; headers: Record<string, string | string[] | undefined>; bytes: Buffer }, status: number, what: string) {
  assert.equal(res.status, status, `${what}: ${res.bytes.toString()}`);
  assert.match(String(res.headers['content-type']), /^application\/json/, what);
  assert.deepEqual(JSON.parse(res.bytes.toString()), { error: status === 401 ? 'Unauthorized' : 'Not found' }, what);
  assertPrivateCache(res.headers['cache-control'], what);
}

function assertPrivateCache(value: unknown, what: string) {
  const directives = String(value)
    .split(',')
    .map((d) => d.trim());
  assert.ok(directives.includes('private') && directives.includes('no-cache'), `${what}: Cache-Control ${String(value)}`);
  assert.ok(!directives.some((d) => d === 'public' || d === 'immutable' || d.startsWith('max-age') || d.startsWith('s-maxage')), `${what}: Cache-Control ${String(value)}`);
}

/** An owner POC with a project and one uploaded PDF, as the API lists it. */
async function uploadedTo(svc: TestService) {
  const owner = await svc.signIn('POC');
  const project = await svc.createProject(owner.user.id, { status: 'DISPATCHED', piStatus: 'VERIFIED' });
  const bytes = pdf();
  const res = await owner.client.upload([
    ['projectId', project.id],
    ['fileType', 'PO'],
    ['file', { data: bytes, filename: 'order.pdf', type: 'application/pdf' }],
  ]);
  assert.equal(res.status, 201, res.text);
  const file = (await svc.deps.store.files.findById(res.body.id as string))!;
  return { owner, project, bytes, answered: res.body as { id: string; url: string }, file };
}

const get = (url: string, client?: Client, headers: Record<string, string> = {}) => httpGet(url, { ...headers, ...(client?.cookie ? { cookie: client.cookie } : {}) });

for (const store of STORES) {
  describe(`DOCUMENT_ACCESS=private: ${store}`, () => {
    let s3: S3Server | undefined;
    let front: S3Front | undefined;
    let fake: FakeCloudinary | undefined;
    let svc: TestService;
    let admin: Client;

    before(async () => {
      let storeEnv: Record<string, string> = {};
      if (store === 's3') {
        // s3rver answers anyone and checks no V4 signature: the front makes it a bucket without public read, as AWS checks.
        s3 = await startS3Server();
        front = await startS3Front(s3);
        front.privateBucket = true;
        storeEnv = s3.env(front.endpoint);
      }
      if (store === 'cloudinary') storeEnv = (fake = await startFakeCloudinary({ serveAssets: true })).env();
      svc = await startTestService({ env: { ...storeEnv, DOCUMENT_ACCESS: 'private', DOCUMENT_LINK_SECONDS: String(LINK_SECONDS) } });
      admin = (await svc.signIn('ADMIN')).client;
    });
    after(async () => {
      await svc?.close();
      await front?.close();
      await s3?.close();
      await fake?.close();
    });

    const uploaded = () => uploadedTo(svc);

    /** What the owner's (or anyone's) GET of the address ends with: the bytes, through the redirect on S3 and Cloudinary. */
    async function fetchAsViewer(url: string, client: Client) {
      const first = await get(url, client);
      if (store === 'local') {
        assert.equal(first.status, 200, first.bytes.toString());
        assertPrivateCache(first.headers['cache-control'], 'the bytes');
        return { first, bytes: first.bytes, target: undefined };
      }
      assert.equal(first.status, 307, first.bytes.toString());
      assertPrivateCache(first.headers['cache-control'], 'the redirect');
      assert.match(String(first.headers['cache-control']), /no-store/);
      const target = String(first.headers.location);
      const second = await get(target);
      assert.equal(second.status, 200, `${target}: ${second.bytes.toString()}`);
      return { first, bytes: second.bytes, target };
    }

    test("a document's url is ours, /files/<key>, in the upload's answer and the project's list; the owner and an ADMIN get its bytes", async () => {
      const { owner, project, bytes, answered, file } = await uploaded();
      const ours = `${svc.url}/files/${file.storageKey}`;
      assert.equal(answered.url, ours);
      const detail = await owner.client.get(`/api/projects/${project.id}`);
      assert.equal(detail.body.files[0].url, ours);
      if (store !== 'local') assert.notEqual(file.url, ours, "the record keeps the store's own address");
      assert.deepEqual((await fetchAsViewer(ours, owner.client)).bytes, bytes);
      assert.deepEqual((await fetchAsViewer(ours, admin)).bytes, bytes);
    });

    test('HEAD of the address, as a download manager or link checker asks: the size, through the redirect on S3 and Cloudinary', async () => {
      const { owner, bytes, file } = await uploaded();
      const res = await fetch(`${svc.url}/files/${file.storageKey}`, { method: 'HEAD', headers: { cookie: owner.client.cookie! }, redirect: 'follow' });
      assert.equal(res.status, 200, `${res.url}: ${res.status}`);
      assert.equal(Number(res.headers.get('content-length')), bytes.length);
      if (store !== 'local') assert.notEqual(new URL(res.url).host, new URL(svc.url).host, 'answered by the store');
      assert.equal((await fetch(`${svc.url}/files/${file.storageKey}`, { method: 'HEAD', redirect: 'manual' })).status, 401);
    });

    test('no session: 401; a POC or CLIENT who may not see the project: 404, as for no document at all', async () => {
      const { file } = await uploaded();
      const address = `${svc.url}/files/${file.storageKey}`;
      assertRefused(await get(address), 401, 'anonymous');
      assertRefused(await get(address, undefined, { cookie: 'session=not-a-session' }), 401, 'an unknown session');
      const otherPoc = await svc.signIn('POC');
      assertRefused(await get(address, otherPoc.client), 404, 'another POC');
      // Customers are not in this tree yet: a CLIENT who does not own the project stands for another customer's.
      const client = await svc.signIn('CLIENT');
      assertRefused(await get(address, client.client), 404, 'a CLIENT who does not own it');
      const unknown = await get(`${svc.url}/files/${file.storageKey.replace(/_(\d+)/, (_m, ms: string) => `_${Number(ms) + 1}`)}`, otherPoc.client);
      assertRefused(unknown, 404, 'a guessed name');
      // A HEAD is refused the same way (no body to read).
      const head = await fetch(address, { method: 'HEAD', redirect: 'manual' });
      assert.equal(head.status, 401);
    });

    test('a POC the project was reassigned away from gets 404 at once; the new owner gets the bytes', async () => {
      const { owner, project, bytes, file } = await uploaded();
      const address = `${svc.url}/files/${file.storageKey}`;
      await fetchAsViewer(address, owner.client);
      const next = await svc.signIn('POC');
      const patched = await admin.patch(`/api/projects/${project.id}`, { pocId: next.user.id });
      assert.equal(patched.status, 200, patched.text);
      assertRefused(await get(address, owner.client), 404, 'the former owner');
      assert.deepEqual((await fetchAsViewer(address, next.client)).bytes, bytes);
    });

    test('the documents ZIP still reads every document from the store', async () => {
      const { owner, project, bytes } = await uploaded();
      const zip = await get(`${svc.url}/api/projects/${project.id}/documents.zip`, owner.client);
      assert.equal(zip.status, 200, zip.bytes.toString());
      assert.ok(zip.bytes.includes(bytes), 'the PDF is stored in the archive as it is');
      assert.ok(!zip.bytes.includes(Buffer.from('"missing": true')) && !zip.bytes.includes(Buffer.from('"missing":true')), 'no document missing');
    });

    test("a driver made afresh (after a restart, the CLI's fsck) reads a private document and removes it", async () => {
      const { bytes, file } = await uploaded();
      const { config } = svc.deps;
      const fresh = await createStorage({ storage: config.storage, dataDir: config.dataDir, publicUrl: config.publicUrl, documentAccess: config.documentAccess });
      assert.deepEqual(Buffer.concat(await (await fresh.open({ key: file.storageKey, url: file.url })).toArray()), bytes);
      const [, folder, name] = /^(.*)\/([^/]+)$/.exec(file.storageKey)!;
      const [publicName, extension] = name!.split('.');
      await fresh.remove({ folder: folder!, publicName: publicName!, extension: extension ?? null });
      await assert.rejects(fresh.open({ key: file.storageKey, url: file.url }), ObjectMissingError);
      if (fake) assert.ok(![...fake.assets.values()].some((a) => file.storageKey.startsWith(a.publicId)), 'the private asset is destroyed');
    });

    if (store === 'local') {
      test('Range and ETag still work, behind the check made at each request', async () => {
        const { owner, bytes, file } = await uploaded();
        const address = `${svc.url}/files/${file.storageKey}`;
        const part = await get(address, owner.client, { range: 'bytes=0-7' });
        assert.equal(part.status, 206);
        assert.deepEqual(part.bytes, bytes.subarray(0, 8));
        assertPrivateCache(part.headers['cache-control'], 'a range');
        const whole = await get(address, owner.client);
        const etag = String(whole.headers.etag);
        assert.ok(whole.headers.etag, 'an ETag');
        assert.equal(whole.headers['x-content-type-options'], 'nosniff');
        const again = await get(address, owner.client, { 'if-none-match': etag });
        assert.equal(again.status, 304);
        assertPrivateCache(again.headers['cache-control'], 'a revalidation');
        // Revalidation is access checked too: no 304 for someone who may not see it.
        assertRefused(await get(address, undefined, { 'if-none-match': etag }), 401, 'anonymous revalidation');
      });
    } else {
      test("the redirect's target works only while signed and fresh; the store's own address refuses", async () => {
        const { owner, bytes, file } = await uploaded();
        const { target } = await fetchAsViewer(`${svc.url}/files/${file.storageKey}`, owner.client);
        const signed = new URL(target!);
        const signatureParam = store === 's3' ? 'X-Amz-Signature' : 'signature';
        assert.ok(signed.searchParams.get(signatureParam), `signed with ${signatureParam}: ${target}`);
        const tampered = new URL(signed);
        tampered.searchParams.set(signatureParam, '0'.repeat(signed.searchParams.get(signatureParam)!.length));
        assert.ok([401, 403].includes((await get(tampered.href)).status), 'a wrong signature is refused');
        const unsigned = new URL(signed);
        unsigned.search = '';
        if (store === 'cloudinary') assert.equal((await get(file.url)).status, 401, "the private asset's plain secure_url is refused");
        assert.ok([401, 403].includes((await get(unsigned.href)).status), 'the address without its signature');
        await new Promise((resolve) => setTimeout(resolve, (LINK_SECONDS + 1.5) * 1000));
        const late = await get(target!);
        assert.ok([401, 403].includes(late.status), `an expired address is refused: ${late.status} ${late.bytes.toString()}`);
        // A new request to our address gets a fresh one.
        assert.deepEqual((await fetchAsViewer(`${svc.url}/files/${file.storageKey}`, owner.client)).bytes, bytes);
      });

      test('stored private: ' + (store === 's3' ? 'no public Cache-Control on the object' : 'uploaded with type private'), async () => {
        const { file } = await uploaded();
        if (s3) {
          const object = await s3.get(file.storageKey);
          assert.equal(object.headers.get('cache-control'), 'private, no-cache');
          const write = front!.requests.find((r) => r.method === 'PUT' && r.url.includes(file.storageKey.split('/').pop()!));
          assert.ok(write, 'the object was written through the front');
          assert.equal(write.headers['x-amz-acl'], undefined, 'no ACL: the bucket policy decides');
        }
        if (fake) {
          const asset = [...fake.assets.values()].find((a) => file.storageKey.startsWith(a.publicId));
          assert.equal(asset?.type, 'private');
          assert.match(file.url, /\/image\/private\//);
        }
      });
    }
  });
}

describe('DOCUMENT_ACCESS setting', () => {
  test('public by default, private when asked, anything else refused naming the variable', () => {
    assert.equal(loadConfig({}).documentAccess.mode, 'public');
    assert.equal(loadConfig({ DOCUMENT_ACCESS: 'private' }).documentAccess.mode, 'private');
    assert.equal(loadConfig({}).documentAccess.linkSeconds, 60);
    assert.throws(() => loadConfig({ DOCUMENT_ACCESS: 'secret' }), /DOCUMENT_ACCESS must be one of public, private/);
    assert.throws(() => loadConfig({ DOCUMENT_LINK_SECONDS: '0' }), /DOCUMENT_LINK_SECONDS/);
  });

  test('public mode is the specification: the local address answers anyone, cached as immutable', async () => {
    const svc = await startTestService();
    try {
      const { bytes, answered } = await uploadedTo(svc);
      const anon = await httpGet(answered.url);
      assert.equal(anon.status, 200);
      assert.deepEqual(anon.bytes, bytes);
      assert.equal(anon.headers['cache-control'], 'public, max-age=31536000, immutable');
    } finally {
      await svc.close();
    }
  });
});
