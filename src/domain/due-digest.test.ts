import assert from 'node:assert/strict';
import { test } from 'node:test';
import { type DigestProject, daysLate, digestDayAt, digestOf, digestReachOf, hourIn, isEmptyDigest } from './due-digest.js';
import { PROJECT_STATUSES, ROLES, type ProjectStatus } from './model.js';

test('digestReachOf: an ADMIN hears of every project, a POC of their own, anyone else gets no digest', () => {
  const want = { ADMIN: 'all', POC: 'own', CLIENT: null } as const;
  for (const role of ROLES) assert.equal(digestReachOf(role), want[role], role);
});

test('hourIn and digestDayAt: the hour and the day are the shop zone’s, never UTC’s', () => {
  const cases: [zone: string, at: string, hour: number, day: string | null][] = [
    // Kolkata is UTC+05:30: 08:00 there is 02:30 UTC.
    ['Asia/Kolkata', '2026-03-10T02:29:59.999Z', 7, null],
    ['Asia/Kolkata', '2026-03-10T02:30:00.000Z', 8, '2026-03-10'],
    // 20:00 UTC is past 8 in UTC, but 01:30 of the next day in Kolkata: not yet.
    ['Asia/Kolkata', '2026-03-09T20:00:00.000Z', 1, null],
    // 23:59 in Kolkata: still that day's digest.
    ['Asia/Kolkata', '2026-03-10T18:29:00.000Z', 23, '2026-03-10'],
    // Midnight is hour 0, never 24.
    ['Asia/Kolkata', '2026-03-10T18:30:00.000Z', 0, null],
    // Los Angeles in daylight time (UTC-07:00 from 2026-03-08): 08:00 there is 15:00 UTC.
    ['America/Los_Angeles', '2026-03-10T14:59:00.000Z', 7, null],
    ['America/Los_Angeles', '2026-03-10T15:00:00.000Z', 8, '2026-03-10'],
    ['UTC', '2026-03-10T08:00:00.000Z', 8, '2026-03-10'],
  ];
  for (const [zone, at, hour, day] of cases) {
    assert.equal(hourIn(zone, new Date(at)), hour, `hour in ${zone} at ${at}`);
    assert.equal(digestDayAt(zone, 8, new Date(at)), day, `digest day in ${zone} at ${at}`);
  }
  assert.equal(digestDayAt('Asia/Kolkata', 0, new Date('2026-03-10T18:30:00.000Z')), '2026-03-11', 'DUE_DIGEST_HOUR=0: from midnight');
  assert.equal(digestDayAt('Asia/Kolkata', 23, new Date('2026-03-10T17:29:59.000Z')), null);
  assert.equal(digestDayAt('Asia/Kolkata', 23, new Date('2026-03-10T17:30:00.000Z')), '2026-03-10');
});

const project = (name: string, dueDate: string | null, status: ProjectStatus = 'PRINTING'): DigestProject => ({
  id: `id-${name}`,
  name,
  status,
  piStatus: 'VERIFIED',
  approval: null,
  reference: null,
  dueDate,
});

test('digestOf: the open projects overdue (longest first) and due that day; later, undated, delivered and cancelled ones left out', () => {
  const day = '2026-03-10';
  const projects = [
    project('Tomorrow', '2026-03-11'),
    project('Today B', '2026-03-10'),
    project('Yesterday', '2026-03-09'),
    project('Undated', null),
    project('Today A', '2026-03-10', 'REQUESTED'),
    project('Last month', '2026-02-10', 'DISPATCHED'),
    project('Delivered late', '2026-03-01', 'DELIVERED'),
    project('Cancelled today', '2026-03-10', 'CANCELLED'),
    project('Next year', '2027-03-10'),
  ];
  const digest = digestOf(projects, day);
  assert.deepEqual(digest.overdue.map((p) => p.name), ['Last month', 'Yesterday']);
  assert.deepEqual(digest.today.map((p) => p.name), ['Today A', 'Today B']);
  assert.equal(isEmptyDigest(digest), false);
  assert.equal(isEmptyDigest(digestOf([project('Tomorrow', '2026-03-11'), project('Done', '2026-03-01', 'DELIVERED')], day)), true);
  assert.equal(isEmptyDigest(digestOf([], day)), true);
});

test('digestOf: every status that is still open is listed; DELIVERED and CANCELLED never', () => {
  for (const status of PROJECT_STATUSES) {
    const listed = !['DELIVERED', 'CANCELLED'].includes(status);
    const d = digestOf([project('Late', '2026-03-01', status), project('Now', '2026-03-10', status)], '2026-03-10');
    assert.deepEqual([d.overdue.length, d.today.length], listed ? [1, 1] : [0, 0], status);
  }
});

test('daysLate: whole calendar days, across months and leap days', () => {
  const cases: [string, string, number][] = [
    ['2026-03-09', '2026-03-10', 1],
    ['2026-02-28', '2026-03-01', 1],
    ['2024-02-28', '2024-03-01', 2],
    ['2025-12-31', '2026-01-01', 1],
    ['2026-03-10', '2026-03-10', 0],
    ['2026-01-10', '2026-03-10', 59],
  ];
  for (const [due, day, want] of cases) assert.equal(daysLate(due, day), want, `${due} → ${day}`);
});
