import assert from 'node:assert/strict';
import { test } from 'node:test';
import { formatBytes } from './units.js';

test('formatBytes: decimal units, one decimal at most', () => {
  const cases: [number, string][] = [
    [0, '0 bytes'],
    [1, '1 byte'],
    [999, '999 bytes'],
    [1000, '1 kB'],
    [1024, '1 kB'],
    [1536, '1.5 kB'],
    [104_857_600, '104.9 MB'],
    [100_000_000, '100 MB'],
    [5_000_000_000, '5 GB'],
  ];
  for (const [bytes, text] of cases) assert.equal(formatBytes(bytes), text, String(bytes));
});
