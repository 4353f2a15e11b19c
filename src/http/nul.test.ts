import assert from 'node:assert/strict';
import { test } from 'node:test';
import { MAX_JSON_DEPTH, jsonStructureRefusal, nulRefusal, unfitText } from './nul.js';

/** Arrays (or objects) nested `depth` deep around `inner`. */
const nested = (depth: number, inner: unknown, kind: 'array' | 'object' = 'array'): unknown => {
  let v = inner;
  for (let i = 0; i < depth; i++) v = kind === 'array' ? [v] : { a: v };
  return v;
};

test('unfitText names the first string holding a NUL or a lone surrogate, by its path', () => {
  const cases: [unknown, { path: string; problem: string } | null][] = [
    ['plain', null],
    ['a\u0000b', { path: 'request', problem: 'nul' }],
    [{ name: 'ok', email: 'x\u0000' }, { path: 'email', problem: 'nul' }],
    [{ approval: { status: 'APPROVED', note: '\u0000' } }, { path: 'approval.note', problem: 'nul' }],
    [{ tags: ['a', 'b\u0000'] }, { path: 'tags.1', problem: 'nul' }],
    [{ 'k\u0000': 1 }, { path: 'k\\u0000', problem: 'nul' }],
    [{ n: 1, b: true, z: null }, null],
    [undefined, null],
    // Lone surrogates, high or low, anywhere; a pair (an emoji) is fine.
    [{ name: '\ud800' }, { path: 'name', problem: 'surrogate' }],
    [{ name: 'x\udc00' }, { path: 'name', problem: 'surrogate' }],
    [{ name: '\udbff\ud800' }, { path: 'name', problem: 'surrogate' }],
    [{ name: 'print 😀 run', note: 'ünïcödé' }, null],
    [{ approval: { note: 'a\ud83d' } }, { path: 'approval.note', problem: 'surrogate' }],
    [{ 'k\udfff': 1 }, { path: 'k\\udfff', problem: 'surrogate' }],
    // Document order: the first one wins.
    [{ a: ['ok', { b: '\ud800' }], c: '\u0000' }, { path: 'a.1.b', problem: 'surrogate' }],
  ];
  for (const [value, expected] of cases) assert.deepEqual(unfitText(value), expected, JSON.stringify(value));
});

test('unfitText walks any depth without recursion', () => {
  assert.equal(unfitText(nested(200_000, 'x')), null);
  assert.equal(unfitText(nested(200_000, 'x', 'object')), null);
  assert.equal(unfitText(nested(3, '\u0000'))?.path, '0.0.0');
});

test('a key named in a message is cut to a readable length', () => {
  const found = unfitText({ [`${'k'.repeat(10_000)}\u0000`]: 1 });
  assert.equal(found?.path, `${'k'.repeat(100)}…`);
});

test('nulRefusal looks at params, then the query, then the body, and says which', () => {
  assert.equal(nulRefusal({ params: { id: 'x' }, query: { q: 'y' }, body: { name: 'z' } }), null);
  assert.equal(nulRefusal({ params: { id: '\u0000' } })?.message, 'params.id must not contain NUL characters');
  assert.equal(nulRefusal({ query: { q: '\u0000' } })?.message, 'query.q must not contain NUL characters');
  assert.equal(nulRefusal({ body: { name: 'a\u0000b' } })?.message, 'Name must not contain NUL characters');
  assert.equal(nulRefusal({ body: { name: 'a\u0000b' } })?.status, 400);
  assert.equal(nulRefusal({ body: { name: '\ud800' } })?.message, 'Name must not contain unpaired surrogates (invalid Unicode)');
  assert.equal(nulRefusal({ query: { q: '\udc00' } })?.message, 'query.q must not contain unpaired surrogates (invalid Unicode)');
});

test('jsonStructureRefusal: too deep, or prototype keys, is a 400; anything else passes', () => {
  const cases: [string, unknown, string | null][] = [
    ['a flat object', { name: 'x', tags: [1, 2] }, null],
    ['a scalar', 'x', null],
    ['null', null, null],
    [`arrays ${MAX_JSON_DEPTH} deep`, nested(MAX_JSON_DEPTH - 1, []), null],
    [`arrays ${MAX_JSON_DEPTH + 1} deep`, nested(MAX_JSON_DEPTH, []), 'Request body is nested too deeply'],
    [`objects ${MAX_JSON_DEPTH + 1} deep`, nested(MAX_JSON_DEPTH, {}, 'object'), 'Request body is nested too deeply'],
    ['arrays 100,000 deep', nested(100_000, []), 'Request body is nested too deeply'],
    ['objects 100,000 deep', nested(100_000, 1, 'object'), 'Request body is nested too deeply'],
    ['__proto__ at the top', JSON.parse('{"__proto__":{"admin":true}}'), 'Request body must not contain __proto__ or constructor.prototype keys'],
    ['__proto__ inside', JSON.parse('{"a":[{"__proto__":1}]}'), 'Request body must not contain __proto__ or constructor.prototype keys'],
    ['constructor.prototype', JSON.parse('{"constructor":{"prototype":{}}}'), 'Request body must not contain __proto__ or constructor.prototype keys'],
    ['a field named constructor', { constructor: 'x' }, null],
  ];
  for (const [name, value, message] of cases) {
    const refused = jsonStructureRefusal(value);
    assert.equal(refused?.message ?? null, message, name);
    if (refused) assert.equal(refused.status, 400, name);
  }
});
