import assert from 'node:assert/strict';
import { test } from 'node:test';
import { detailsFor } from './shop-notes.js';

test('a CLIENT reads no note of approve, reject, verify-pi or reject-pi; every other note, and everyone else, unchanged', () => {
  const client = { role: 'CLIENT' as const };
  const details = { from: {}, to: {}, note: 'Rates match quotation Q-2211' };
  for (const action of ['PROJECT_APPROVED', 'PROJECT_REJECTED', 'PI_VERIFIED', 'PI_REJECTED']) {
    assert.deepEqual(detailsFor(client, action, details), { from: {}, to: {} }, action);
    assert.deepEqual(detailsFor({ role: 'POC' }, action, details), details, action);
    assert.deepEqual(detailsFor({ role: 'ADMIN' }, action, details), details, action);
  }
  for (const action of ['PROJECT_DISPATCHED', 'PROJECT_DELIVERED', 'PROJECT_CANCELLED', 'PROJECT_HELD', 'PROJECT_RELEASED', 'PI_SUBMITTED', 'PRINTING_STARTED', 'APPROVAL_REQUESTED']) {
    assert.deepEqual(detailsFor(client, action, details), details, action);
  }
});
