import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { Flusher } from './flusher.js';

describe('the flusher: durable flushes shared by the uploads of the moment', () => {
  let root: string;
  let n = 0;
  const flusher = new Flusher();
  const openFile = (folder = root) => fs.openSync(path.join(folder, `file-${n++}`), 'wx');

  before(() => {
    root = fs.mkdtempSync(path.join(os.tmpdir(), 'flusher-'));
  });
  after(() => {
    fs.rmSync(root, { recursive: true, force: true });
  });

  test('a flush on an idle flusher goes in a batch of its own', async () => {
    const fd = openFile();
    const before = flusher.batches;
    await flusher.flush(fd, root);
    fs.closeSync(fd);
    assert.equal(flusher.batches, before + 1);
  });

  test('flushes asked for together go in one batch, and those asked for while it is flushed in the next', async () => {
    const fds = Array.from({ length: 20 }, () => openFile());
    const before = flusher.batches;
    const first = Promise.all(fds.slice(0, 10).map((fd) => flusher.flush(fd, root)));
    await new Promise((resolve) => setImmediate(resolve)); // the first batch is being flushed now
    await Promise.all([first, ...fds.slice(10).map((fd) => flusher.flush(fd, root))]);
    for (const fd of fds) fs.closeSync(fd);
    assert.equal(flusher.batches - before, 2);
  });

  test("a file that cannot be flushed fails its own caller only, the batch's others succeed", async () => {
    const good = [openFile(), openFile()];
    const bad = openFile();
    fs.closeSync(bad); // its number now names nothing (nothing opens a file before the batch is flushed)
    const results = await Promise.allSettled([flusher.flush(good[0]!, root), flusher.flush(bad, root), flusher.flush(good[1]!, root)]);
    for (const fd of good) fs.closeSync(fd);
    assert.deepEqual(results.map((r) => r.status), ['fulfilled', 'rejected', 'fulfilled']);
    assert.equal(((results[1] as PromiseRejectedResult).reason as NodeJS.ErrnoException).code, 'EBADF');
  });

  test('a folder that cannot be flushed fails the callers whose files are in it, and no one else', async () => {
    const gone = path.join(root, 'gone');
    const [a, b] = [openFile(), openFile()];
    const results = await Promise.allSettled([flusher.flush(a, root), flusher.flush(b, gone), flusher.flushFolders([gone])]);
    for (const fd of [a, b]) fs.closeSync(fd);
    assert.deepEqual(results.map((r) => r.status), ['fulfilled', 'rejected', 'rejected']);
    assert.equal(((results[1] as PromiseRejectedResult).reason as NodeJS.ErrnoException).code, 'ENOENT');
  });
});
