import assert from 'node:assert/strict';
import { test } from 'node:test';
import { divideHalfUp, isIntraState, lineTotals, projectTotals } from './gst.js';

test('divideHalfUp: half a minor unit rounds up, less rounds down', () => {
  const cases: [bigint, bigint, bigint][] = [
    [0n, 200n, 0n],
    [99n, 200n, 0n], // 0.495
    [100n, 200n, 1n], // 0.5 exactly
    [101n, 200n, 1n],
    [299n, 200n, 1n], // 1.495
    [300n, 200n, 2n], // 1.5
    [5n, 10n, 1n],
    [4n, 10n, 0n],
    [10n ** 18n + 50n, 100n, 10n ** 16n + 1n], // past 2^53 before the division
  ];
  for (const [n, d, want] of cases) assert.equal(divideHalfUp(n, d), want, `${n}/${d}`);
});

test('isIntraState: same state, or either unknown', () => {
  assert.equal(isIntraState('29', '29'), true);
  assert.equal(isIntraState('29', '27'), false);
  assert.equal(isIntraState(null, '27'), true);
  assert.equal(isIntraState('29', null), true);
  assert.equal(isIntraState(null, null), true);
});

test('lineTotals: figures computed by hand, half-paisa cases included', () => {
  // [quantity, unitPrice (paise), rate, intra, taxable, cgst, sgst, igst]
  const cases: [number, number, number, boolean, number, number, number, number][] = [
    [1000, 250, 18, true, 250000, 22500, 22500, 0], // 1000 × ₹2.50 = ₹2,500; 9 % = ₹225
    [1000, 250, 18, false, 250000, 0, 0, 45000],
    [1, 1, 5, true, 1, 0, 0, 0], // 1 × 5/200 = 0.025 → 0
    [1, 10, 5, true, 10, 0, 0, 0], // 0.25 → 0
    [1, 20, 5, true, 20, 1, 1, 0], // 0.5 → 1 (half up)
    [1, 20, 5, false, 20, 0, 0, 1], // 20 × 5/100 = 1
    [1, 10, 5, false, 10, 0, 0, 1], // 0.5 → 1
    [1, 9, 5, false, 9, 0, 0, 0], // 0.45 → 0
    [3, 333, 12, true, 999, 60, 60, 0], // 999 × 6 % = 59.94 → 60
    [3, 333, 12, false, 999, 0, 0, 120], // 119.88 → 120
    [7, 1_07_143, 28, true, 7_50_001, 1_05_000, 1_05_000, 0], // 750001 × 14 % = 105000.14 → 105000
    [1, 25, 18, true, 25, 2, 2, 0], // 2.25 → 2
    [1, 25, 18, false, 25, 0, 0, 5], // 4.5 → 5
    [1, 75, 12, true, 75, 5, 5, 0], // 4.5 → 5
    [10, 0, 18, true, 0, 0, 0, 0],
    [5, 1000, 0, false, 5000, 0, 0, 0],
    [10_000_000, 1_000_000, 28, false, 10_000_000_000_000, 0, 0, 2_800_000_000_000],
  ];
  for (const [quantity, unitPrice, gstRate, intra, taxable, cgst, sgst, igst] of cases) {
    assert.deepEqual(lineTotals({ id: 'l', quantity, unitPrice, gstRate }, intra), { id: 'l', taxable, cgst, sgst, igst }, `${quantity} × ${unitPrice} at ${gstRate} % ${intra ? 'intra' : 'inter'}`);
  }
});

test('projectTotals: sums of the lines rounded each, null unless every line is priced', () => {
  const lines = [
    { id: 'a', quantity: 1, unitPrice: 20, gstRate: 5 }, // cgst 0.5 → 1 each
    { id: 'b', quantity: 1, unitPrice: 20, gstRate: 5 },
    { id: 'c', quantity: 2, unitPrice: 1_25_000, gstRate: 18 },
  ];
  assert.deepEqual(projectTotals(lines, 'INR', '29', '29'), {
    currency: 'INR',
    taxable: 2_50_040,
    cgst: 22_502,
    sgst: 22_502,
    igst: 0,
    total: 2_95_044,
    lines: [
      { id: 'a', taxable: 20, cgst: 1, sgst: 1, igst: 0 },
      { id: 'b', taxable: 20, cgst: 1, sgst: 1, igst: 0 },
      { id: 'c', taxable: 2_50_000, cgst: 22_500, sgst: 22_500, igst: 0 },
    ],
  });
  // Rounded per line, not on the sum: two lines of 0.5 paise each make 2 paise of CGST, not 1.
  const inter = projectTotals(lines, 'INR', '29', '27')!;
  assert.deepEqual([inter.cgst, inter.sgst, inter.igst, inter.total], [0, 0, 45_002, 2_95_042]);
  assert.equal(projectTotals([], 'INR', '29', '29'), null);
  assert.equal(projectTotals([{ id: 'a', quantity: 1, unitPrice: null, gstRate: 5 }], 'INR', null, null), null);
  assert.equal(projectTotals([{ id: 'a', quantity: 1, unitPrice: 5, gstRate: null }], 'INR', null, null), null);
});
