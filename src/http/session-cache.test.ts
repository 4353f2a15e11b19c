import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { User } from '../domain/model.js';
import { MemoryBroker } from '../realtime/memory/index.js';
import { endSessions, userChanged } from '../realtime/index.js';
import { SESSIONS_CHANNEL } from '../realtime/types.js';
import { SessionCache, sessionCacheFor } from './session-cache.js';

const user = (id: string): User => ({ id, role: 'POC', active: true, customerId: null }) as User;
const FAR = '2999-01-01T00:00:00.000Z';

/** A cache on a clock the test moves, with an epoch it sets. */
function subject(options: { ttlMs?: number; maxEntries?: number } = {}) {
  const state = { now: 1_000_000, epoch: 0 as number | null };
  const cache = new SessionCache({ ttlMs: options.ttlMs ?? 2000, maxEntries: options.maxEntries ?? 100, epoch: () => state.epoch, now: () => state.now });
  const keep = (hash: string, userId = 'u1', expiresAt = FAR) => cache.set(hash, { user: user(userId), expiresAt }, state.now, cache.epoch());
  return { state, cache, keep };
}

test('an entry serves for at most the bound, and never past its session expiry', () => {
  const { state, cache, keep } = subject({ ttlMs: 2000 });
  keep('a');
  state.now += 1999;
  assert.equal(cache.get('a')?.user.id, 'u1');
  state.now += 1;
  assert.equal(cache.get('a'), undefined);

  keep('b', 'u1', new Date(state.now + 500).toISOString());
  state.now += 499;
  assert.ok(cache.get('b'));
  state.now += 1;
  assert.equal(cache.get('b'), undefined);
});

test('nothing is kept, and nothing kept is used, once signals may have been missed (epoch null or changed)', () => {
  const { state, cache, keep } = subject();
  state.epoch = null;
  keep('a');
  assert.equal(cache.get('a'), undefined);
  state.epoch = 1;
  keep('b');
  assert.ok(cache.get('b'));
  state.epoch = 2; // the subscription was made again: whatever happened in between is unknown
  assert.equal(cache.get('b'), undefined);
});

test('bounded: past maxEntries the least recently used goes first', () => {
  const { cache, keep } = subject({ maxEntries: 2 });
  keep('a');
  keep('b');
  assert.ok(cache.get('a')); // a is now the most recent
  keep('c');
  assert.equal(cache.size, 2);
  assert.equal(cache.get('b'), undefined);
  assert.ok(cache.get('a'));
  assert.ok(cache.get('c'));
});

test('session signals forget what they concern: one session, a user but one session, a changed user', () => {
  const { state, cache, keep } = subject();
  const cases: [Record<string, unknown>, string, string[]][] = [
    [{ reason: 'signed-out', tokenHash: 'a1' }, 'session-ended', ['a2', 'b1']],
    [{ reason: 'password-changed', userId: 'a', exceptTokenHash: 'a2' }, 'session-ended', ['a2', 'b1']],
    [{ reason: 'deactivated', userId: 'a' }, 'session-ended', ['b1']],
    [{ userId: 'a', role: 'ADMIN', active: true }, 'user-changed', ['b1']],
  ];
  for (const [payload, event, left] of cases) {
    state.now += 1; // after the previous case's signal
    for (const [hash, id] of [['a1', 'a'], ['a2', 'a'], ['b1', 'b']] as const) keep(hash, id);
    cache.apply({ channel: SESSIONS_CHANNEL, event, payload } as never);
    assert.deepEqual(['a1', 'a2', 'b1'].filter((h) => cache.get(h)), left, `${event} ${JSON.stringify(payload)}`);
    for (const h of ['a1', 'a2', 'b1']) cache.forgetSession(h);
  }
});

test('a read that began before a signal is not kept after it (it may have seen the state before the change)', () => {
  const { state, cache } = subject();
  const startedAt = state.now;
  const epoch = cache.epoch();
  state.now += 3; // the database read takes a moment, during which another user signs out
  cache.forgetSession('other');
  cache.set('a', { user: user('u1'), expiresAt: FAR }, startedAt, epoch);
  assert.equal(cache.get('a'), undefined);
  state.now += 1;
  cache.set('a', { user: user('u1'), expiresAt: FAR }, state.now, cache.epoch());
  assert.ok(cache.get('a'));
});

test('on a broker: signals published here are applied before the publish resolves; a driver without an epoch gets no cache', async () => {
  const broker = new MemoryBroker();
  const made = sessionCacheFor(broker, { ttlMs: 2000, maxEntries: 10 })!;
  try {
    const keep = (hash: string, id: string) => made.cache.set(hash, { user: user(id), expiresAt: FAR }, Date.now() - 1, made.cache.epoch());
    keep('t1', 'u1');
    keep('t2', 'u2');
    const ended = endSessions(broker, { tokenHash: 't1', reason: 'signed-out' });
    assert.equal(made.cache.get('t1'), undefined); // before the transport has it
    await ended;
    void userChanged(broker, { id: 'u2', role: 'ADMIN', active: true, customerId: null });
    assert.equal(made.cache.get('t2'), undefined);
  } finally {
    made.close();
    await broker.close();
  }
  const withoutEpoch = { publish: async () => {}, subscribe: () => () => {}, check: async () => {}, close: async () => {}, driver: 'x' };
  assert.equal(sessionCacheFor(withoutEpoch, { ttlMs: 2000, maxEntries: 10 }), null);
  assert.equal(sessionCacheFor(new MemoryBroker(), { ttlMs: 0, maxEntries: 10 }), null);
});
