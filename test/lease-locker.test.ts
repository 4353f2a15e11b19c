/**
 * The tus lock across instances (src/uploads/lease-locker.ts) on the real database: two lockers on
 * one store stand for two instances. One holder at a time; a waiter asks the holder to let go
 * (through the row across instances, directly within one) and gets the upload once it is released;
 * every wait is bounded (tus's lock timeout); a lease whose instance stopped renewing runs out and
 * is taken over, and the old holder is told it lost it.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { ERRORS } from '@tus/server';
import { newId } from '../src/ids.js';
import { LeaseLocker } from '../src/uploads/lease-locker.js';
import { eventually } from './helpers/eventually.js';
import { type TestService, startTestService } from './helpers/service.js';

let svc: TestService;
const errors: unknown[] = [];
const log = { error: (obj: object) => errors.push(obj) };

before(async () => {
  svc = await startTestService();
});
after(() => svc.close());

const never = new AbortController().signal;

test('one holder at a time; a waiter on another instance asks the holder to let go and then holds it', async () => {
  const [a, b] = [new LeaseLocker(svc.deps.store, log, { renewMs: 50 }), new LeaseLocker(svc.deps.store, log, { renewMs: 50 })];
  const id = newId();
  const held = a.newLock(id);
  let asked = false;
  await held.lock(never, () => void (asked = true));
  const waiting = b.newLock(id);
  let acquired = false;
  const acquiring = waiting.lock(never, () => {}).then(() => (acquired = true));
  await eventually('the holder is asked to let go', () => asked, 5000); // through the row: the holder reads the ask at its next renewal
  assert.equal(acquired, false, 'not while A holds it');
  await held.unlock();
  await acquiring;
  await waiting.unlock();
  assert.deepEqual(await svc.deps.database.db.selectFrom('upload_locks').selectAll().where('id', '=', id).execute(), []);
});

test('within one instance the ask reaches the holder at once', async () => {
  const locker = new LeaseLocker(svc.deps.store, log, { renewMs: 60_000 });
  const id = newId();
  const held = locker.newLock(id);
  await held.lock(never, () => void held.unlock());
  const next = locker.newLock(id);
  await next.lock(never, () => {});
  await next.unlock();
});

test('every wait is bounded: a holder that never lets go makes the waiter fail with the lock timeout, and a stopped request stops waiting', async () => {
  const [a, b] = [new LeaseLocker(svc.deps.store, log), new LeaseLocker(svc.deps.store, log, { acquireTimeoutMs: 300 })];
  const id = newId();
  const held = a.newLock(id);
  await held.lock(never, () => {});
  await assert.rejects(b.newLock(id).lock(never, () => {}), (err) => err === ERRORS.ERR_LOCK_TIMEOUT);
  const stop = new AbortController();
  const stopped = new LeaseLocker(svc.deps.store, log).newLock(id).lock(stop.signal, () => {});
  stop.abort();
  await assert.rejects(stopped, (err) => err === ERRORS.ERR_LOCK_TIMEOUT);
  await held.unlock();
});

test('a lease no longer renewed (its instance stopped) runs out and is taken over; the old holder is told to let go', async () => {
  // The old holder's instance loses the database: its renewals fail, and its lease runs out.
  const locks = svc.deps.store.uploadLocks;
  let cutOff = false;
  const oldInstanceStore = {
    uploadLocks: { ...locks, renew: (...args: Parameters<typeof locks.renew>) => (cutOff ? Promise.reject(new Error('database away')) : locks.renew(...args)) },
  };
  const oldErrors: { err?: Error }[] = [];
  const oldInstance = new LeaseLocker(oldInstanceStore, { error: (obj: object) => oldErrors.push(obj) }, { ttlMs: 200, renewMs: 20 });
  const id = newId();
  const old = oldInstance.newLock(id);
  let oldTold = 0;
  await old.lock(never, () => void oldTold++);
  cutOff = true;
  const taker = new LeaseLocker(svc.deps.store, log, { ttlMs: 200, renewMs: 20 });
  const taken = taker.newLock(id);
  await taken.lock(never, () => {});
  assert.equal(oldTold, 0, 'not told while its database was away');
  // Back: its next renewal finds the lease another's, and its request is asked to stop.
  cutOff = false;
  await eventually('the old holder is told to let go', () => oldTold > 0, 5000);
  assert.ok(oldErrors.length > 0 && oldErrors.every((e) => e.err?.message === 'database away'), JSON.stringify(oldErrors));

  // The same when the lease is found taken at a renewal that never failed.
  const lost = new LeaseLocker(svc.deps.store, log, { ttlMs: 200, renewMs: 20 });
  const loserId = newId();
  const loser = lost.newLock(loserId);
  let loserTold = false;
  await loser.lock(never, () => void (loserTold = true));
  await svc.deps.database.db.updateTable('upload_locks').set({ holder: 'someone else' }).where('id', '=', loserId).execute();
  await eventually('the holder whose lease was taken is told to let go', () => loserTold, 5000);
  await loser.unlock();

  await old.unlock(); // releases nothing of the new holder's
  assert.equal(await locks.acquire(id, 'a third request', Date.now(), 200), false, 'the new holder still holds it');
  await taken.unlock();
  assert.deepEqual(errors, []);
});
