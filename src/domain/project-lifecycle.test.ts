import assert from 'node:assert/strict';
import { test } from 'node:test';
import { AppError } from '../errors.js';
import {
  type Actor,
  type ApprovalStatus,
  type PiStatus,
  type Project,
  type ProjectStatus,
  APPROVAL_STATUSES,
  PI_STATUSES,
  PROJECT_STATUSES,
} from './model.js';
import { PROJECT_ACTIONS, type ProjectAction, availableActions, decideDetailsEdit, decideProjectAction } from './project-lifecycle.js';

/*
 * The rules, restated here from the lifecycle table (project-lifecycle.ts and README "Project lifecycle")
 * rather than read from LIFECYCLE, so a change to the table has to be made twice on purpose.
 */

const OWNER = 'owner-id';
const NOW = '2030-01-02T03:04:05.678Z';

interface RoleCase {
  label: string;
  actor: Actor;
  admin: boolean;
  owner: boolean;
}

const ROLE_CASES: RoleCase[] = [
  { label: 'ADMIN', actor: { id: 'admin-id', role: 'ADMIN' }, admin: true, owner: false },
  { label: 'ADMIN owner', actor: { id: OWNER, role: 'ADMIN' }, admin: true, owner: true },
  { label: 'POC owner', actor: { id: OWNER, role: 'POC' }, admin: false, owner: true },
  { label: 'POC non-owner', actor: { id: 'other-poc-id', role: 'POC' }, admin: false, owner: false },
  { label: 'CLIENT owner', actor: { id: OWNER, role: 'CLIENT' }, admin: false, owner: true },
];

const APPROVALS: (ApprovalStatus | null)[] = [null, ...APPROVAL_STATUSES];

const ADMIN_ONLY: ReadonlySet<ProjectAction> = new Set(['approve', 'reject', 'verify-pi', 'reject-pi', 'start-printing', 'dispatch']);
/** Only the project's POC asks for approval again, even among admins. */
const OWNER_ONLY: ReadonlySet<ProjectAction> = new Set(['resubmit']);

const ACTIVITY: Record<ProjectAction, string> = {
  approve: 'PROJECT_APPROVED',
  reject: 'PROJECT_REJECTED',
  resubmit: 'APPROVAL_REQUESTED',
  'submit-pi': 'PI_SUBMITTED',
  'verify-pi': 'PI_VERIFIED',
  'reject-pi': 'PI_REJECTED',
  'start-printing': 'PRINTING_STARTED',
  dispatch: 'PROJECT_DISPATCHED',
  deliver: 'PROJECT_DELIVERED',
  cancel: 'PROJECT_CANCELLED',
};

/** How the 409 message names the action. */
const VERB: Record<ProjectAction, string> = {
  approve: 'approve',
  reject: 'reject',
  resubmit: 'resubmit',
  'submit-pi': 'submit pi',
  'verify-pi': 'verify pi',
  'reject-pi': 'reject pi',
  'start-printing': 'start printing',
  dispatch: 'dispatch',
  deliver: 'deliver',
  cancel: 'cancel',
};

function project(status: ProjectStatus, piStatus: PiStatus, approval: ApprovalStatus | null): Project {
  return {
    id: 'project-id',
    name: 'Brochures',
    description: null,
    pocId: OWNER,
    status,
    piStatus,
    approval: approval ? { status: approval, note: null, decidedById: 'someone', decidedAt: '2029-12-31T00:00:00.000Z' } : null,
    customerId: null,
    createdAt: '2029-12-30T00:00:00.000Z',
    updatedAt: '2029-12-31T00:00:00.000Z',
    number: 1,
    rush: false,
    hold: null,
    repeatOfId: null,
  };
}

/** When the action may start from this project's state: null, else the state the refusal names. */
function refusedState(action: ProjectAction, p: Project, admin: boolean): string | null {
  const pi = `PI ${p.piStatus}`;
  switch (action) {
    case 'approve':
      return p.status === 'REQUESTED' ? null : p.status;
    case 'reject':
      if (p.status !== 'REQUESTED') return p.status;
      return p.approval?.status === 'REJECTED' ? 'already rejected' : null;
    case 'resubmit':
      if (p.status !== 'REQUESTED') return p.status;
      return p.approval?.status === 'REJECTED' ? null : 'awaiting a decision';
    case 'submit-pi':
      if (p.status === 'CANCELLED' || p.status === 'DELIVERED') return p.status;
      return p.piStatus === 'PENDING' || p.piStatus === 'REJECTED' ? null : pi;
    case 'verify-pi':
    case 'reject-pi':
      if (p.status === 'CANCELLED') return p.status;
      return p.piStatus === 'SUBMITTED' ? null : pi;
    case 'start-printing':
      if (p.status !== 'APPROVED') return p.status;
      return p.piStatus === 'VERIFIED' ? null : `APPROVED with ${pi}`;
    case 'dispatch':
      return p.status === 'PRINTING' ? null : p.status;
    case 'deliver':
      return p.status === 'DISPATCHED' ? null : p.status;
    case 'cancel': {
      // Once printing has started, only an admin may call it off.
      const from: ProjectStatus[] = admin ? ['REQUESTED', 'APPROVED', 'PRINTING'] : ['REQUESTED', 'APPROVED'];
      return from.includes(p.status) ? null : p.status;
    }
  }
}

function expectedChange(action: ProjectAction, actor: Actor, note: string | null) {
  const decided = (status: ApprovalStatus) => ({ status, note, decidedById: actor.id, decidedAt: NOW });
  switch (action) {
    case 'approve':
      return { status: 'APPROVED', approval: decided('APPROVED') };
    case 'reject':
      return { approval: decided('REJECTED') };
    case 'resubmit':
      return { approval: { status: 'PENDING', note: null, decidedById: null, decidedAt: null } };
    case 'submit-pi':
      return { piStatus: 'SUBMITTED' };
    case 'verify-pi':
      return { piStatus: 'VERIFIED' };
    case 'reject-pi':
      return { piStatus: 'REJECTED' };
    case 'start-printing':
      return { status: 'PRINTING' };
    case 'dispatch':
      return { status: 'DISPATCHED' };
    case 'deliver':
      return { status: 'DELIVERED' };
    case 'cancel':
      return { status: 'CANCELLED' };
  }
}

type Outcome = { error: { status: number; message: string } } | { change: unknown; activity: string };

function expected(role: RoleCase, action: ProjectAction, p: Project, note: string | null): Outcome {
  if (!role.admin && !role.owner) return { error: { status: 404, message: 'Project not found' } };
  if (!role.admin && ADMIN_ONLY.has(action)) return { error: { status: 403, message: 'Forbidden' } };
  if (!role.owner && OWNER_ONLY.has(action)) return { error: { status: 403, message: 'Forbidden' } };
  const state = refusedState(action, p, role.admin);
  if (state !== null) return { error: { status: 409, message: `Cannot ${VERB[action]} a project that is ${state}` } };
  return { change: expectedChange(action, role.actor, note), activity: ACTIVITY[action] };
}

function actual(role: RoleCase, action: ProjectAction, p: Project, note: string | null): Outcome {
  const result = decideProjectAction(role.actor, p, action, NOW, note);
  if (result instanceof AppError) return { error: { status: result.status, message: result.message } };
  return { change: result.change, activity: result.activity };
}

test('the table covers every action of the service', () => {
  assert.deepEqual([...PROJECT_ACTIONS].sort(), Object.keys(ACTIVITY).sort());
});

for (const role of ROLE_CASES) {
  test(`decideProjectAction for ${role.label}: every action × status × piStatus × approval`, () => {
    let cases = 0;
    const outcomes = { allowed: 0, 403: 0, 404: 0, 409: 0 };
    for (const action of PROJECT_ACTIONS) {
      for (const status of PROJECT_STATUSES) {
        for (const piStatus of PI_STATUSES) {
          for (const approval of APPROVALS) {
            const p = project(status, piStatus, approval);
            const before = structuredClone(p);
            const note = cases % 2 ? 'looks good' : null;
            const want = expected(role, action, p, note);
            assert.deepEqual(actual(role, action, p, note), want, `${role.label} ${action} on ${status}/PI ${piStatus}/approval ${approval}`);
            assert.deepEqual(p, before, 'the decision does not modify the project');
            cases++;
            if ('error' in want) outcomes[want.error.status as 403 | 404 | 409]++;
            else outcomes.allowed++;
          }
        }
      }
    }
    assert.equal(cases, PROJECT_ACTIONS.length * PROJECT_STATUSES.length * PI_STATUSES.length * APPROVALS.length);
    // Sanity of the table itself: each role meets the outcomes it should.
    if (!role.admin && !role.owner) assert.deepEqual(outcomes, { allowed: 0, 403: 0, 404: cases, 409: 0 });
    else if (role.admin && role.owner) assert.ok(outcomes.allowed > 0 && outcomes[409] > 0 && outcomes[403] === 0 && outcomes[404] === 0);
    else if (role.admin) assert.ok(outcomes.allowed > 0 && outcomes[409] > 0 && outcomes[403] > 0 && outcomes[404] === 0);
    else assert.ok(outcomes.allowed > 0 && outcomes[409] > 0 && outcomes[403] > 0 && outcomes[404] === 0);
  });
}

test('the note is kept with an approval or a rejection', () => {
  const admin: Actor = { id: 'admin-id', role: 'ADMIN' };
  const approved = decideProjectAction(admin, project('REQUESTED', 'PENDING', null), 'approve', NOW, 'ok by me');
  assert.ok(!(approved instanceof AppError));
  assert.deepEqual(approved.change.approval, { status: 'APPROVED', note: 'ok by me', decidedById: 'admin-id', decidedAt: NOW });
  const rejected = decideProjectAction(admin, project('REQUESTED', 'PENDING', 'PENDING'), 'reject', NOW);
  assert.ok(!(rejected instanceof AppError));
  assert.deepEqual(rejected.change, { approval: { status: 'REJECTED', note: null, decidedById: 'admin-id', decidedAt: NOW } });
});

test('a rejected request can be reconsidered: approve still works, a second reject does not', () => {
  const admin: Actor = { id: 'admin-id', role: 'ADMIN' };
  const p = project('REQUESTED', 'PENDING', 'REJECTED');
  assert.ok(!(decideProjectAction(admin, p, 'approve', NOW) instanceof AppError));
  const again = decideProjectAction(admin, p, 'reject', NOW);
  assert.ok(again instanceof AppError);
  assert.equal(again.status, 409);
});

test('availableActions offers exactly what the caller may do now', () => {
  const admin: Actor = { id: 'admin-id', role: 'ADMIN' };
  const poc: Actor = { id: OWNER, role: 'POC' };
  const client: Actor = { id: OWNER, role: 'CLIENT' };
  const stranger: Actor = { id: 'stranger', role: 'POC' };

  const fresh = project('REQUESTED', 'PENDING', null);
  assert.deepEqual(availableActions(admin, fresh), ['approve', 'reject', 'submit-pi', 'cancel']);
  assert.deepEqual(availableActions(poc, fresh), ['submit-pi', 'cancel']);
  assert.deepEqual(availableActions(client, fresh), ['submit-pi', 'cancel']);
  assert.deepEqual(availableActions(stranger, fresh), []);

  const rejected = project('REQUESTED', 'SUBMITTED', 'REJECTED');
  assert.deepEqual(availableActions(admin, rejected), ['approve', 'verify-pi', 'reject-pi', 'cancel']);
  assert.deepEqual(availableActions(poc, rejected), ['resubmit', 'cancel']);
  assert.deepEqual(availableActions(poc, project('REQUESTED', 'PENDING', 'REJECTED')), ['resubmit', 'submit-pi', 'cancel']);
  assert.deepEqual(availableActions(poc, project('REQUESTED', 'PENDING', 'PENDING')), ['submit-pi', 'cancel']);

  const ready = project('APPROVED', 'VERIFIED', 'APPROVED');
  assert.deepEqual(availableActions(admin, ready), ['start-printing', 'cancel']);
  assert.deepEqual(availableActions(poc, ready), ['cancel']);

  const approvedPiRejected = project('APPROVED', 'REJECTED', 'APPROVED');
  assert.deepEqual(availableActions(admin, approvedPiRejected), ['submit-pi', 'cancel']);
  assert.deepEqual(availableActions(poc, approvedPiRejected), ['submit-pi', 'cancel']);

  const printing = project('PRINTING', 'VERIFIED', 'APPROVED');
  assert.deepEqual(availableActions(admin, printing), ['dispatch', 'cancel']);
  assert.deepEqual(availableActions(poc, printing), []);

  const dispatched = project('DISPATCHED', 'VERIFIED', 'APPROVED');
  assert.deepEqual(availableActions(admin, dispatched), ['deliver']);
  assert.deepEqual(availableActions(client, dispatched), ['deliver']);

  assert.deepEqual(availableActions(admin, project('DELIVERED', 'VERIFIED', 'APPROVED')), []);
  assert.deepEqual(availableActions(admin, project('CANCELLED', 'PENDING', null)), []);
  assert.deepEqual(availableActions(poc, project('CANCELLED', 'SUBMITTED', null)), []);
});

test('asking for approval again puts a rejected request back in the queue, with the decision cleared', () => {
  const poc: Actor = { id: OWNER, role: 'POC' };
  const admin: Actor = { id: 'admin-id', role: 'ADMIN' };
  const rejected = project('REQUESTED', 'PENDING', 'REJECTED');
  const again = decideProjectAction(poc, rejected, 'resubmit', NOW, 'name corrected');
  assert.ok(!(again instanceof AppError));
  assert.deepEqual(again, { change: { approval: { status: 'PENDING', note: null, decidedById: null, decidedAt: null } }, activity: 'APPROVAL_REQUESTED' });
  // The request is then open to a decision again: reject works once more.
  const reopened = { ...rejected, approval: again.change.approval! };
  assert.ok(!(decideProjectAction(admin, reopened, 'reject', NOW) instanceof AppError));
  const twice = decideProjectAction(poc, reopened, 'resubmit', NOW);
  assert.ok(twice instanceof AppError);
  assert.equal(twice.message, 'Cannot resubmit a project that is awaiting a decision');
});

test('decideDetailsEdit: admins always; the owner until printing starts (requested, rejected or approved)', () => {
  const admin: Actor = { id: 'admin-id', role: 'ADMIN' };
  for (const role of ROLE_CASES) {
    for (const status of PROJECT_STATUSES) {
      for (const approval of APPROVALS) {
        const p = project(status, 'PENDING', approval);
        const result = decideDetailsEdit(role.actor, p);
        const got = result && { status: result.status, message: result.message };
        const want = role.admin
          ? null
          : !role.owner
            ? { status: 404, message: 'Project not found' }
            : status === 'REQUESTED' || status === 'APPROVED'
              ? null
              : { status: 409, message: `Cannot edit a project that is ${status}` };
        assert.deepEqual(got, want, `${role.label} on ${status}/approval ${approval}`);
      }
    }
  }
  assert.equal(decideDetailsEdit(admin, project('DELIVERED', 'VERIFIED', 'APPROVED')), null);
});
