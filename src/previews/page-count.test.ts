import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { documentKey, previewKey } from '../domain/previews.js';
import type { FileUpload } from '../domain/model.js';
import { createLogger } from '../logger.js';
import type { FileStorage } from '../storage/types.js';
import { Previews } from './index.js';

const config = (dataDir: string) => ({ dataDir, previews: { cacheBytes: 1 << 20, concurrency: 1, timeoutMs: 1000, memoryBytes: 64 << 20, maxWaiting: 10 } });
/** A storage that must not be read: every count here comes from the cache or from memory. */
const unread = { open: () => Promise.reject(new Error('read')) } as unknown as FileStorage;

test("a PDF's page count is learnt from the cache once, then answered from memory (the link page asks at every load); a picture is 1", async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'page-count-'));
  const previews = new Previews(config(dir) as never, createLogger('silent'));
  try {
    const file = { id: '0193a0b0-0000-7000-8000-000000000001', sha256: 'ab'.repeat(32) } as FileUpload;
    await previews.cache.putPages(documentKey(file), 7);
    await previews.cache.putImage(previewKey(file, 1, 320), Buffer.from('webp'));
    assert.equal(await previews.pageCount(unread, file, 'pdf', 320), 7);
    // The cache emptied (pruned, another instance's disk): the count is still known.
    fs.rmSync(previews.cache.dir, { recursive: true, force: true });
    assert.equal(await previews.pageCount(unread, file, 'pdf', 320), 7);
    assert.equal(await previews.pageCount(unread, file, 'image', 320), 1);
    // A document that cannot be read learns nothing: null, and asked again (not remembered as a count).
    const other = { id: '0193a0b0-0000-7000-8000-000000000002', sha256: 'cd'.repeat(32) } as FileUpload;
    assert.equal(await previews.pageCount(unread, other, 'pdf', 320), null);
    await previews.cache.putPages(documentKey(other), 2);
    await previews.cache.putImage(previewKey(other, 1, 320), Buffer.from('webp'));
    assert.equal(await previews.pageCount(unread, other, 'pdf', 320), 2);
  } finally {
    previews.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
