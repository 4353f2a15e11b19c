import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { ProjectStatus, Role } from './model.js';
import { type ProofStatus, answerNote, decideAnswer, decidePost, decideSendLink, linkName, linkOpen, printingHold, statusAfterNewVersion } from './proofs.js';

const who = (id: string, role: Role, customerId: string | null = null) => ({ id, role, customerId });
const admin = who('admin', 'ADMIN');
const owner = who('owner', 'POC');
const otherPoc = who('other', 'POC');
const client = who('cleo', 'CLIENT', 'acme');
const strangerClient = who('stan', 'CLIENT', 'beta');
const project = (status: ProjectStatus = 'APPROVED') => ({ pocId: 'owner', customerId: 'acme', status });
const message = (e: { message: string; status: number } | null) => (e ? `${e.status} ${e.message}` : null);

describe('decidePost: ADMIN or the owner, before dispatch', () => {
  const table: [string, ReturnType<typeof who>, ProjectStatus | null, string | null][] = [
    ['admin', admin, 'APPROVED', null],
    ['owner', owner, 'REQUESTED', null],
    ['owner while printing', owner, 'PRINTING', null],
    ['client who sees it', client, 'APPROVED', '403 Forbidden'],
    ['poc who does not see it', otherPoc, 'APPROVED', '404 Project not found'],
    ['client of another customer', strangerClient, 'APPROVED', '404 Project not found'],
    ['no project', admin, null, '404 Project not found'],
    ['dispatched', admin, 'DISPATCHED', '409 Proofs can be posted only before dispatch'],
    ['delivered', owner, 'DELIVERED', '409 Proofs can be posted only before dispatch'],
    ['cancelled', admin, 'CANCELLED', '409 Proofs can be posted only before dispatch'],
    ['not seeing beats the state', otherPoc, 'CANCELLED', '404 Project not found'],
  ];
  for (const [name, viewer, status, expected] of table) test(name, () => assert.equal(message(decidePost(viewer, status ? project(status) : null)), expected));
});

describe('decideAnswer: a CLIENT of the customer, the owner or an ADMIN; the latest, pending', () => {
  const table: [string, ReturnType<typeof who>, { version: number; status: ProofStatus } | null, number, string | null][] = [
    ['client, latest pending', client, { version: 2, status: 'pending' }, 2, null],
    ['owner by phone', owner, { version: 1, status: 'pending' }, 1, null],
    ['admin by phone', admin, { version: 1, status: 'pending' }, 1, null],
    ['another poc', otherPoc, { version: 1, status: 'pending' }, 1, '404 Project not found'],
    ['another customer', strangerClient, { version: 1, status: 'pending' }, 1, '404 Project not found'],
    ['an older version', client, { version: 1, status: 'superseded' }, 2, '409 A newer proof replaces this one'],
    ['an older answered version', client, { version: 1, status: 'approved' }, 2, '409 A newer proof replaces this one'],
    ['the latest answered', client, { version: 2, status: 'changes-requested' }, 2, '409 This proof was already answered'],
    ['no such proof', client, null, 2, '404 Proof not found'],
  ];
  for (const [name, viewer, proof, latest, expected] of table) test(name, () => assert.equal(message(decideAnswer(viewer, project(), proof, latest)), expected));
  test('a CLIENT who owns the project (not of its customer) still answers as its owner', () =>
    assert.equal(decideAnswer(who('owner', 'CLIENT', null), project(), { version: 1, status: 'pending' }, 1), null));
});

describe('decideSendLink', () => {
  test('owner, pending', () => assert.equal(decideSendLink(owner, project(), { status: 'pending' }), null));
  test('client 403', () => assert.equal(message(decideSendLink(client, project(), { status: 'pending' })), '403 Forbidden'));
  test('other poc 404', () => assert.equal(message(decideSendLink(otherPoc, project(), { status: 'pending' })), '404 Project not found'));
  for (const status of ['approved', 'changes-requested', 'superseded'] as const)
    test(status, () => assert.equal(message(decideSendLink(admin, project(), { status })), '409 Only a pending proof can be sent'));
});

describe('supersede, printing, links, texts', () => {
  const after: [ProofStatus, ProofStatus][] = [
    ['pending', 'superseded'],
    ['approved', 'approved'],
    ['changes-requested', 'changes-requested'],
    ['superseded', 'superseded'],
  ];
  for (const [before, expected] of after) test(`a new version leaves ${before} ${expected}`, () => assert.equal(statusAfterNewVersion(before), expected));
  test('no proofs: printing not held', () => assert.equal(printingHold(null), null));
  test('approved: not held', () => assert.equal(printingHold({ version: 3, status: 'approved' }), null));
  for (const status of ['pending', 'changes-requested'] as const)
    test(`${status}: held`, () => assert.equal(message(printingHold({ version: 3, status })), "409 Printing waits for the customer's approval of proof v3"));
  test('a link opens while unexpired and pending', () => {
    const now = Date.parse('2026-11-27T12:00:00Z');
    assert.equal(linkOpen({ expiresAt: '2026-11-27T12:00:01Z' }, { status: 'pending' }, now), true);
    assert.equal(linkOpen({ expiresAt: '2026-11-27T12:00:00Z' }, { status: 'pending' }, now), false);
    assert.equal(linkOpen({ expiresAt: '2026-12-27T12:00:00Z' }, { status: 'approved' }, now), false);
  });
  const notes: [Parameters<typeof answerNote>[0], unknown, string | null][] = [
    ['approved', undefined, null],
    ['approved', '  ', null],
    ['approved', ' fine ', 'fine'],
    ['changes-requested', undefined, '400 Note is required'],
    ['changes-requested', ' ', '400 Note is required'],
    ['changes-requested', 'x'.repeat(2000), 'x'.repeat(2000)],
    ['changes-requested', '😀'.repeat(2000), '😀'.repeat(2000)],
    ['changes-requested', 'x'.repeat(2001), '400 Note must be at most 2000 characters'],
  ];
  for (const [decision, note, expected] of notes)
    test(`${decision} note ${JSON.stringify(note)?.slice(0, 12)}`, () => {
      const got = answerNote(decision, note);
      assert.equal(typeof got === 'object' && got !== null ? message(got) : got, expected);
    });
  test('a link name is 1–200 characters', () => {
    assert.equal(linkName(' Bea '), 'Bea');
    assert.equal(message(linkName('') as never), '400 Name is required');
    assert.equal(message(linkName('x'.repeat(201)) as never), '400 Name must be at most 200 characters');
  });
});
