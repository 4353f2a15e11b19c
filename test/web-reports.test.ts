import assert from 'node:assert/strict';
import { test } from 'node:test';
import { monthEnd, presetRange } from '../web/src/scenes/reports/range.js';

/** The Reports page's date ranges (web/src/scenes/reports/range.ts): the financial year runs April to March. */
test('presetRange: this month, last month (across a year), this financial year April–March', () => {
  const cases: [Parameters<typeof presetRange>[0], string, { from: string; to: string }][] = [
    ['this-month', '2026-11-27', { from: '2026-11-01', to: '2026-11-27' }],
    ['last-month', '2026-11-27', { from: '2026-10-01', to: '2026-10-31' }],
    ['last-month', '2026-01-05', { from: '2025-12-01', to: '2025-12-31' }],
    ['last-month', '2024-03-10', { from: '2024-02-01', to: '2024-02-29' }],
    ['financial-year', '2026-11-27', { from: '2026-04-01', to: '2026-11-27' }],
    ['financial-year', '2026-04-01', { from: '2026-04-01', to: '2026-04-01' }],
    ['financial-year', '2026-03-31', { from: '2025-04-01', to: '2026-03-31' }],
  ];
  for (const [preset, today, want] of cases) assert.deepEqual(presetRange(preset, today), want, `${preset} on ${today}`);
});

test('monthEnd: the last day of a month, February of leap years included', () => {
  const cases: [string, string][] = [
    ['2026-11', '2026-11-30'],
    ['2026-12', '2026-12-31'],
    ['2026-02', '2026-02-28'],
    ['2024-02', '2024-02-29'],
    ['2000-02', '2000-02-29'],
    ['1900-02', '1900-02-28'],
  ];
  for (const [month, want] of cases) assert.equal(monthEnd(month), want, month);
});
