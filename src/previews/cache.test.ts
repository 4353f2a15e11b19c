import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { createLogger } from '../logger.js';
import { PreviewCache } from './cache.js';

test('the preview cache keeps to its bound: past it, the least recently used go first, down to 80 %', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'preview-cache-'));
  try {
    const cache = new PreviewCache(dir, 1000, createLogger('silent'));
    const at = (name: string, seconds: number) => fs.utimesSync(path.join(dir, `${name}.webp`), seconds, seconds);
    await cache.putImage('a', Buffer.alloc(300));
    at('a', 1000);
    await cache.putImage('b', Buffer.alloc(300));
    at('b', 2000);
    await cache.putImage('c', Buffer.alloc(300));
    at('c', 3000);
    // A hit renews a: b is now the least recently used.
    assert.equal((await cache.image('a'))?.length, 300);
    await cache.putImage('d', Buffer.alloc(300));
    await cache.pruned();
    const left = fs.readdirSync(dir).sort();
    assert.deepEqual(left, ['a.webp', 'd.webp']);
    assert.equal(await cache.image('b'), null);
    await cache.putPages('doc', 12);
    assert.equal(await cache.pages('doc'), 12);
    assert.equal(await cache.pages('other'), null);
    await cache.putFailed('x');
    assert.equal(await cache.failed('x'), true);
    assert.equal(await cache.failed('y'), false);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
