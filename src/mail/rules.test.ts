import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ACTIVITY_ACTIONS, type ActivityAction } from '../domain/activity.js';
import type { Actor } from '../domain/model.js';
import { backoffMs } from './dispatcher.js';
import { EMAIL_RULES, audienceOf, emailRuleOf } from './rules.js';
import { projectEmail, projectState } from './templates.js';

const admin: Actor = { id: 'admin', role: 'ADMIN' };
const poc: Actor = { id: 'poc', role: 'POC' };
const project = { pocId: 'poc' };

test('who is told of each change (issue 12, "Who gets what")', () => {
  const client: Actor = { id: 'client', role: 'CLIENT' };
  const table: [ActivityAction, Actor, { category: string; admins: boolean; poc: boolean; viewers?: boolean; shopOnly?: boolean; clients?: boolean; ownerOnly?: boolean } | null, Record<string, unknown>?][] = [
    ['COMMENT_ADDED', client, { category: 'comments', admins: false, poc: false, viewers: true, shopOnly: false }, { internal: false }],
    ['COMMENT_ADDED', admin, { category: 'comments', admins: false, poc: false, viewers: true, shopOnly: true }, { internal: true }],
    ['PROJECT_CREATED', poc, { category: 'approvals', admins: true, poc: false }],
    ['PROJECT_CREATED', admin, { category: 'approvals', admins: true, poc: false }],
    ['APPROVAL_REQUESTED', poc, { category: 'approvals', admins: true, poc: false }],
    ['PROJECT_APPROVED', admin, { category: 'approvals', admins: false, poc: true }],
    ['PROJECT_REJECTED', admin, { category: 'approvals', admins: false, poc: true }],
    ['PI_SUBMITTED', poc, { category: 'pi', admins: true, poc: false }],
    ['PI_VERIFIED', admin, { category: 'pi', admins: false, poc: true }],
    ['PI_REJECTED', admin, { category: 'pi', admins: false, poc: true }],
    ['PRINTING_STARTED', admin, { category: 'progress', admins: false, poc: true }],
    ['PROJECT_DISPATCHED', admin, { category: 'progress', admins: false, poc: true }],
    ['PROJECT_DELIVERED', poc, { category: 'progress', admins: false, poc: true }],
    ['PROJECT_CANCELLED', admin, { category: 'progress', admins: false, poc: true }],
    ['PROJECT_CANCELLED', poc, { category: 'progress', admins: true, poc: true }],
    ['PO_UPLOADED', admin, { category: 'documents', admins: false, poc: true }],
    ['INVOICE_UPLOADED', poc, { category: 'documents', admins: true, poc: false }],
    ['CHALLAN_UPLOADED', { id: 'other-admin', role: 'ADMIN' }, { category: 'documents', admins: false, poc: true }],
    ['PAYMENT_RECORDED', admin, { category: 'pi', admins: false, poc: true }],
    ['PO_VOIDED', admin, { category: 'documents', admins: false, poc: true }],
    ['CHALLAN_VOIDED', poc, { category: 'documents', admins: true, poc: false }],
    ['INVOICE_VOIDED', { id: 'other-admin', role: 'ADMIN' }, { category: 'documents', admins: false, poc: true }],
    ['PROOF_POSTED', poc, { category: 'proofs', admins: false, poc: false, clients: true }],
    ['PROOF_APPROVED', client, { category: 'proofs', admins: true, poc: true, ownerOnly: true }],
    ['PROOF_CHANGES_REQUESTED', poc, { category: 'proofs', admins: true, poc: true, ownerOnly: true }],
    ['PROJECT_UPDATED', admin, null],
    ['CUSTOMER_CREATED', admin, null],
    ['CUSTOMER_UPDATED', poc, null],
    // The owner, the admins and the customer's people (interface.md, "Holds, rush, reorders").
    ['PROJECT_HELD', poc, { category: 'progress', admins: true, poc: true, viewers: true }],
    ['PROJECT_RELEASED', admin, { category: 'progress', admins: true, poc: true, viewers: true }],
  ];
  for (const [action, actor, expected, details] of table) assert.deepEqual(audienceOf(action, actor, project, details), expected, `${action} by ${actor.id}`);
  // Every action is decided, by the table above and by EMAIL_RULES (a rule, or null for none): none is left to a default.
  assert.deepEqual([...new Set(table.map(([action]) => action))].sort(), [...ACTIVITY_ACTIONS].sort());
  assert.deepEqual(Object.keys(EMAIL_RULES).sort(), [...ACTIVITY_ACTIONS].sort());
});

test('the PI and a payment are described with their figures, in major units', () => {
  assert.equal(
    EMAIL_RULES.PI_SUBMITTED!.describe({ actorName: 'Pia', details: { number: 'PI-7', amount: 12_500_050, currency: 'INR' } }),
    'PI PI-7 for ₹1,25,000.50 submitted by Pia.',
  );
  // An entry written before PIs had figures.
  assert.equal(EMAIL_RULES.PI_SUBMITTED!.describe({ actorName: 'Pia', details: {} }), 'PI submitted by Pia.');
  assert.equal(
    EMAIL_RULES.PAYMENT_RECORDED!.describe({ actorName: 'Ann', details: { amount: 5, currency: 'JPY', receivedOn: '2026-03-01' } }),
    'Payment of ¥5 received on 1 Mar 2026 recorded by Ann.',
  );
});

test('an action as stored in the outbox: its rule, or none for a name the service no longer writes', () => {
  assert.equal(emailRuleOf('PI_VERIFIED'), EMAIL_RULES.PI_VERIFIED);
  assert.equal(emailRuleOf('PROJECT_UPDATED'), null);
  assert.equal(emailRuleOf('PROJECT_ARCHIVED'), null);
  assert.equal(emailRuleOf('toString'), null);
});

test('one change makes a subject of its own; several are listed in one email', () => {
  const to = { name: 'Asha', address: 'a@x.example' };
  const p = { id: 'p1', name: 'Catalogue <2027>', status: 'REQUESTED' as const, piStatus: 'PENDING' as const, approval: { status: 'REJECTED' as const, note: 'Wrong size', decidedById: 'b', decidedAt: '' } };
  const one = projectEmail(to, p, [{ action: 'PROJECT_REJECTED', actorName: 'Ben', at: '', details: { note: 'Wrong size' } }], 'https://shop.example');
  assert.equal(one.subject, 'Rejected: Catalogue <2027>');
  assert.match(one.text, /^Hello Asha,/);
  assert.match(one.text, /- Rejected by Ben\. Note: Wrong size\n\nWhere it stands now: Rejected\.\n/);
  assert.match(one.text, /Open the project: https:\/\/shop\.example\/projects\/p1/);
  assert.match(one.html, /Catalogue &#60;2027&#62;/, 'HTML is escaped');
  const two = projectEmail(to, p, [
    { action: 'PROJECT_DISPATCHED', actorName: 'Ben', at: '', details: {} },
    { action: 'INVOICE_UPLOADED', actorName: 'Ben', at: '', details: { filename: 'inv.pdf' } },
  ], 'https://shop.example');
  assert.equal(two.subject, '2 updates: Catalogue <2027>');
  assert.match(two.text, /- Dispatched \(Ben\)\.\n- Invoice uploaded by Ben: inv\.pdf/);
});

test('a comment’s text is in the email: as written in plain text, escaped in HTML', () => {
  const to = { name: 'Asha', address: 'a@x.example' };
  const p = { id: 'p1', name: 'Menus', status: 'APPROVED' as const, piStatus: 'PENDING' as const, approval: null };
  const body = '<script>alert(1)</script> & see https://x.example/?a=1&b=2';
  const mail = projectEmail(to, p, [{ action: 'COMMENT_ADDED', actorName: 'Ben', at: '', details: { commentId: 'c', internal: false, body } }], 'https://shop.example');
  assert.equal(mail.subject, 'New comment: Menus');
  assert.ok(mail.text.includes(`- Comment by Ben: ${body}\n`));
  assert.ok(!mail.html.includes('<script>'));
  assert.ok(mail.html.includes('Comment by Ben: &#60;script&#62;alert(1)&#60;/script&#62; &#38; see https://x.example/?a=1&#38;b=2'));
  const note = projectEmail(to, p, [{ action: 'COMMENT_ADDED', actorName: 'Ben', at: '', details: { commentId: 'c', internal: true, body: 'check stock' } }], 'https://shop.example');
  assert.match(note.text, /- Internal note by Ben: check stock\n/);
});

test('changes are listed in the order they happened, each with its note, whatever the change', () => {
  const to = { name: 'Asha', address: 'a@x.example' };
  const p = { id: 'p1', name: 'Menus', status: 'DISPATCHED' as const, piStatus: 'VERIFIED' as const, approval: null };
  const mail = projectEmail(to, p, [
    { action: 'PROJECT_DISPATCHED', actorName: 'Ben', at: '2026-11-24T10:00:02.000Z', details: { note: ' BlueDart AWB 123456789 ' } },
    { action: 'PRINTING_STARTED', actorName: 'Ben', at: '2026-11-24T10:00:01.000Z', details: { note: '' } },
    { action: 'PO_UPLOADED', actorName: 'Ben', at: '2026-11-24T10:00:02.000Z', details: { filename: 'po.pdf' } },
  ], 'https://shop.example');
  assert.match(mail.text, /- Printing started \(Ben\)\.\n- Dispatched \(Ben\)\. Note: BlueDart AWB 123456789\n- PO uploaded by Ben: po\.pdf\n\nWhere it stands now: Dispatched, PI verified\.\n/);
});

test('where a project stands, as the web app names it', () => {
  const rejected = { status: 'REJECTED' as const, note: null, decidedById: null, decidedAt: null };
  const table: [Parameters<typeof projectState>[0], string][] = [
    [{ status: 'REQUESTED', piStatus: 'PENDING', approval: null }, 'Awaiting approval'],
    [{ status: 'REQUESTED', piStatus: 'PENDING', approval: rejected }, 'Rejected'],
    [{ status: 'REQUESTED', piStatus: 'PENDING', approval: { ...rejected, status: 'PENDING' } }, 'Awaiting approval'],
    [{ status: 'REQUESTED', piStatus: 'SUBMITTED', approval: null }, 'Awaiting approval, PI submitted, awaiting verification'],
    [{ status: 'APPROVED', piStatus: 'PENDING', approval: null }, 'Approved'],
    [{ status: 'APPROVED', piStatus: 'REJECTED', approval: null }, 'Approved, PI rejected'],
    [{ status: 'APPROVED', piStatus: 'VERIFIED', approval: null }, 'Approved, PI verified'],
    [{ status: 'PRINTING', piStatus: 'VERIFIED', approval: null }, 'Printing, PI verified'],
    [{ status: 'DELIVERED', piStatus: 'VERIFIED', approval: null }, 'Delivered, PI verified'],
    [{ status: 'CANCELLED', piStatus: 'SUBMITTED', approval: null }, 'Cancelled'],
  ];
  for (const [project, want] of table) assert.equal(projectState(project), want, JSON.stringify(project));
});

test('retries back off by doubling, within the cap, with bounded jitter', () => {
  const retry = { baseMs: 1000, maxMs: 10_000, maxAttempts: 5 };
  assert.equal(backoffMs(1, retry, 0.5), 1000);
  assert.equal(backoffMs(2, retry, 0.5), 2000);
  assert.equal(backoffMs(3, retry, 0.5), 4000);
  assert.equal(backoffMs(10, retry, 0.5), 10_000);
  assert.equal(backoffMs(1, retry, 0), 800);
  assert.equal(backoffMs(1, retry, 1), 1200);
});
