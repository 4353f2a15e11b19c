import assert from 'node:assert/strict';
import { test } from 'node:test';
import { type DueFilter, addDays, dueFiltersOf, dueRange, isCalendarDate, isOverdue, todayIn } from './due.js';
import { PROJECT_STATUSES, type ProjectStatus } from './model.js';

test('todayIn: the date in the named zone, not in UTC or the machine zone', () => {
  const cases: [string, string, string][] = [
    // Asia/Kolkata is UTC+05:30 all year.
    ['Asia/Kolkata', '2026-03-10T18:29:59.999Z', '2026-03-10'],
    ['Asia/Kolkata', '2026-03-10T18:30:00.000Z', '2026-03-11'],
    // America/Los_Angeles: UTC-07:00 after 2026-03-08 (daylight time), UTC-08:00 before.
    ['America/Los_Angeles', '2026-03-10T06:59:59.999Z', '2026-03-09'],
    ['America/Los_Angeles', '2026-03-10T07:00:00.000Z', '2026-03-10'],
    ['America/Los_Angeles', '2026-01-10T07:59:59.999Z', '2026-01-09'],
    ['America/Los_Angeles', '2026-01-10T08:00:00.000Z', '2026-01-10'],
    ['UTC', '2026-12-31T23:59:59.999Z', '2026-12-31'],
    ['Pacific/Kiritimati', '2026-12-31T10:00:00.000Z', '2027-01-01'],
  ];
  for (const [zone, at, want] of cases) assert.equal(todayIn(zone, new Date(at)), want, `${zone} at ${at}`);
});

test('isCalendarDate: real dates written YYYY-MM-DD only', () => {
  const yes = ['2026-02-28', '2024-02-29', '2000-02-29', '2026-12-31', '2026-01-01', '0099-01-01', '9999-12-31'];
  const no = [
    '2026-02-29', // not a leap year
    '1900-02-29', // nor is 1900
    '2026-02-30',
    '2026-04-31',
    '2026-13-01',
    '2026-00-10',
    '2026-01-00',
    '2026-1-5',
    '26-01-05',
    '2026-01-05T00:00:00Z',
    ' 2026-01-05',
    '2026/01/05',
    '',
    null,
    20260105,
    '２０２６-01-05',
  ];
  for (const v of yes) assert.equal(isCalendarDate(v), true, String(v));
  for (const v of no) assert.equal(isCalendarDate(v), false, String(v));
});

test('addDays: calendar arithmetic across months, years and leap days', () => {
  const cases: [string, number, string][] = [
    ['2026-03-10', 0, '2026-03-10'],
    ['2026-03-10', 6, '2026-03-16'],
    ['2026-02-28', 1, '2026-03-01'],
    ['2024-02-28', 1, '2024-02-29'],
    ['2026-12-29', 6, '2027-01-04'],
    ['2026-03-01', -1, '2026-02-28'],
    ['0099-12-31', 1, '0100-01-01'],
  ];
  for (const [date, days, want] of cases) assert.equal(addDays(date, days), want, `${date} + ${days}`);
});

test('isOverdue and dueFiltersOf: open projects by their due date against today', () => {
  const today = '2026-03-10';
  const open: ProjectStatus[] = ['REQUESTED', 'APPROVED', 'PRINTING', 'DISPATCHED'];
  const cases: [string | null, DueFilter[]][] = [
    [null, []],
    ['2025-12-31', ['overdue']],
    ['2026-03-09', ['overdue']],
    ['2026-03-10', ['today', 'week']],
    ['2026-03-11', ['week']],
    ['2026-03-16', ['week']],
    ['2026-03-17', []],
  ];
  for (const status of PROJECT_STATUSES) {
    for (const [dueDate, filters] of cases) {
      const p = { dueDate, status };
      const want = open.includes(status) ? filters : [];
      assert.deepEqual(dueFiltersOf(p, today), want, `${status} due ${dueDate}`);
      assert.equal(isOverdue(p, today), want.includes('overdue'), `${status} due ${dueDate}`);
    }
  }
});

test('dueRange: the bounds each filter puts on dueDate', () => {
  assert.deepEqual(dueRange('overdue', '2026-03-10'), { before: '2026-03-10' });
  assert.deepEqual(dueRange('today', '2026-03-10'), { from: '2026-03-10', through: '2026-03-10' });
  assert.deepEqual(dueRange('week', '2026-12-29'), { from: '2026-12-29', through: '2027-01-04' });
});
