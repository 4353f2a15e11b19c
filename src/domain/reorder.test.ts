import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Actor, Project, ProjectStatus } from './model.js';
import { decideReorder, mayReorder } from './reorder.js';

const OWNER = 'owner';
const project = (status: ProjectStatus): Project => ({
  id: 'p',
  name: 'Cards',
  description: null,
  pocId: OWNER,
  status,
  piStatus: 'PENDING',
  approval: null,
  customerId: 'acme',
  createdAt: '2026-01-01T00:00:00.000Z',
  updatedAt: '2026-01-01T00:00:00.000Z',
  number: 1,
  rush: false,
  hold: null,
  repeatOfId: null,
});

const admin: Actor = { id: 'admin', role: 'ADMIN' };
const owner: Actor = { id: OWNER, role: 'POC' };
const otherPoc: Actor = { id: 'other', role: 'POC' };
const client: Actor = { id: 'client', role: 'CLIENT', customerId: 'acme' };
const otherClient: Actor = { id: 'client2', role: 'CLIENT', customerId: 'globex' };

test('who may reorder, in the order of refusals', () => {
  const table: [Actor, ProjectStatus, number | null][] = [
    [otherPoc, 'DELIVERED', 404],
    [otherClient, 'CANCELLED', 404],
    [admin, 'CANCELLED', 409],
    [owner, 'CANCELLED', 409],
    [client, 'CANCELLED', 409],
    [admin, 'REQUESTED', null],
    [owner, 'DELIVERED', null],
    [client, 'PRINTING', null],
  ];
  for (const [actor, status, expected] of table) {
    const refusal = decideReorder(actor, project(status));
    assert.equal(refusal?.status ?? null, expected, `${actor.id} on ${status}`);
    assert.equal(mayReorder(actor, project(status)), expected === null);
  }
});
