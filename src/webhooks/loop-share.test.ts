import assert from 'node:assert/strict';
import { test } from 'node:test';
import { type LoopClock, LoopShare } from './loop-share.js';

/** A loop whose clock and active time the test moves. */
function fakeLoop() {
  const state = { now: 0, active: 0 };
  const clock: LoopClock = { now: () => state.now, mark: () => state.active, activeSince: (mark) => state.active - (mark as number) };
  return { state, clock };
}

test('LoopShare: background work waits only while the others keep the loop busy, until its share fits', () => {
  // [others' active ms, own ms, elapsed ms] in one window of 250 ms at a share of 10 %: the wait before the next step.
  const cases: [string, number, number, number, number][] = [
    ['idle loop: full speed', 0, 50, 100, 0],
    ['others light (40 % of the time): full speed', 40, 50, 100, 0],
    ['others busy, own within its share', 90, 5, 100, 0],
    ['others busy, own over its share: waits until it fits', 80, 20, 100, 100],
    ['the wait is at most a window', 100, 100, 100, 250],
  ];
  for (const [what, others, own, elapsed, want] of cases) {
    const { state, clock } = fakeLoop();
    const share = new LoopShare(0.1, 0.5, 250, clock);
    state.now = elapsed;
    state.active = others + own;
    share.spent(own);
    assert.equal(share.waitMs(), want, what);
  }
});

test('LoopShare: a new window carries over what the last one took beyond its share while busy', () => {
  const { state, clock } = fakeLoop();
  const share = new LoopShare(0.1, 0.5, 250, clock);
  state.now = 300;
  state.active = 300;
  share.spent(60); // 30 ms over a share of 30 ms
  assert.equal(share.waitMs(), 250, 'the window ends busy, over its share');
  state.now += 100;
  state.active += 100; // the others alone
  assert.equal(share.waitMs(), 200, 'the carried 30 ms fit in 300 ms: 200 ms more to wait');
  state.now += 200;
  state.active += 200;
  assert.equal(share.waitMs(), 0);
});

test('LoopShare: turn ends early when the service stops', async () => {
  const { state, clock } = fakeLoop();
  const share = new LoopShare(0.01, 0.5, 60_000, clock);
  state.now = 100;
  state.active = 100;
  share.spent(50);
  const stop = new AbortController();
  const started = Date.now();
  setTimeout(() => stop.abort(), 20);
  await share.turn(stop.signal);
  assert.ok(Date.now() - started < 1000);
});
