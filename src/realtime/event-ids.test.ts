import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { describe, test } from 'node:test';
import { EventIds } from './event-ids.js';

describe('EventIds: positions sealed per viewer', () => {
  const secret = randomBytes(32);
  const ids = new EventIds(secret);

  test('an id opens to its number for its viewer, the same with the same secret (every instance, every restart)', () => {
    for (const n of [0, 1, 2, 3, 14, 1_000_001, Number.MAX_SAFE_INTEGER]) {
      const id = ids.encode('alice', n);
      assert.match(id, /^[A-Za-z0-9_-]{22}$/);
      assert.equal(ids.decode('alice', id), n);
      assert.equal(new EventIds(Buffer.from(secret)).encode('alice', n), id, 'another instance');
    }
  });

  test('ids say nothing of positions: neighbours look unrelated, viewers differ', () => {
    const mine = [1, 2, 3, 4].map((n) => ids.encode('alice', n));
    assert.equal(new Set(mine).size, 4);
    for (const id of mine) assert.ok(!/^\d+$/.test(id), id);
    assert.notEqual(ids.encode('bob', 3), ids.encode('alice', 3));
  });

  test('anything not issued to this viewer opens to nothing', () => {
    const id = ids.encode('alice', 42);
    const flipped = (i: number) => {
      const bytes = Buffer.from(id, 'base64url');
      bytes[i]! ^= 1;
      return bytes.toString('base64url');
    };
    const cases: [string, string, string | undefined][] = [
      ['another viewer’s id', 'bob', id],
      ['another deployment’s id', 'alice', new EventIds(randomBytes(32)).encode('alice', 42)],
      ['one bit changed', 'alice', flipped(0)],
      ['another bit changed', 'alice', flipped(15)],
      ['a number', 'alice', '42'],
      ['a past-the-end number of the old ids', 'alice', '999999999'],
      ['the other spelling of the last character', 'alice', id.slice(0, 21) + String.fromCharCode(id.charCodeAt(21) + 1)],
      ['too short', 'alice', id.slice(0, 21)],
      ['too long', 'alice', `${id}A`],
      ['padding', 'alice', `${id}==`],
      ['empty', 'alice', ''],
      ['absent', 'alice', undefined],
    ];
    for (const [name, viewer, raw] of cases) assert.equal(ids.decode(viewer, raw), undefined, name);
  });

  test('a short secret is refused', () => {
    assert.throws(() => new EventIds(randomBytes(16)), /at least 32 bytes/);
  });
});
