import assert from 'node:assert/strict';
import { test } from 'node:test';
import { FairQueue, perOwnerShare } from './fair-queue.js';

test('owners are served in turn, each in their own order', () => {
  const q = new FairQueue<string>(100, 100);
  for (let i = 1; i <= 5; i++) q.push('flood', `f${i}`);
  q.push('small', 's1');
  q.push('other', 'o1');
  q.push('small', 's2');
  const order: string[] = [];
  for (let x = q.shift(); x !== undefined; x = q.shift()) order.push(x.item);
  assert.deepEqual(order, ['f1', 's1', 'o1', 'f2', 's2', 'f3', 'f4', 'f5']);
  assert.equal(q.size, 0);
});

test('the owner with fewest renderings under way goes first: a newcomer before a flood already running', () => {
  const q = new FairQueue<string>(100, 100);
  for (let i = 1; i <= 3; i++) q.push('flood', `f${i}`);
  q.push('small', 's1');
  const running = new Map([['flood', 2]]);
  const first = q.shift((o) => running.get(o) ?? 0);
  assert.deepEqual(first, { owner: 'small', item: 's1' });
  assert.deepEqual(q.shift((o) => running.get(o) ?? 0), { owner: 'flood', item: 'f1' });
});

test('bounded in all and per owner: a flood fills its share, others still get in', () => {
  const q = new FairQueue<number>(8, 2);
  assert.deepEqual([1, 2, 3].map((i) => q.push('a', i)), ['queued', 'queued', 'owner-full']);
  for (const o of ['b', 'c', 'd']) for (const i of [1, 2]) assert.equal(q.push(o, i), 'queued');
  assert.equal(q.push('e', 1), 'full');
  assert.equal(q.size, 8);
  assert.equal(q.drain().length, 8);
  assert.equal(q.size, 0);
});

test('perOwnerShare: a quarter of the places, at least one when any', () => {
  const cases: [number, number][] = [
    [0, 0],
    [1, 1],
    [3, 1],
    [8, 2],
    [100, 25],
    [101, 26],
  ];
  for (const [max, want] of cases) assert.equal(perOwnerShare(max), want, String(max));
});
