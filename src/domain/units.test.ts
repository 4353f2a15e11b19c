import assert from 'node:assert/strict';
import { test } from 'node:test';
import { formatBytes } from './units.js';

test('formatBytes: steps of 1024 (the 100 MiB limit is 100 MB), one decimal at most', () => {
  const cases: [number, string][] = [
    [0, '0 bytes'],
    [1, '1 byte'],
    [999, '999 bytes'],
    [1000, '1000 bytes'],
    [1023, '1023 bytes'],
    [1024, '1 kB'],
    [1536, '1.5 kB'],
    [104_857_600, '100 MB'],
    [100_000_000, '95.4 MB'],
    [2 * 1024 * 1024, '2 MB'],
    [5 * 1024 ** 3, '5 GB'],
  ];
  for (const [bytes, text] of cases) assert.equal(formatBytes(bytes), text, String(bytes));
});
