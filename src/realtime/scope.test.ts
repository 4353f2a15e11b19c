import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { eventId, positionOf, replayStart, seqOfEvent } from './scope.js';

describe('event numbers', () => {
  test('two per entry, increasing: project-updated 2·seq−1, stats-updated 2·seq; a position is the entry’s last number', () => {
    assert.deepEqual([eventId(1, 'projects'), eventId(1, 'dashboard'), eventId(2, 'projects'), eventId(2, 'dashboard')], [1, 2, 3, 4]);
    assert.equal(positionOf(7), 14);
  });
  for (const [n, seq] of [
    [0, 0],
    [1, 1],
    [2, 1],
    [3, 2],
    [14, 7],
  ] as const) {
    test(`seqOfEvent(${n}) = ${seq}`, () => assert.equal(seqOfEvent(n), seq));
  }
});

describe('replayStart: replay or reset', () => {
  const now = Date.parse('2026-11-23T12:00:00.000Z');
  const hoursAgo = (h: number) => new Date(now - h * 3_600_000).toISOString();
  const cases: [string, number | undefined, string | undefined, ReturnType<typeof replayStart>][] = [
    ['a recent stats-updated: from the next entry', 14, hoursAgo(1), { replay: true, afterId: 14, fromSeq: 6 }],
    ['a recent project-updated: its own entry’s stats-updated is still due', 13, hoursAgo(1), { replay: true, afterId: 13, fromSeq: 6 }],
    ['the start of an empty log', 0, undefined, { replay: true, afterId: 0, fromSeq: 0 }],
    ['an entry just inside the window', 14, hoursAgo(23.9), { replay: true, afterId: 14, fromSeq: 6 }],
    ['an entry past the window', 14, hoursAgo(24.1), { replay: false }],
    ['a position the log does not hold', 14, undefined, { replay: false }],
    ['an id not issued to this viewer', undefined, hoursAgo(1), { replay: false }],
  ];
  for (const [name, n, writtenAt, expected] of cases) test(name, () => assert.deepEqual(replayStart(n, { writtenAt }, now, 24), expected));
});
