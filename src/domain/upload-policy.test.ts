import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { AppError } from '../errors.js';
import type { Actor, Approval, ApprovalStatus, DocumentType, PiStatus, ProjectStatus, Role } from './model.js';
import { type UploadProject, decideUpload } from './upload-policy.js';

/**
 * Specification 4.1 checks 2 to 7, all made by decideUpload. Every expectation below is written from the specification's
 * wording (parts 3, 4.1 and 7), not from the implementation's helpers.
 */

type Refusal = [status: number, message: string] | null;

const NOT_FOUND: Refusal = [404, 'Project not found'];
const NOT_OWNER: Refusal = [403, 'You can only upload files to your own projects'];
const NOT_READY: Refusal = [403, 'POCs can upload documents only after admin approves the project and verifies the PI'];
const PO_EARLY: Refusal = [400, 'PO can only be uploaded after project approval'];
const CHALLAN_EARLY: Refusal = [400, 'Challan can only be uploaded after dispatch'];
const INVOICE_EARLY: Refusal = [400, 'Invoice can only be uploaded after dispatch'];
const FIELDS_REQUIRED: Refusal = [400, 'file, projectId and fileType are required'];
const INVALID_TYPE: Refusal = [400, 'Invalid fileType'];

const ROLE_VALUES: Role[] = ['ADMIN', 'POC', 'CLIENT'];
const STATUS_VALUES: ProjectStatus[] = ['REQUESTED', 'CANCELLED', 'APPROVED', 'PRINTING', 'DISPATCHED', 'DELIVERED'];
const PI_VALUES: PiStatus[] = ['PENDING', 'SUBMITTED', 'VERIFIED', 'REJECTED'];
const APPROVAL_VALUES: (ApprovalStatus | null)[] = [null, 'PENDING', 'APPROVED', 'REJECTED'];
const TYPE_VALUES: DocumentType[] = ['PO', 'CHALLAN', 'INVOICE'];

const CALLER_ID = 'caller-1';
const OTHER_ID = 'someone-else-2';
const PROJECT_ID = 'project-1';

interface Case {
  role: Role;
  owner: boolean;
  status: ProjectStatus;
  piStatus: PiStatus;
  approval: ApprovalStatus | null;
  fileType: DocumentType;
}

/** The specification's checks 5 to 7, in its words. (Check 4 is the missing project, tested apart.) */
function expected(c: Case): Refusal {
  const callerIsAdmin = c.role === 'ADMIN';
  // Part 3: admin-approved = an approval record with status APPROVED, or a status that is neither REQUESTED nor CANCELLED.
  const adminApproved = c.approval === 'APPROVED' || !['REQUESTED', 'CANCELLED'].includes(c.status);
  // 5. Not ADMIN and not the owner.
  if (!callerIsAdmin && !c.owner) return NOT_OWNER;
  // 6. Not ADMIN and not (owner AND admin-approved AND piStatus VERIFIED).
  if (!callerIsAdmin && !(c.owner && adminApproved && c.piStatus === 'VERIFIED')) return NOT_READY;
  // 7. Status rules, for admins as well.
  if (c.fileType === 'PO' && !['APPROVED', 'PRINTING', 'DISPATCHED', 'DELIVERED'].includes(c.status)) return PO_EARLY;
  if (c.fileType === 'CHALLAN' && !['DISPATCHED', 'DELIVERED'].includes(c.status)) return CHALLAN_EARLY;
  if (c.fileType === 'INVOICE' && !['DISPATCHED', 'DELIVERED'].includes(c.status)) return INVOICE_EARLY;
  return null;
}

const approvalRecord = (status: ApprovalStatus | null): Approval | null =>
  status === null ? null : { status, note: null, decidedById: OTHER_ID, decidedAt: '2024-01-01T00:00:00.000Z' };

async function actual(c: Case): Promise<Refusal> {
  const actor: Actor = { id: CALLER_ID, role: c.role };
  const project = { pocId: c.owner ? CALLER_ID : OTHER_ID, status: c.status, piStatus: c.piStatus, approval: approvalRecord(c.approval) };
  return refusalOf(actor, project, c.fileType);
}

/** Checks 4 to 7: a well-formed request for `fileType` on the project the store holds (undefined: none). */
async function refusalOf(actor: Actor, project: UploadProject | undefined, fileType: DocumentType): Promise<Refusal> {
  const decision = await decideUpload(actor, { hasFile: true, projectId: PROJECT_ID, fileType }, async (id) => (id === PROJECT_ID ? project : undefined));
  if (!(decision instanceof Error)) {
    assert.equal(decision.project, project, 'an allowed upload goes to the project found');
    assert.equal(decision.type, fileType);
    return null;
  }
  return asRefusal(decision);
}

function asRefusal(err: AppError | null): Refusal {
  if (err === null) return null;
  assert.ok(err instanceof Error, 'a refusal is an error');
  return [err.status, err.message];
}

const label = (c: Case) => `${c.role} ${c.owner ? 'owner' : 'not owner'}, ${c.status}/${c.piStatus}/approval ${c.approval ?? 'none'}, ${c.fileType}`;

describe('decideUpload: checks 4 to 7', () => {
  test('hand-written rows', async () => {
    const rows: [Case, Refusal][] = [
      // Admins skip the ownership and approval checks but not the status rules.
      [{ role: 'ADMIN', owner: false, status: 'REQUESTED', piStatus: 'PENDING', approval: null, fileType: 'PO' }, PO_EARLY],
      [{ role: 'ADMIN', owner: false, status: 'APPROVED', piStatus: 'PENDING', approval: null, fileType: 'PO' }, null],
      [{ role: 'ADMIN', owner: false, status: 'APPROVED', piStatus: 'PENDING', approval: 'APPROVED', fileType: 'CHALLAN' }, CHALLAN_EARLY],
      [{ role: 'ADMIN', owner: false, status: 'PRINTING', piStatus: 'REJECTED', approval: null, fileType: 'INVOICE' }, INVOICE_EARLY],
      [{ role: 'ADMIN', owner: true, status: 'DISPATCHED', piStatus: 'PENDING', approval: null, fileType: 'INVOICE' }, null],
      [{ role: 'ADMIN', owner: false, status: 'CANCELLED', piStatus: 'VERIFIED', approval: 'APPROVED', fileType: 'PO' }, PO_EARLY],
      // Someone else's project: refused whatever its state.
      [{ role: 'POC', owner: false, status: 'DELIVERED', piStatus: 'VERIFIED', approval: 'APPROVED', fileType: 'PO' }, NOT_OWNER],
      [{ role: 'CLIENT', owner: false, status: 'DELIVERED', piStatus: 'VERIFIED', approval: 'APPROVED', fileType: 'INVOICE' }, NOT_OWNER],
      // Own project, but PI not verified or not admin-approved.
      [{ role: 'POC', owner: true, status: 'APPROVED', piStatus: 'SUBMITTED', approval: 'APPROVED', fileType: 'PO' }, NOT_READY],
      [{ role: 'POC', owner: true, status: 'REQUESTED', piStatus: 'VERIFIED', approval: null, fileType: 'PO' }, NOT_READY],
      [{ role: 'POC', owner: true, status: 'REQUESTED', piStatus: 'VERIFIED', approval: 'PENDING', fileType: 'PO' }, NOT_READY],
      [{ role: 'POC', owner: true, status: 'CANCELLED', piStatus: 'VERIFIED', approval: 'REJECTED', fileType: 'CHALLAN' }, NOT_READY],
      // Approval record APPROVED while still REQUESTED: admin-approved, so the status rule decides.
      [{ role: 'POC', owner: true, status: 'REQUESTED', piStatus: 'VERIFIED', approval: 'APPROVED', fileType: 'PO' }, PO_EARLY],
      // Past the request stage counts as admin-approved even without an approval record.
      [{ role: 'POC', owner: true, status: 'PRINTING', piStatus: 'VERIFIED', approval: null, fileType: 'PO' }, null],
      [{ role: 'POC', owner: true, status: 'PRINTING', piStatus: 'VERIFIED', approval: 'REJECTED', fileType: 'CHALLAN' }, CHALLAN_EARLY],
      [{ role: 'POC', owner: true, status: 'DISPATCHED', piStatus: 'VERIFIED', approval: 'APPROVED', fileType: 'CHALLAN' }, null],
      [{ role: 'POC', owner: true, status: 'DELIVERED', piStatus: 'VERIFIED', approval: null, fileType: 'INVOICE' }, null],
      // A CLIENT owner is treated like a POC owner.
      [{ role: 'CLIENT', owner: true, status: 'DISPATCHED', piStatus: 'VERIFIED', approval: 'APPROVED', fileType: 'INVOICE' }, null],
      [{ role: 'CLIENT', owner: true, status: 'DISPATCHED', piStatus: 'PENDING', approval: 'APPROVED', fileType: 'INVOICE' }, NOT_READY],
      [{ role: 'CLIENT', owner: true, status: 'APPROVED', piStatus: 'VERIFIED', approval: 'APPROVED', fileType: 'INVOICE' }, INVOICE_EARLY],
    ];
    for (const [c, refusal] of rows) {
      assert.deepEqual(await actual(c), refusal, label(c));
      assert.deepEqual(expected(c), refusal, `the table's rule agrees with the hand-written row: ${label(c)}`);
    }
  });

  test('every combination of role × owner × status × piStatus × approval × fileType', async () => {
    let count = 0;
    const outcomes = new Map<string, number>();
    for (const role of ROLE_VALUES)
      for (const owner of [true, false])
        for (const status of STATUS_VALUES)
          for (const piStatus of PI_VALUES)
            for (const approval of APPROVAL_VALUES)
              for (const fileType of TYPE_VALUES) {
                const c: Case = { role, owner, status, piStatus, approval, fileType };
                const want = expected(c);
                assert.deepEqual(await actual(c), want, label(c));
                const key = want ? want[1] : 'allowed';
                outcomes.set(key, (outcomes.get(key) ?? 0) + 1);
                count++;
              }
    assert.equal(count, 3 * 2 * 6 * 4 * 4 * 3);
    // Every outcome is reached by the table.
    assert.deepEqual(
      [...outcomes.keys()].sort(),
      ['Challan can only be uploaded after dispatch', 'Invoice can only be uploaded after dispatch', 'PO can only be uploaded after project approval', 'POCs can upload documents only after admin approves the project and verifies the PI', 'You can only upload files to your own projects', 'allowed'].sort(),
    );
  });

  test('check 4: a missing project is 404 for every role and type, before any other check', async () => {
    for (const role of ROLE_VALUES)
      for (const fileType of TYPE_VALUES) {
        assert.deepEqual(await refusalOf({ id: CALLER_ID, role }, undefined, fileType), NOT_FOUND, `${role} ${fileType}`);
      }
  });

  test('the decision reads only role, ownership, status, piStatus and approval status', async () => {
    // Other approval fields (note, decider, date) make no difference.
    const base = { pocId: CALLER_ID, status: 'REQUESTED' as const, piStatus: 'VERIFIED' as const };
    const withNote = { ...base, approval: { status: 'APPROVED' as const, note: 'ok', decidedById: null, decidedAt: null } };
    assert.deepEqual(await refusalOf({ id: CALLER_ID, role: 'POC' }, withNote, 'PO'), PO_EARLY);
    const rejected = { ...base, approval: { status: 'REJECTED' as const, note: 'no', decidedById: OTHER_ID, decidedAt: null } };
    assert.deepEqual(await refusalOf({ id: CALLER_ID, role: 'POC' }, rejected, 'PO'), NOT_READY);
  });
});

describe('decideUpload: checks 2 and 3, before the project is read', () => {
  const FILE_TYPES: (string | undefined)[] = [undefined, '', '  ', 'PO', 'CHALLAN', 'INVOICE', 'po', 'Challan', 'invoice', 'RECEIPT', 'PO ', ' PO', 'P0', 'PO,CHALLAN'];
  const PROJECT_IDS: (string | undefined)[] = [undefined, '', ' \t', 'project-1'];
  const ADMIN: Actor = { id: CALLER_ID, role: 'ADMIN' };
  /** A project every type may be uploaded to by an admin: what follows check 3 allows. */
  const OPEN = { pocId: OTHER_ID, status: 'DELIVERED', piStatus: 'VERIFIED', approval: null } satisfies UploadProject;

  /** Check 2: any of file, projectId, fileType missing, empty (or blank); then check 3: fileType not exactly PO, CHALLAN or INVOICE. */
  function expectedFields(hasFile: boolean, projectId: string | undefined, fileType: string | undefined): Refusal {
    if (!hasFile || projectId === undefined || projectId.trim() === '' || fileType === undefined || fileType.trim() === '') return FIELDS_REQUIRED;
    if (fileType !== 'PO' && fileType !== 'CHALLAN' && fileType !== 'INVOICE') return INVALID_TYPE;
    return null;
  }

  /** The decision, and the ids the project was asked for. */
  async function decide(hasFile: boolean, projectId: string | undefined, fileType: string | undefined) {
    const asked: string[] = [];
    const decision = await decideUpload(ADMIN, { hasFile, projectId, fileType }, async (id) => (asked.push(id), OPEN));
    return { refusal: decision instanceof Error ? asRefusal(decision) : null, decision, asked };
  }

  test('hand-written rows', async () => {
    assert.deepEqual((await decide(true, 'p', 'PO')).decision, { project: OPEN, type: 'PO' });
    assert.deepEqual((await decide(true, 'p', 'INVOICE')).decision, { project: OPEN, type: 'INVOICE' });
    assert.deepEqual((await decide(false, 'p', 'PO')).refusal, FIELDS_REQUIRED);
    assert.deepEqual((await decide(true, undefined, 'PO')).refusal, FIELDS_REQUIRED);
    assert.deepEqual((await decide(true, 'p', '')).refusal, FIELDS_REQUIRED);
    assert.deepEqual((await decide(true, '   ', 'PO')).refusal, FIELDS_REQUIRED);
    // Missing fields are reported before an invalid type.
    assert.deepEqual((await decide(false, 'p', 'RECEIPT')).refusal, FIELDS_REQUIRED);
    assert.deepEqual((await decide(true, 'p', 'RECEIPT')).refusal, INVALID_TYPE);
    assert.deepEqual((await decide(true, 'p', 'po')).refusal, INVALID_TYPE);
  });

  test('every combination of file × projectId × fileType; the project is read only once both pass', async () => {
    let count = 0;
    for (const hasFile of [true, false])
      for (const projectId of PROJECT_IDS)
        for (const fileType of FILE_TYPES) {
          const { refusal, decision, asked } = await decide(hasFile, projectId, fileType);
          const want = expectedFields(hasFile, projectId, fileType);
          const what = `file ${hasFile}, projectId ${JSON.stringify(projectId)}, fileType ${JSON.stringify(fileType)}`;
          assert.deepEqual(refusal, want, what);
          if (want === null) {
            assert.deepEqual(decision, { project: OPEN, type: fileType }, what);
            assert.deepEqual(asked, [projectId], `${what}: the project named by the form is read`);
          } else {
            assert.deepEqual(asked, [], `${what}: refused before the project is read`);
          }
          count++;
        }
    assert.equal(count, 2 * PROJECT_IDS.length * FILE_TYPES.length);
  });
});
