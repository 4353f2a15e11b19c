import assert from 'node:assert/strict';
import { test } from 'node:test';
import { type Prioritised, byPriority, deliveredSince } from './board.js';

const p = (id: string, over: Partial<Prioritised> = {}): Prioritised => ({ id, createdAt: '2026-11-01T00:00:00.000Z', rush: false, dueDate: null, hold: null, ...over });

test('byPriority: held last, then rush first, then earliest due (none last), then newest', () => {
  const cases: [string, Prioritised[], string[]][] = [
    ['held after everything, even rush', [p('held', { hold: { reason: 'x' }, rush: true, dueDate: '2026-01-01' }), p('plain')], ['plain', 'held']],
    ['rush before an earlier due date', [p('due', { dueDate: '2026-01-01' }), p('rush', { rush: true })], ['rush', 'due']],
    ['earlier due first', [p('late', { dueDate: '2026-12-02' }), p('early', { dueDate: '2026-12-01' })], ['early', 'late']],
    ['no due date last', [p('none'), p('due', { dueDate: '2030-01-01' })], ['due', 'none']],
    ['newest first on a tie', [p('old', { createdAt: '2026-01-01T00:00:00.000Z' }), p('new', { createdAt: '2026-02-01T00:00:00.000Z' })], ['new', 'old']],
    ['then by id, descending', [p('a'), p('b')], ['b', 'a']],
    ['held among themselves by rush and due', [p('h2', { hold: {}, dueDate: '2026-02-01' }), p('h1', { hold: {}, dueDate: '2026-01-01' })], ['h1', 'h2']],
  ];
  for (const [name, input, expected] of cases) assert.deepEqual([...input].sort(byPriority).map((x) => x.id), expected, name);
});

test('deliveredSince: 14 days before now', () => {
  assert.equal(deliveredSince('2026-11-27T10:00:00.000Z'), '2026-11-13T10:00:00.000Z');
});
