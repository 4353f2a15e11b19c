import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import { test } from 'node:test';
import { StreamingSha256 } from './sha256.js';

const MiB = 1024 * 1024;

/** Feeds `data` in chunks of random sizes, as a stream does. */
async function streamed(data: Buffer, maxChunk: number): Promise<string> {
  const hash = new StreamingSha256();
  for (let at = 0; at < data.length; ) {
    const n = Math.min(data.length - at, 1 + Math.floor(Math.random() * maxChunk));
    hash.update(data.subarray(at, at + n));
    at += n;
  }
  return hash.digest();
}

test('the digest equals SHA-256 of the bytes, whatever their size and chunks', async () => {
  for (const size of [0, 1, 10_000, MiB, MiB + 1, 7 * MiB + 12_345]) {
    const data = randomBytes(size);
    const expected = createHash('sha256').update(data).digest('hex');
    for (const maxChunk of [1024, 64 * 1024, 3 * MiB]) assert.equal(await streamed(data, maxChunk), expected, `${size} bytes in chunks up to ${maxChunk}`);
  }
});

test('documents hashed at the same time keep their own digests', async () => {
  const datas = Array.from({ length: 6 }, (_, i) => randomBytes(2 * MiB + i * 1000));
  const digests = await Promise.all(datas.map((d) => streamed(d, 256 * 1024)));
  assert.deepEqual(digests, datas.map((d) => createHash('sha256').update(d).digest('hex')));
});

test('a chunk changed after it was given does not change the digest (hashed as it passes, never kept)', async () => {
  const data = randomBytes(3 * MiB);
  const expected = createHash('sha256').update(data).digest('hex');
  const hash = new StreamingSha256();
  const copy = Buffer.from(data);
  hash.update(copy.subarray(0, 2 * MiB));
  copy.fill(0, 0, 2 * MiB);
  hash.update(copy.subarray(2 * MiB));
  assert.equal(await hash.digest(), expected);
});

test('a document given in parts (a resumable upload) hashes as one', async () => {
  for (const parts of [[10_000, 20_000], [MiB - 1, 2, 3 * MiB], [5 * MiB, 5 * MiB, 123]]) {
    const data = randomBytes(parts.reduce((a, b) => a + b, 0));
    const hash = new StreamingSha256();
    let at = 0;
    for (const n of parts) {
      for (let end = at + n; at < end; ) {
        const k = Math.min(end - at, 64 * 1024);
        hash.update(data.subarray(at, at + k));
        at += k;
      }
    }
    assert.equal(await hash.digest(), createHash('sha256').update(data).digest('hex'), `parts ${parts.join(', ')}`);
  }
});

test('a document given up fails whatever asks for more of it', async () => {
  const hash = new StreamingSha256();
  hash.update(randomBytes(2 * MiB));
  hash.destroy();
  assert.throws(() => hash.update(randomBytes(10)), /given up/);
  await assert.rejects(hash.digest(), /given up/);
});
