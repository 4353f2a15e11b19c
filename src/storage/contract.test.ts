/**
 * The contract every storage driver passes (FileStorage, storage/types.ts), each made by the
 * factory as the service makes it: local on a temporary directory, S3 against s3rver (behind the
 * front that answers as AWS does where s3rver does not), Cloudinary against its fake (which checks
 * signatures as Cloudinary does). Bytes come back as they went in, a taken key is never
 * overwritten, missing objects and removals have their documented outcome, listing is what the
 * reconciler relies on, and a store that is away fails each call within a bound. The stores that
 * talk to a server reach it through a TCP proxy, so an outage is made without touching the server.
 * Then the resumable store of each driver (ResumableStore), made by the same factory.
 */
import assert from 'node:assert/strict';
import { randomBytes, randomUUID } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { after, before, describe, test } from 'node:test';
import { CreateMultipartUploadCommand, S3Client } from '@aws-sdk/client-s3';
import { Upload } from '@tus/server';
import { type FakeCloudinary, startFakeCloudinary } from '../../test/helpers/fake-cloudinary.js';
import { rejectsWithin, resolvesWithin } from '../../test/helpers/bounded.js';
import { S3_KEYS, startS3Front, startS3Server } from '../../test/helpers/s3-server.js';
import { type TcpProxy, startTcpProxy } from '../../test/helpers/tcp-proxy.js';
import type { StorageConfig } from '../config.js';
import { DOCUMENTS_PREFIX } from '../domain/documents.js';
import { createResumableStore, createStorage } from './index.js';
import { type FileStorage, type ObjectLocation, ObjectExistsError, ObjectMissingError, isListable, objectKey } from './types.js';

/** How long a call may take to fail when its store refuses or drops connections. */
const DOWN_BOUND_MS = 5000;
/** check() on a store that accepts connections and never answers: the drivers' own bound (2.5 s), with room for a busy machine. */
const SILENT_CHECK_BOUND_MS = 4000;
const MiB = 1024 * 1024;

interface Subject {
  settings: StorageConfig;
  /** The service's data directory (the local driver's files, resumable uploads waiting on this disk). */
  dataDir: string;
  storage: FileStorage;
  /** What a browser gets at an address put() answered: the service's own route for the local driver, the store's URL otherwise. */
  fetchUrl(url: string): Promise<{ status: number; bytes: Buffer }>;
  /** Whether the store holds an object at this location, looked at from outside the driver. */
  holds(location: ObjectLocation): Promise<boolean>;
  /** Listable stores: begins a write and never completes it (a crashed upload); resolves with a word of its name. */
  leaveIncomplete?(location: ObjectLocation): Promise<string>;
  /** Cuts the store off ('down': connections dropped; 'silent': accepted, never answered); resolves with the way back, or undefined when it cannot go that way. */
  outage?(kind: 'down' | 'silent'): (() => Promise<void>) | undefined;
  close(): Promise<void>;
}

const PUBLIC_URL = 'http://files.example';
const tempDir = () => fs.mkdtempSync(path.join(os.tmpdir(), 'storage-contract-'));

/** A TCP proxy in front of a server of the tests (s3rver's front, the Cloudinary fake), and its address. */
async function proxyTo(url: string): Promise<{ proxy: TcpProxy; url: string }> {
  const target = new URL(url);
  const proxy = await startTcpProxy({ host: target.hostname, port: Number(target.port) });
  return { proxy, url: `http://127.0.0.1:${proxy.port}` };
}

const subjects: Record<string, () => Promise<Subject>> = {
  local: async () => {
    const dataDir = tempDir();
    const settings: StorageConfig = { driver: 'local' };
    const storage = await createStorage({ storage: settings, dataDir, publicUrl: PUBLIC_URL });
    const root = storage.servesOwnFiles?.root;
    assert.ok(root, 'the local driver serves its own files');
    const fileOf = (key: string) => path.join(root, ...key.split('/'));
    return {
      settings,
      dataDir,
      storage,
      // GET /files/<key> (http/routes/files.ts) sends <root>/<key>.
      fetchUrl: async (url) => {
        const prefix = `${PUBLIC_URL}/files/`;
        assert.ok(url.startsWith(prefix), url);
        const key = url.slice(prefix.length).split('/').map(decodeURIComponent).join('/');
        return fs.promises.readFile(fileOf(key)).then(
          (bytes) => ({ status: 200, bytes }),
          () => ({ status: 404, bytes: Buffer.alloc(0) }),
        );
      },
      holds: async (location) => fs.existsSync(fileOf(objectKey(location))),
      leaveIncomplete: async () => {
        const name = randomUUID();
        fs.mkdirSync(path.join(root, '.incoming'), { recursive: true });
        fs.writeFileSync(path.join(root, '.incoming', name), 'half of a document');
        return name;
      },
      close: async () => fs.rmSync(dataDir, { recursive: true, force: true }),
    };
  },
  s3: async () => {
    const s3 = await startS3Server();
    const front = await startS3Front(s3);
    const { proxy, url } = await proxyTo(front.endpoint);
    const dataDir = tempDir();
    const settings: StorageConfig = {
      driver: 's3',
      bucket: s3.bucket,
      region: 'us-east-1',
      endpoint: url,
      forcePathStyle: true,
      publicUrl: `${s3.endpoint}/${s3.bucket}`,
      credentials: S3_KEYS,
    };
    const storage = await createStorage({ storage: settings, dataDir, publicUrl: PUBLIC_URL });
    const client = new S3Client({ region: 'us-east-1', endpoint: front.endpoint, forcePathStyle: true, credentials: S3_KEYS });
    return {
      settings,
      dataDir,
      storage,
      fetchUrl: async (address) => {
        const res = await fetch(address);
        return { status: res.status, bytes: Buffer.from(await res.arrayBuffer()) };
      },
      holds: async (location) => s3.keys().includes(objectKey(location)),
      leaveIncomplete: async (location) => {
        const begun = await client.send(new CreateMultipartUploadCommand({ Bucket: s3.bucket, Key: objectKey(location) }));
        return begun.UploadId!;
      },
      outage: (kind) => proxy.outage(kind),
      close: async () => {
        client.destroy();
        await proxy.close();
        await front.close();
        await s3.close();
        fs.rmSync(dataDir, { recursive: true, force: true });
      },
    };
  },
  cloudinary: async () => {
    const fake: FakeCloudinary = await startFakeCloudinary({ serveAssets: true });
    const { proxy, url } = await proxyTo(fake.url);
    // Reads of the secure URLs go through the proxy too, so an outage cuts them off as well.
    fake.deliverFrom(url);
    const dataDir = tempDir();
    const settings: StorageConfig = { driver: 'cloudinary', cloudName: fake.cloudName, apiKey: fake.apiKey, apiSecret: fake.apiSecret, uploadPrefix: url };
    const storage = await createStorage({ storage: settings, dataDir, publicUrl: PUBLIC_URL });
    return {
      settings,
      dataDir,
      storage,
      fetchUrl: async (address) => {
        const res = await fetch(address);
        return { status: res.status, bytes: Buffer.from(await res.arrayBuffer()) };
      },
      holds: async (location) => [...fake.assets.values()].some((a) => a.publicId.startsWith(`${location.folder}/${location.publicName}`)),
      outage: (kind) => proxy.outage(kind),
      close: async () => {
        await proxy.close();
        await fake.close();
        fs.rmSync(dataDir, { recursive: true, force: true });
      },
    };
  },
};

/** A document's bytes: a PDF's signature, so every store types it alike, then random bytes. */
const documentOf = (size: number) => Buffer.concat([Buffer.from('%PDF-1.4\n'), randomBytes(Math.max(0, size - 16)), Buffer.from('\n%%EOF\n')]);

let n = 0;
/** A location of its own in a folder of its own, as the service names documents (DOCUMENTS_PREFIX/<project>/<type>). */
const newLocation = (folder = `${DOCUMENTS_PREFIX}contract-${randomUUID()}/po`): ObjectLocation => ({ folder, publicName: `po_${Date.now()}${n++}`, extension: 'pdf' });

async function bytesOf(stream: Readable): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

async function drain<T>(items: AsyncIterable<T>): Promise<T[]> {
  const all: T[] = [];
  for await (const item of items) all.push(item);
  return all;
}

/** A body that sends `bytes`, then fails with `error` (a client that broke off, a size limit). */
function failingBody(bytes: Buffer, error: Error): Readable {
  let sent = false;
  return new Readable({
    read() {
      if (sent) return;
      sent = true;
      this.push(bytes);
      setImmediate(() => this.destroy(error));
    },
  });
}

/** Catches the refusal of a taken key; a store that kept the bytes (staged) is told to discard them, as the contract asks. */
async function refusal(work: Promise<unknown>): Promise<ObjectExistsError> {
  const err = await work.then(
    () => assert.fail('a taken key was written'),
    (e: unknown) => e,
  );
  assert.ok(err instanceof ObjectExistsError, `expected ObjectExistsError, got ${String(err)}`);
  return err;
}

for (const [name, make] of Object.entries(subjects)) {
  describe(`storage driver contract: ${name}`, () => {
    let subject: Subject;
    before(async () => {
      subject = await make();
    });
    after(() => subject?.close());

    test('the factory makes the configured driver, and check() resolves while the store answers', async () => {
      assert.equal(subject.storage.driver, name);
      await resolvesWithin(5000, subject.storage.check(), 'check()');
    });

    for (const size of [2048, 6 * MiB]) {
      test(`put() streams a document in (${size} bytes); open() and its URL give back the same bytes`, async () => {
        const data = documentOf(size);
        const location = newLocation();
        const { url } = await subject.storage.put(location, Readable.from([data.subarray(0, size / 2), data.subarray(size / 2)]), 'application/pdf', 'order.pdf', 'application/pdf');
        assert.ok(await subject.holds(location));
        assert.deepEqual(await bytesOf(await subject.storage.open({ key: objectKey(location), url })), data);
        const fetched = await subject.fetchUrl(url);
        assert.equal(fetched.status, 200);
        assert.deepEqual(fetched.bytes, data);
      });
    }

    test('putBytes() and adopt(), where the driver has them, store the same bytes as put()', async (t) => {
      const { storage } = subject;
      if (!storage.putBytes && !storage.adopt) return t.skip(`${name} streams every document through put()`);
      const data = documentOf(100_000);
      if (storage.putBytes) {
        const location = newLocation();
        const { url } = await storage.putBytes(location, [data.subarray(0, 10), data.subarray(10)], 'application/pdf', 'order.pdf', 'application/pdf');
        assert.deepEqual(await bytesOf(await storage.open({ key: objectKey(location), url })), data);
      }
      if (storage.adopt) {
        const file = path.join(subject.dataDir, `adopted-${randomUUID()}`);
        fs.writeFileSync(file, data);
        const location = newLocation();
        const { url } = await storage.adopt(location, file, 'application/pdf', 'order.pdf', 'application/pdf');
        assert.deepEqual(await bytesOf(await storage.open({ key: objectKey(location), url })), data);
        assert.ok(fs.existsSync(file), 'the adopted file stays where it was, for its owner to remove');
        fs.rmSync(file);
      }
    });

    test('a taken key is refused with ObjectExistsError by every way in, and the object holding it is kept', async () => {
      const { storage } = subject;
      const first = documentOf(3000);
      const location = newLocation();
      const { url } = await storage.put(location, Readable.from([first]), 'application/pdf');
      const again = documentOf(3000);
      const refused = [await refusal(storage.put(location, Readable.from([again]), 'application/pdf'))];
      if (storage.putBytes) refused.push(await refusal(storage.putBytes(location, [again], 'application/pdf')));
      if (storage.adopt) {
        const file = path.join(subject.dataDir, `adopted-${randomUUID()}`);
        fs.writeFileSync(file, again);
        refused.push(await refusal(storage.adopt(location, file, 'application/pdf')));
        fs.rmSync(file);
      }
      for (const err of refused) {
        assert.equal(err.message, `Storage object ${objectKey(location)} already exists`);
        await err.staged?.discard();
      }
      assert.deepEqual(await bytesOf(await storage.open({ key: objectKey(location), url })), first);
      if (isListable(storage)) assert.deepEqual(await drain(storage.listIncomplete()), [], 'nothing of the refused writes is left');
    });

    test('a refused body the store still holds (ObjectExistsError.staged) goes under another key without being read again', async (t) => {
      const { storage } = subject;
      const taken = newLocation();
      await storage.put(taken, Readable.from([documentOf(1000)]), 'application/pdf');
      const data = documentOf(3 * MiB);
      const body = Readable.from([data]);
      const err = await refusal(storage.put(taken, body, 'application/pdf'));
      if (!err.staged) return t.skip(`${name} refuses a taken key without keeping the bytes`);
      assert.ok(body.readableEnded, 'the body was read to its end');
      const next = newLocation(taken.folder);
      const { url } = await err.staged.placeElsewhere(next);
      assert.deepEqual(await bytesOf(await storage.open({ key: objectKey(next), url })), data);
    });

    test("a body that fails: put() rejects with the body's own error and keeps nothing under the key", async () => {
      const { storage } = subject;
      for (const size of [1000, 6 * MiB]) {
        const location = newLocation();
        const broken = new Error(`the client broke off after ${size} bytes`);
        const err = await rejectsWithin(10_000, storage.put(location, failingBody(randomBytes(size), broken), 'application/pdf'), `put() of a failing body (${size} bytes)`);
        assert.equal(err, broken);
        assert.equal(await subject.holds(location), false, 'nothing is kept under the key');
        if (isListable(storage)) {
          assert.deepEqual(await drain(storage.listObjects(location.folder)), []);
          assert.deepEqual(await drain(storage.listIncomplete()), [], 'no write is left unfinished');
        }
      }
    });

    test('missing objects: open() rejects with ObjectMissingError; remove() of a key that holds nothing resolves, again and again', async () => {
      const { storage } = subject;
      const location = newLocation();
      const { url } = await storage.put(location, Readable.from([documentOf(2000)]), 'application/pdf');
      await storage.remove(location);
      assert.equal(await subject.holds(location), false);
      await assert.rejects(storage.open({ key: objectKey(location), url }), (err) => err instanceof ObjectMissingError && err.message === `Storage object ${objectKey(location)} is missing`);
      assert.equal((await subject.fetchUrl(url)).status, 404);
      await storage.remove(location);
      await storage.remove(newLocation());
    });

    test('delete() of a recorded document (a withdrawn one): open() then rejects with ObjectMissingError, its URL answers 404, others stay; again is no failure', async () => {
      const { storage } = subject;
      const gone = newLocation();
      const kept = newLocation(gone.folder);
      const { url } = await storage.put(gone, Readable.from([documentOf(2000)]), 'application/pdf', 'wrong.pdf', 'application/pdf');
      const other = await storage.put(kept, Readable.from([documentOf(2000)]), 'application/pdf', 'right.pdf', 'application/pdf');
      await resolvesWithin(DOWN_BOUND_MS, storage.delete({ key: objectKey(gone), url }), 'delete()');
      assert.equal(await subject.holds(gone), false);
      await assert.rejects(storage.open({ key: objectKey(gone), url }), (err) => err instanceof ObjectMissingError);
      assert.equal((await subject.fetchUrl(url)).status, 404);
      assert.equal((await subject.fetchUrl(other.url)).status, 200, 'another document of the folder stays');
      await storage.delete({ key: objectKey(gone), url });
    });

    test('listing (the reconciler): listObjects(prefix) yields the complete objects under it, removeObject() removes one (twice is fine), listIncomplete() finds a write never completed and removes it', async (t) => {
      const { storage } = subject;
      if (!isListable(storage)) return t.skip(`${name} cannot be listed: the reconciler looks at the records only`);
      const folder = `${DOCUMENTS_PREFIX}contract-${randomUUID()}`;
      const a = newLocation(`${folder}/po`);
      const b = newLocation(`${folder}/invoice`);
      const elsewhere = newLocation();
      const since = Date.now() - 2000; // stores keep whole seconds
      for (const l of [a, b, elsewhere]) await storage.put(l, Readable.from([documentOf(500)]), 'application/pdf');
      const listed = await drain(storage.listObjects(`${folder}/`));
      assert.deepEqual(listed.map((o) => o.key).sort(), [objectKey(a), objectKey(b)].sort());
      for (const o of listed) assert.ok(o.modifiedAt instanceof Date && o.modifiedAt.getTime() >= since && o.modifiedAt.getTime() <= Date.now() + 2000, `${o.key}: ${o.modifiedAt.toISOString()}`);

      await storage.removeObject(objectKey(a));
      await storage.removeObject(objectKey(a));
      assert.deepEqual((await drain(storage.listObjects(`${folder}/`))).map((o) => o.key), [objectKey(b)]);

      const unfinished = newLocation();
      const marker = await subject.leaveIncomplete!(unfinished);
      const incomplete = (await drain(storage.listIncomplete())).filter((w) => w.name.includes(marker));
      assert.equal(incomplete.length, 1, `one unfinished write named after ${marker}`);
      assert.ok(incomplete[0]!.startedAt instanceof Date && incomplete[0]!.startedAt.getTime() >= since);
      await incomplete[0]!.remove();
      assert.deepEqual((await drain(storage.listIncomplete())).filter((w) => w.name.includes(marker)), []);
      assert.equal(await subject.holds(unfinished), false);
    });

    test(`a store that drops every connection: each call fails within ${DOWN_BOUND_MS / 1000} s with an Error saying why; back, it works again`, async (t) => {
      const { storage } = subject;
      const held = newLocation();
      const { url } = await storage.put(held, Readable.from([documentOf(1000)]), 'application/pdf');
      const restore = subject.outage?.('down');
      if (!restore) return t.skip(`${name} cannot be made to go down`);
      try {
        await rejectsWithin(DOWN_BOUND_MS, storage.check(), 'check()');
        await rejectsWithin(DOWN_BOUND_MS, storage.put(newLocation(), Readable.from([documentOf(1000)]), 'application/pdf'), 'put()');
        await rejectsWithin(DOWN_BOUND_MS, storage.open({ key: objectKey(held), url }), 'open()');
        await rejectsWithin(DOWN_BOUND_MS, storage.remove(held), 'remove()');
        await rejectsWithin(DOWN_BOUND_MS, storage.delete({ key: objectKey(held), url }), 'delete()');
        if (isListable(storage)) {
          await rejectsWithin(DOWN_BOUND_MS, drain(storage.listObjects(held.folder)), 'listObjects()');
          await rejectsWithin(DOWN_BOUND_MS, drain(storage.listIncomplete()), 'listIncomplete()');
          await rejectsWithin(DOWN_BOUND_MS, storage.removeObject(objectKey(held)), 'removeObject()');
        }
      } finally {
        await restore();
      }
      await resolvesWithin(DOWN_BOUND_MS, storage.check(), 'check() once the store is back');
      assert.deepEqual(await bytesOf(await storage.open({ key: objectKey(held), url })), (await subject.fetchUrl(url)).bytes);
      const location = newLocation();
      await storage.put(location, Readable.from([documentOf(1000)]), 'application/pdf');
      assert.ok(await subject.holds(location));
    });

    test(`a store that accepts connections and never answers: check() fails within ${SILENT_CHECK_BOUND_MS / 1000} s naming the store`, async (t) => {
      const restore = subject.outage?.('silent');
      if (!restore) return t.skip(`${name} cannot be made to go silent`);
      try {
        const err = await rejectsWithin(SILENT_CHECK_BOUND_MS, subject.storage.check(), 'check()');
        assert.match(err.message, /did not answer within/);
      } finally {
        await restore();
      }
      await resolvesWithin(DOWN_BOUND_MS, subject.storage.check(), 'check() once the store answers again');
    });
  });
}

for (const [name, make] of Object.entries(subjects)) {
  describe(`resumable store contract: ${name}`, () => {
    let subject: Subject;
    before(async () => {
      subject = await make();
    });
    after(() => subject?.close());

    const resumable = () => createResumableStore({ storage: subject.settings, dataDir: subject.dataDir, resumableExpiryMs: 3_600_000 });
    const begin = async (store: Awaited<ReturnType<typeof resumable>>, size: number) => {
      const id = randomUUID().replaceAll('-', '');
      await store.datastore.create(new Upload({ id, size, offset: 0, metadata: {}, creation_date: new Date().toISOString() }));
      return id;
    };

    test('an upload written in pieces is assembled byte-identical; discard() removes it, and again is no failure', async () => {
      const store = await resumable();
      const data = randomBytes(6 * MiB + 123);
      const id = await begin(store, data.length);
      let offset = 0;
      for (const piece of [data.subarray(0, 5 * MiB), data.subarray(5 * MiB, 5 * MiB + 1), data.subarray(5 * MiB + 1)]) {
        offset = await store.datastore.write(Readable.from([piece]), id, offset);
      }
      assert.equal(offset, data.length);
      assert.equal((await store.datastore.getUpload(id)).offset, data.length);
      const assembled = await store.assembled(id);
      assert.deepEqual('file' in assembled ? fs.readFileSync(assembled.file) : await bytesOf(assembled.body), data);
      await store.discard(id);
      await store.discard(id);
      await assert.rejects(store.datastore.getUpload(id), (err: { status_code?: number }) => err.status_code === 404);
    });

    test('an upload never finished is discarded whole', async () => {
      const store = await resumable();
      const id = await begin(store, 8 * MiB);
      assert.equal(await store.datastore.write(Readable.from([randomBytes(MiB)]), id, 0), MiB);
      await store.discard(id);
      await assert.rejects(store.datastore.getUpload(id), (err: { status_code?: number }) => err.status_code === 404);
      await store.discard(id);
    });
  });
}
