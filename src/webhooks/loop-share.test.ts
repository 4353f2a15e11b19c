import assert from 'node:assert/strict';
import { test } from 'node:test';
import { BEHIND_GRACE_MS, BEHIND_RAMP_MS, type LoopClock, LoopShare, MOST_SHARE, shareBehind } from './loop-share.js';

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

test('shareBehind: the base share for a fresh backlog, growing with its age to half the loop', () => {
  const cases: [string, number, number][] = [
    ['caught up', 0, 0.03],
    ['within the grace', BEHIND_GRACE_MS, 0.03],
    ['half-way up the ramp', BEHIND_GRACE_MS + BEHIND_RAMP_MS / 2, 0.03 + (MOST_SHARE - 0.03) / 2],
    ['at the top', BEHIND_GRACE_MS + BEHIND_RAMP_MS, MOST_SHARE],
    ['far behind: still half', 3_600_000, MOST_SHARE],
  ];
  for (const [what, behind, want] of cases) assert.ok(Math.abs(shareBehind(0.03, behind) - want) < 1e-9, `${what}: ${shareBehind(0.03, behind)}`);
  assert.equal(shareBehind(0.8, 3_600_000), 0.8, 'a base above the top stays');
});

test('LoopShare: work far behind waits less under the same requests, and the base share returns once caught up', () => {
  const { state, clock } = fakeLoop();
  const share = new LoopShare(0.03, 250, clock);
  state.now = 50;
  state.requests = 1;
  share.spent(3); // 3 ms of work in 50 ms: over a 3 % share (wait to 100 ms), within a 50 % one
  assert.equal(share.waitMs(), 50, 'fresh work keeps to 3 %');
  share.behind(BEHIND_GRACE_MS + BEHIND_RAMP_MS);
  assert.equal(share.waitMs(), 0, 'two minutes behind: its share is half the loop');
  share.behind(0);
  assert.equal(share.waitMs(), 50, 'caught up: 3 % again');
});
