import assert from 'node:assert/strict';
import { test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { eventually } from '../test/helpers/eventually.js';
import { captureLogs } from '../test/helpers/logs.js';
import { type Job, JobRunner } from './jobs.js';

/** The runner's promises (jobs.ts, JobRunner): rounds apart, failures logged and retried, timers that hold nothing, a stop that waits. */

const job = (name: string, everyMs: number, run: Job['run'], atStart = true): Job => ({ name, everyMs, atStart, run });

test('each job runs at start (or after its interval), then again every interval, each on its own', async () => {
  const runs = { fast: 0, slow: 0, later: 0 };
  const runner = new JobRunner(
    [
      job('fast', 20, async () => runs.fast++),
      job('slow', 200, async () => runs.slow++),
      job('later', 60_000, async () => runs.later++, false),
    ],
    captureLogs('error').logger,
  );
  runner.start();
  try {
    assert.deepEqual(runs, { fast: 1, slow: 1, later: 0 }, 'the jobs at start ran at once; the other waits for its interval');
    await eventually('the fast job ran again and again', async () => runs.fast >= 4);
    assert.equal(runs.slow, 1, 'the slow job keeps its own pace');
    assert.equal(runs.later, 0);
  } finally {
    await runner.stop();
  }
});

test('a round never overlaps the previous one of the same job: the interval counts from its end', async () => {
  let running = 0;
  let most = 0;
  const starts: number[] = [];
  const runner = new JobRunner(
    [
      job('slow round', 10, async () => {
        starts.push(Date.now());
        most = Math.max(most, ++running);
        await sleep(60);
        running--;
      }),
    ],
    captureLogs('error').logger,
  );
  runner.start();
  try {
    await eventually('three rounds', async () => starts.length >= 3);
  } finally {
    await runner.stop();
  }
  assert.equal(most, 1, 'one round at a time');
  for (let i = 1; i < starts.length; i++) assert.ok(starts[i]! - starts[i - 1]! >= 60 + 10 - 2, `round ${i} began ${starts[i]! - starts[i - 1]!} ms after the previous one`);
});

test('a failing round is logged with its job and error, and the job runs again next time; the others go on', async () => {
  const log = captureLogs('error');
  let attempts = 0;
  let healthy = 0;
  const runner = new JobRunner(
    [
      job('flaky pruning', 20, async () => {
        attempts++;
        if (attempts <= 2) throw new Error(`database away (attempt ${attempts})`);
      }),
      // A job that throws before its first await is held the same way.
      job('broken at once', 20, () => {
        throw new Error('no promise at all');
      }),
      job('healthy', 20, async () => healthy++),
    ],
    log.logger,
  );
  runner.start();
  try {
    await eventually('the flaky job succeeded after its failures', async () => attempts >= 3 && healthy >= 3);
  } finally {
    await runner.stop();
  }
  const failed = log.lines.filter((l) => l.msg === 'flaky pruning failed');
  assert.deepEqual(
    failed.map((l) => [l.level, l.job, l.err?.message]),
    [
      [50, 'flaky pruning', 'database away (attempt 1)'],
      [50, 'flaky pruning', 'database away (attempt 2)'],
    ],
  );
  assert.ok(log.lines.some((l) => l.msg === 'broken at once failed' && l.err?.message === 'no promise at all'));
  const [flaky, broken, steady] = runner.status();
  assert.equal(flaky!.failures, 2);
  assert.ok(broken!.failures >= 1 && broken!.failures === broken!.rounds, 'every round of the broken job failed, and each was held');
  assert.equal(steady!.failures, 0);
});

test('stop() waits for the round under way (told to stop by its signal), and no round starts after it', async () => {
  let aborted = false;
  let finished = false;
  let rounds = 0;
  const runner = new JobRunner(
    [
      job('long round', 10, async (signal) => {
        rounds++;
        // Ends at the next step once told, as the reconciler does between its steps.
        for (let step = 0; step < 100 && !signal.aborted; step++) await sleep(10);
        aborted = signal.aborted;
        await sleep(50); // the step in hand is finished first
        finished = true;
      }),
    ],
    captureLogs('error').logger,
  );
  runner.start();
  await sleep(30);
  assert.equal(runner.status()[0]!.running, true);
  await runner.stop();
  assert.ok(finished, 'stop() resolved only once the round had ended');
  assert.ok(aborted, 'the round was told to stop');
  assert.equal(runner.status()[0]!.running, false);
  await sleep(60);
  assert.equal(rounds, 1, 'no round after stop()');
});

test('a round cut short by the stop is not logged as a failure', async () => {
  const log = captureLogs('error');
  const runner = new JobRunner(
    [
      job('reconciliation', 10, async (signal) => {
        while (!signal.aborted) await sleep(5);
        throw new Error('aborted');
      }),
    ],
    log.logger,
  );
  runner.start();
  await sleep(20);
  await runner.stop();
  assert.deepEqual(log.lines, []);
});

test('the timers keep no process alive', async () => {
  const timers = () => process.getActiveResourcesInfo().filter((r) => r === 'Timeout').length;
  const before = timers();
  const runner = new JobRunner([job('hourly', 3_600_000, async () => {}), job('not at start', 3_600_000, async () => {}, false)], captureLogs('error').logger);
  runner.start();
  await sleep(10); // the first round of the first job has ended and scheduled the next
  try {
    assert.equal(timers(), before, 'only unref’d timers were added');
  } finally {
    await runner.stop();
  }
});
