import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { PROJECTS, SEE_INTERNAL, SEE_OTHER_ENTRIES, VIEWERS, VISIBILITY_CASES, viewerNames } from '../../test/helpers/visibility-cases.js';
import type { User } from './model.js';
import { type ProjectScope, type Viewer, maySeeEntry, maySeeProject, seesEverything, seesInternal, viewerOf } from './visibility.js';

// The viewers' ids are their names, customers' ids theirs; a project is its owner's id and its customer (null: gone).
const viewer = (name: keyof typeof VIEWERS): Viewer => ({ id: name, role: VIEWERS[name].role, customerId: VIEWERS[name].customer });
const project = (name: keyof typeof PROJECTS): ProjectScope | null => {
  const p = PROJECTS[name];
  return p === null ? null : { pocId: p.owner, customerId: p.customer };
};

describe('maySeeProject: who may see a project', () => {
  for (const c of VISIBILITY_CASES) {
    test(`${c.viewer} (${VIEWERS[c.viewer].role}), ${c.project}: ${c.sees ? 'sees it' : 'does not'}`, () => {
      assert.equal(maySeeProject(viewer(c.viewer), project(c.project)), c.sees);
    });
  }
});

describe('maySeeEntry: an activity entry', () => {
  for (const c of VISIBILITY_CASES) {
    test(`about a project: as the project (${c.viewer}, ${c.project})`, () => {
      assert.equal(maySeeEntry(viewer(c.viewer), { entityType: 'project' }, project(c.project)), c.sees);
    });
  }
  for (const c of VISIBILITY_CASES) {
    const sees = c.sees && SEE_INTERNAL.includes(c.viewer);
    test(`an internal note's: as the project, never a CLIENT (${c.viewer}, ${c.project}): ${sees ? 'sees it' : 'does not'}`, () => {
      assert.equal(maySeeEntry(viewer(c.viewer), { entityType: 'project', internal: true }, project(c.project)), sees);
      assert.equal(maySeeEntry(viewer(c.viewer), { entityType: 'project', internal: false }, project(c.project)), c.sees);
    });
  }
  for (const name of viewerNames) {
    test(`about anything else: ${name} ${SEE_OTHER_ENTRIES.includes(name) ? 'sees it' : 'does not'}`, () => {
      assert.equal(maySeeEntry(viewer(name), { entityType: 'user' }, null), SEE_OTHER_ENTRIES.includes(name));
    });
  }
});

describe('seesInternal', () => {
  for (const name of viewerNames) {
    test(`${name}: ${SEE_INTERNAL.includes(name)}`, () => assert.equal(seesInternal(viewer(name)), SEE_INTERNAL.includes(name)));
  }
});

describe('seesEverything', () => {
  for (const name of viewerNames) {
    test(`${name}: ${SEE_OTHER_ENTRIES.includes(name)}`, () => assert.equal(seesEverything(viewer(name)), SEE_OTHER_ENTRIES.includes(name)));
  }
});

test('viewerOf keeps only what the rule reads of a user', () => {
  const user: User = {
    id: 'u',
    name: 'Someone',
    email: 'someone@example.com',
    phone: null,
    role: 'POC',
    location: null,
    branch: null,
    active: true,
    customerId: 'acme',
    createdAt: '2026-01-01T00:00:00.000Z',
    updatedAt: '2026-01-01T00:00:00.000Z',
  };
  assert.deepEqual(viewerOf(user), { id: 'u', role: 'POC', customerId: 'acme' });
});

test('a customer widens only what a CLIENT sees, and only to projects of that very customer', () => {
  const project = { pocId: 'someone', customerId: 'acme' };
  assert.equal(maySeeProject({ id: 'c', role: 'CLIENT', customerId: 'acme' }, project), true);
  assert.equal(maySeeProject({ id: 'c', role: 'CLIENT', customerId: 'beta' }, project), false);
  assert.equal(maySeeProject({ id: 'c', role: 'CLIENT', customerId: null }, project), false);
  assert.equal(maySeeProject({ id: 'c', role: 'CLIENT' }, project), false);
  assert.equal(maySeeProject({ id: 'c', role: 'CLIENT', customerId: null }, { pocId: 'someone', customerId: null }), false, 'no customer matches no customer');
  assert.equal(maySeeProject({ id: 'p', role: 'POC', customerId: 'acme' }, project), false);
});
