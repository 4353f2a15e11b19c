import assert from 'node:assert/strict';
import { test } from 'node:test';
import { decideHold, holdReasonOf } from './hold.js';
import type { Actor, Project, ProjectStatus } from './model.js';

const OWNER = 'owner';
const project = (status: ProjectStatus, held: boolean): Project => ({
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
  hold: held ? { reason: 'Logo', since: '2026-01-02T00:00:00.000Z', byId: OWNER } : null,
  repeatOfId: null,
});

const admin: Actor = { id: 'admin', role: 'ADMIN' };
const owner: Actor = { id: OWNER, role: 'POC' };
const otherPoc: Actor = { id: 'other', role: 'POC' };
const client: Actor = { id: 'client', role: 'CLIENT', customerId: 'acme' };

test('who may hold or release, in the order of refusals', () => {
  const table: [Actor, ProjectStatus, boolean, 'hold' | 'release', number | null][] = [
    [otherPoc, 'REQUESTED', false, 'hold', 404],
    [client, 'DELIVERED', false, 'hold', 403],
    [client, 'REQUESTED', true, 'release', 403],
    [owner, 'DELIVERED', true, 'release', 409],
    [admin, 'CANCELLED', false, 'hold', 409],
    [owner, 'PRINTING', true, 'hold', 409],
    [admin, 'APPROVED', false, 'release', 409],
    [owner, 'REQUESTED', false, 'hold', null],
    [admin, 'DISPATCHED', true, 'release', null],
  ];
  for (const [actor, status, held, action, expected] of table) {
    assert.equal(decideHold(actor, project(status, held), action)?.status ?? null, expected, `${actor.id} ${action} ${status} ${held}`);
  }
});

test('a reason: 1–500 characters once trimmed', () => {
  assert.equal(holdReasonOf('  Logo  '), 'Logo');
  for (const bad of [undefined, null, '', '   ', 42, 'x'.repeat(501)]) assert.equal((holdReasonOf(bad) as { status?: number }).status, 400, String(bad));
  assert.equal(holdReasonOf('x'.repeat(500)), 'x'.repeat(500));
});
