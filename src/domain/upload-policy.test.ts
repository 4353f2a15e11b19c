import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { AppError } from '../errors.js';
import type { Actor, Approval, ApprovalStatus, DocumentType, PiStatus, ProjectStatus, Role } from './model.js';
import { checkUploadFields, uploadRefusal } from './upload-policy.js';

/**
 * Specification 4.1 checks 2 to 7. Every expectation below is written from the specification's
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

function actual(c: Case): Refusal {
  const actor: Actor = { id: CALLER_ID, role: c.role };
  const project = { pocId: c.owner ? CALLER_ID : OTHER_ID, status: c.status, piStatus: c.piStatus, approval: approvalRecord(c.approval) };
  return asRefusal(uploadRefusal(actor, project, c.fileType));
}

function asRefusal(err: AppError | null): Refusal {
  if (err === null) return null;
  assert.ok(err instanceof Error, 'a refusal is an error');
  return [err.status, err.message];
}

const label = (c: Case) => `${c.role} ${c.owner ? 'owner' : 'not owner'}, ${c.status}/${c.piStatus}/approval ${c.approval ?? 'none'}, ${c.fileType}`;

describe('uploadRefusal (checks 4 to 7)', () => {
  test('hand-written rows', () => {
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
      assert.deepEqual(actual(c), refusal, label(c));
      assert.deepEqual(expected(c), refusal, `the table's rule agrees with the hand-written row: ${label(c)}`);
    }
  });

  test('every combination of role × owner × status × piStatus × approval × fileType', () => {
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
                assert.deepEqual(actual(c), want, label(c));
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

  test('check 4: a missing project is 404 for every role and type, before any other check', () => {
    for (const role of ROLE_VALUES)
      for (const fileType of TYPE_VALUES) {
        assert.deepEqual(asRefusal(uploadRefusal({ id: CALLER_ID, role }, undefined, fileType)), NOT_FOUND, `${role} ${fileType}`);
      }
  });

  test('the decision reads only role, ownership, status, piStatus and approval status', () => {
    // Other approval fields (note, decider, date) make no difference.
    const base = { pocId: CALLER_ID, status: 'REQUESTED' as const, piStatus: 'VERIFIED' as const };
    const withNote = { ...base, approval: { status: 'APPROVED' as const, note: 'ok', decidedById: null, decidedAt: null } };
    assert.deepEqual(asRefusal(uploadRefusal({ id: CALLER_ID, role: 'POC' }, withNote, 'PO')), PO_EARLY);
    const rejected = { ...base, approval: { status: 'REJECTED' as const, note: 'no', decidedById: OTHER_ID, decidedAt: null } };
    assert.deepEqual(asRefusal(uploadRefusal({ id: CALLER_ID, role: 'POC' }, rejected, 'PO')), NOT_READY);
  });
});

describe('checkUploadFields (checks 2 and 3)', () => {
  const FILE_TYPES: (string | undefined)[] = [undefined, '', 'PO', 'CHALLAN', 'INVOICE', 'po', 'Challan', 'invoice', 'RECEIPT', 'PO ', ' PO', 'P0', 'PO,CHALLAN'];
  const PROJECT_IDS: (string | undefined)[] = [undefined, '', 'project-1'];

  /** Check 2: any of file, projectId, fileType missing or empty; then check 3: fileType not exactly PO, CHALLAN or INVOICE. */
  function expectedFields(hasFile: boolean, projectId: string | undefined, fileType: string | undefined) {
    if (!hasFile || projectId === undefined || projectId === '' || fileType === undefined || fileType === '') return FIELDS_REQUIRED;
    if (fileType !== 'PO' && fileType !== 'CHALLAN' && fileType !== 'INVOICE') return INVALID_TYPE;
    return { fileType, projectId };
  }

  test('hand-written rows', () => {
    assert.deepEqual(checkUploadFields({ hasFile: true, projectId: 'p', fileType: 'PO' }), { fileType: 'PO', projectId: 'p' });
    assert.deepEqual(checkUploadFields({ hasFile: true, projectId: 'p', fileType: 'INVOICE' }), { fileType: 'INVOICE', projectId: 'p' });
    assert.deepEqual(asRefusal(checkUploadFields({ hasFile: false, projectId: 'p', fileType: 'PO' }) as AppError), FIELDS_REQUIRED);
    assert.deepEqual(asRefusal(checkUploadFields({ hasFile: true, projectId: undefined, fileType: 'PO' }) as AppError), FIELDS_REQUIRED);
    assert.deepEqual(asRefusal(checkUploadFields({ hasFile: true, projectId: 'p', fileType: '' }) as AppError), FIELDS_REQUIRED);
    // Missing fields are reported before an invalid type.
    assert.deepEqual(asRefusal(checkUploadFields({ hasFile: false, projectId: 'p', fileType: 'RECEIPT' }) as AppError), FIELDS_REQUIRED);
    assert.deepEqual(asRefusal(checkUploadFields({ hasFile: true, projectId: 'p', fileType: 'RECEIPT' }) as AppError), INVALID_TYPE);
    assert.deepEqual(asRefusal(checkUploadFields({ hasFile: true, projectId: 'p', fileType: 'po' }) as AppError), INVALID_TYPE);
  });

  test('every combination of file × projectId × fileType', () => {
    let count = 0;
    for (const hasFile of [true, false])
      for (const projectId of PROJECT_IDS)
        for (const fileType of FILE_TYPES) {
          const got = checkUploadFields({ hasFile, projectId, fileType });
          const want = expectedFields(hasFile, projectId, fileType);
          const what = `file ${hasFile}, projectId ${JSON.stringify(projectId)}, fileType ${JSON.stringify(fileType)}`;
          if (Array.isArray(want)) assert.deepEqual(got instanceof Error ? asRefusal(got as AppError) : got, want, what);
          else assert.deepEqual(got, want, what);
          count++;
        }
    assert.equal(count, 2 * PROJECT_IDS.length * FILE_TYPES.length);
  });
});
