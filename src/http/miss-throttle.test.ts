import assert from 'node:assert/strict';
import { test } from 'node:test';
import { FILE_MISSES, MissThrottle } from './miss-throttle.js';

test('misses: a burst, then one per refill; hits never counted; each address its own budget', () => {
  let now = 1_000_000;
  const t = new MissThrottle({ burst: 3, refillMs: 10_000, maxAddresses: 100 }, () => now);
  for (let i = 0; i < 3; i++) {
    assert.equal(t.retryAfter('a'), 0);
    t.miss('a');
  }
  assert.equal(t.retryAfter('a'), 10);
  assert.equal(t.retryAfter('b'), 0, 'another address is not touched');
  now += 4_000;
  assert.equal(t.retryAfter('a'), 6);
  now += 6_000;
  assert.equal(t.retryAfter('a'), 0);
  t.miss('a');
  assert.equal(t.retryAfter('a'), 10);
  now += 30_000;
  assert.equal(t.retryAfter('a'), 0);
  assert.equal(t.size, 0, 'a full budget is forgotten');
});

test('memory is bounded: past maxAddresses the oldest go', () => {
  const t = new MissThrottle({ burst: 2, refillMs: 1_000_000, maxAddresses: 50 }, () => 0);
  for (let i = 0; i < 500; i++) t.miss(`10.0.${i >> 8}.${i & 255}`);
  assert.equal(t.size, 50);
});

test('FILE_MISSES: 30 misses at once, then one per 10 s: a 1,100-name scan takes hours', () => {
  const { burst, refillMs } = FILE_MISSES;
  assert.ok(((1_100 - burst) * refillMs) / 3_600_000 >= 2.5);
  assert.equal(burst, 30);
});
