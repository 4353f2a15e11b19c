import assert from 'node:assert/strict';
import { test } from 'node:test';
import { type LoopClock, LoopShare } from './loop-share.js';

/** A clock and a request count the test moves. */
function fakeLoop() {
  const state = { now: 0, requests: 0 };
  const clock: LoopClock = { now: () => state.now, requests: () => state.requests };
  return { state, clock };
}

test('LoopShare: background work waits only while requests come in, until its share fits', () => {
  // [requests begun in the window, own ms, elapsed ms] in one window of 250 ms at a share of 10 %: the wait before the next step.
  const cases: [string, number, number, number, number][] = [
    ['no request: full speed', 0, 50, 100, 0],
    ['requests, own within its share', 3, 5, 100, 0],
    ['requests, own over its share: waits until it fits', 1, 20, 100, 100],
    ['the wait is at most a window', 5, 100, 100, 250],
  ];
  for (const [what, requests, own, elapsed, want] of cases) {
    const { state, clock } = fakeLoop();
    const share = new LoopShare(0.1, 250, clock);
    state.now = elapsed;
    state.requests = requests;
    share.spent(own);
    assert.equal(share.waitMs(), want, what);
  }
});

test('LoopShare: a window after one with requests is busy too, and carries over what the last took beyond its share', () => {
  const { state, clock } = fakeLoop();
  const share = new LoopShare(0.1, 250, clock);
  state.now = 300;
  state.requests = 1;
  share.spent(60); // 30 ms over a share of 30 ms
  assert.equal(share.waitMs(), 250, 'the window ends busy, over its share');
  state.now += 100; // no request since
  assert.equal(share.waitMs(), 200, 'the carried 30 ms fit in 300 ms: 200 ms more to wait');
  state.now += 200;
  state.requests = 2;
  assert.equal(share.waitMs(), 0, 'its share fits');
  state.now += 300;
  share.spent(500);
  assert.equal(share.waitMs(), 250, 'the window before had requests');
  state.now += 10;
  assert.equal(share.waitMs(), 0, 'two windows without requests: full speed, nothing carried over');
});

test('LoopShare: turn ends early when the service stops', async () => {
  const { state, clock } = fakeLoop();
  const share = new LoopShare(0.01, 60_000, clock);
  state.now = 100;
  state.requests = 1;
  share.spent(50);
  const stop = new AbortController();
  const started = Date.now();
  setTimeout(() => stop.abort(), 20);
  await share.turn(stop.signal);
  assert.ok(Date.now() - started < 1000);
});
