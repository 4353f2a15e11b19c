import assert from 'node:assert/strict';
import { test } from 'node:test';
import { mayJoinPusherChannel, pusherChannelsFor } from './index.js';

test('a notification goes to the admins, the POC and the CLIENTs of the project’s customer', () => {
  const n = { channel: 'projects', event: 'project-updated', payload: { id: 'p' }, ownerId: 'poc', customerId: 'acme' } as const;
  assert.deepEqual(pusherChannelsFor(n, false), ['private-projects', 'private-user-poc', 'private-customer-acme']);
  assert.deepEqual(pusherChannelsFor({ ...n, customerId: null }, false), ['private-projects', 'private-user-poc']);
});

test('who may join a customer’s channel: only a CLIENT of that customer', () => {
  const channel = 'private-customer-acme';
  assert.equal(mayJoinPusherChannel({ id: 'c', role: 'CLIENT', customerId: 'acme' }, channel), true);
  assert.equal(mayJoinPusherChannel({ id: 'c', role: 'CLIENT', customerId: 'beta' }, channel), false);
  assert.equal(mayJoinPusherChannel({ id: 'c', role: 'CLIENT', customerId: null }, channel), false);
  assert.equal(mayJoinPusherChannel({ id: 'p', role: 'POC', customerId: 'acme' }, channel), false);
  assert.equal(mayJoinPusherChannel({ id: 'a', role: 'ADMIN', customerId: null }, channel), false);
});
