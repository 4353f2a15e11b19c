import assert from 'node:assert/strict';
import { test } from 'node:test';
import { nulField, nulRefusal } from './nul.js';

test('nulField names the first string holding a NUL, by its path', () => {
  const cases: [unknown, string | null][] = [
    ['plain', null],
    ['a\u0000b', 'request'],
    [{ name: 'ok', email: 'x\u0000' }, 'email'],
    [{ approval: { status: 'APPROVED', note: '\u0000' } }, 'approval.note'],
    [{ tags: ['a', 'b\u0000'] }, 'tags.1'],
    [{ 'k\u0000': 1 }, 'k\\u0000'],
    [{ n: 1, b: true, z: null }, null],
    [undefined, null],
  ];
  for (const [value, expected] of cases) assert.equal(nulField(value), expected, JSON.stringify(value));
});

test('nulRefusal looks at params, then the query, then the body, and says which', () => {
  assert.equal(nulRefusal({ params: { id: 'x' }, query: { q: 'y' }, body: { name: 'z' } }), null);
  assert.equal(nulRefusal({ params: { id: '\u0000' } })?.message, 'params.id must not contain NUL characters');
  assert.equal(nulRefusal({ query: { q: '\u0000' } })?.message, 'query.q must not contain NUL characters');
  assert.equal(nulRefusal({ body: { name: 'a\u0000b' } })?.message, 'Name must not contain NUL characters');
  assert.equal(nulRefusal({ body: { name: 'a\u0000b' } })?.status, 400);
});
