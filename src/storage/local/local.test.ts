import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { after, before, describe, test } from 'node:test';
import { type ObjectLocation, ObjectExistsError } from '../types.js';
import { LocalStorage } from './index.js';

// Either side of the size written on the event loop (64 KiB) and of the size held in memory (1 MiB).
const SIZES = [1, 64 * 1024, 64 * 1024 + 1, 1024 * 1024];

describe('the local driver on a real disk', () => {
  let root: string;
  let storage: LocalStorage;
  let n = 0;
  const location = (folder = 'print-orders/p1/po'): ObjectLocation => ({ folder, publicName: `po_${Date.now()}${n++}`, extension: 'pdf' });
  const fileOf = (l: ObjectLocation) => path.join(root, l.folder, `${l.publicName}.pdf`);

  before(() => {
    root = fs.mkdtempSync(path.join(os.tmpdir(), 'local-driver-'));
    storage = new LocalStorage(root, 'http://files.example');
  });
  after(() => fs.rmSync(root, { recursive: true, force: true }));

  for (const size of SIZES) {
    test(`a document held in memory (${size} bytes, in pieces) is stored whole under its key, and nothing else is left`, async () => {
      const data = randomBytes(size);
      const pieces = [data.subarray(0, Math.floor(size / 3)), data.subarray(Math.floor(size / 3), size - 1), data.subarray(size - 1)];
      const l = location();
      const { url } = await storage.putBytes(l, pieces);
      assert.equal(url, `http://files.example/files/${l.folder}/${l.publicName}.pdf`);
      assert.deepEqual(fs.readFileSync(fileOf(l)), data);
      assert.deepEqual(fs.existsSync(path.join(root, '.incoming')) ? fs.readdirSync(path.join(root, '.incoming')) : [], []);
    });
  }

  for (const size of [10, 200 * 1024]) {
    test(`a taken key is refused before a byte is written, the holder untouched (${size} bytes)`, async () => {
      const l = location();
      fs.mkdirSync(path.dirname(fileOf(l)), { recursive: true });
      fs.writeFileSync(fileOf(l), 'held');
      await assert.rejects(storage.putBytes(l, [randomBytes(size)]), (err) => err instanceof ObjectExistsError && !err.staged);
      assert.equal(fs.readFileSync(fileOf(l), 'utf8'), 'held');
    });

    test(`a folder removed since it was made is made again (${size} bytes)`, async () => {
      const folder = `print-orders/gone-${size}/po`;
      await storage.putBytes(location(folder), [Buffer.from('first')]);
      fs.rmSync(path.join(root, 'print-orders', `gone-${size}`), { recursive: true });
      const l = location(folder);
      const data = randomBytes(size);
      await storage.putBytes(l, [data]);
      assert.deepEqual(fs.readFileSync(fileOf(l)), data);
    });
  }

  test('a streamed document whose key is taken is kept, to be placed under another key without reading it again', async () => {
    const taken = location();
    fs.mkdirSync(path.dirname(fileOf(taken)), { recursive: true });
    fs.writeFileSync(fileOf(taken), 'held');
    const data = randomBytes(3 * 1024 * 1024);
    const err = await storage.put(taken, Readable.from([data])).then(
      () => assert.fail('a taken key was written'),
      (e: unknown) => e,
    );
    assert.ok(err instanceof ObjectExistsError && err.staged, String(err));
    const next = location();
    await err.staged.placeElsewhere(next);
    assert.deepEqual(fs.readFileSync(fileOf(next)), data);
    assert.equal(fs.readFileSync(fileOf(taken), 'utf8'), 'held');
    assert.deepEqual(fs.readdirSync(path.join(root, '.incoming')), []);
  });
});
