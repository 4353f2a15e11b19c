import assert from 'node:assert/strict';
import { test } from 'node:test';
import { duplicatesOf } from './duplicates.js';

const file = (id: string, sha256: string | null, createdAt: string, voidedAt: string | null = null) => ({
  id,
  sha256,
  createdAt,
  voidedAt,
  filename: `${id}.pdf`,
  type: 'PO',
  uploadedByName: 'Priya Shah',
});

test('duplicatesOf points each repeat at the first upload of the same bytes', () => {
  const files = [
    file('d', 'aa', '2026-11-12T10:00:03.000Z'),
    file('c', 'bb', '2026-11-12T10:00:02.000Z'),
    file('b', 'aa', '2026-11-12T10:00:01.000Z'),
    file('a', 'aa', '2026-11-12T10:00:00.000Z'),
    file('x', null, '2026-11-12T10:00:04.000Z'),
    file('y', null, '2026-11-12T10:00:05.000Z'),
  ];
  const dups = duplicatesOf(files);
  assert.deepEqual([...dups.keys()].sort(), ['b', 'd']);
  assert.equal(dups.get('b')!.id, 'a');
  assert.equal(dups.get('d')!.id, 'a');
  assert.equal(dups.get('d')!.uploadedByName, 'Priya Shah');
});

test('duplicatesOf: same time, the smaller id counts as first', () => {
  const dups = duplicatesOf([file('b', 'aa', '2026-11-12T10:00:00.000Z'), file('a', 'aa', '2026-11-12T10:00:00.000Z')]);
  assert.deepEqual([...dups.entries()].map(([k, v]) => [k, v.id]), [['b', 'a']]);
});

test('duplicatesOf: a withdrawn document repeats nothing and nothing repeats it', () => {
  const VOIDED = '2026-11-12T11:00:00.000Z';
  const table: [files: ReturnType<typeof file>[], expected: [string, string][]][] = [
    // The first upload withdrawn: the next one of the same bytes is the first that stands.
    [[file('a', 'aa', '2026-11-12T10:00:00.000Z', VOIDED), file('b', 'aa', '2026-11-12T10:00:01.000Z'), file('c', 'aa', '2026-11-12T10:00:02.000Z')], [['c', 'b']]],
    // A withdrawn repeat is not flagged.
    [[file('a', 'aa', '2026-11-12T10:00:00.000Z'), file('b', 'aa', '2026-11-12T10:00:01.000Z', VOIDED)], []],
    // The only other copy withdrawn: a replacement of the same bytes is no duplicate.
    [[file('a', 'aa', '2026-11-12T10:00:00.000Z', VOIDED), file('b', 'aa', '2026-11-12T10:00:01.000Z')], []],
    [[file('a', 'aa', '2026-11-12T10:00:00.000Z', VOIDED), file('b', 'aa', '2026-11-12T10:00:01.000Z', VOIDED)], []],
  ];
  for (const [files, expected] of table) {
    assert.deepEqual([...duplicatesOf(files).entries()].map(([k, v]) => [k, v.id]), expected, files.map((f) => `${f.id}${f.voidedAt ? '(voided)' : ''}`).join(' '));
  }
});
