import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  DayTable,
  addYears,
  agingBucket,
  agingStarts,
  balanceFigures,
  dayStart,
  daysBetween,
  defaultRange,
  deliveryFigures,
  monthsBetween,
  nearestRank,
  rangeRefusal,
  rate,
} from './reports.js';

test('monthsBetween: every month from the first date to the last, across years', () => {
  const cases: [string, string, string[]][] = [
    ['2026-03-31', '2026-03-01', ['2026-03']],
    ['2026-03-15', '2026-05-02', ['2026-03', '2026-04', '2026-05']],
    ['2025-11-30', '2026-02-01', ['2025-11', '2025-12', '2026-01', '2026-02']],
  ];
  for (const [from, to, want] of cases) assert.deepEqual(monthsBetween(from, to), want, `${from}..${to}`);
  assert.equal(monthsBetween('2021-11-27', '2026-11-27').length, 61);
});

test('nearestRank: the value at rank ceil(p/100 × n), null for none', () => {
  const cases: [number[], number, number | null][] = [
    [[], 50, null],
    [[7], 50, 7],
    [[7], 90, 7],
    [[1, 2], 50, 1],
    [[4, 1, 3, 2], 50, 2],
    [[5, 1, 4, 2, 3], 50, 3],
    [[1, 2, 3, 4, 5, 6, 7, 8, 9, 10], 90, 9],
    [[1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11], 90, 10],
    [[0, 0, 30], 90, 30],
  ];
  for (const [values, p, want] of cases) assert.equal(nearestRank(values, p), want, `${p} of ${values}`);
});

test('rate: a fraction rounded half up to 4 decimals; null over nothing', () => {
  const cases: [number, number, number | null][] = [
    [0, 0, null],
    [0, 3, 0],
    [3, 3, 1],
    [2, 3, 0.6667],
    [1, 3, 0.3333],
    [1, 8, 0.125],
    [1, 20000, 0.0001], // 0.00005 rounds up
    [1, 20001, 0],
    [5, 7, 0.7143],
  ];
  for (const [part, whole, want] of cases) assert.equal(rate(part, whole), want, `${part}/${whole}`);
});

test('agingBucket: 0-30, 31-60, 61-90, 90+ by whole days', () => {
  const cases: [number, string][] = [
    [0, '0-30'],
    [30, '0-30'],
    [31, '31-60'],
    [60, '31-60'],
    [61, '61-90'],
    [90, '61-90'],
    [91, '90+'],
    [4000, '90+'],
  ];
  for (const [days, want] of cases) assert.equal(agingBucket(days), want, String(days));
});

test('daysBetween and addYears: calendar arithmetic', () => {
  assert.equal(daysBetween('2026-02-27', '2026-03-01'), 2);
  assert.equal(daysBetween('2024-02-27', '2024-03-01'), 3);
  assert.equal(daysBetween('2026-03-01', '2026-02-27'), -2);
  assert.equal(daysBetween('2026-03-07', '2026-03-09'), 2); // across a DST change anywhere
  assert.equal(addYears('2026-11-27', 5), '2031-11-27');
  assert.equal(addYears('2024-02-29', 5), '2029-02-28');
});

test('rangeRefusal and defaultRange: the report range rules', () => {
  assert.equal(rangeRefusal('2026-01-01', '2026-01-01'), null);
  assert.equal(rangeRefusal('2026-01-02', '2026-01-01'), 'to must not be before from');
  assert.equal(rangeRefusal('2021-11-27', '2026-11-27'), null);
  assert.equal(rangeRefusal('2021-11-27', '2026-11-28'), 'from and to must be at most 5 years apart');
  assert.deepEqual(defaultRange('2026-11-27'), { from: '2025-12-01', to: '2026-11-27' });
  assert.deepEqual(defaultRange('2026-01-05'), { from: '2025-02-01', to: '2026-01-05' });
  assert.deepEqual(defaultRange('2026-12-31'), { from: '2026-01-01', to: '2026-12-31' });
});

test('dayStart and DayTable: the day of an instant in the zone, around midnight and DST changes', () => {
  const cases: [string, string, string][] = [
    ['Asia/Kolkata', '2026-03-10', '2026-03-09T18:30:00.000Z'],
    ['UTC', '2026-03-10', '2026-03-10T00:00:00.000Z'],
    ['America/Los_Angeles', '2026-03-08', '2026-03-08T08:00:00.000Z'], // the day clocks go forward, at 02:00
    ['America/Los_Angeles', '2026-03-09', '2026-03-09T07:00:00.000Z'],
    ['America/Sao_Paulo', '2018-11-04', '2018-11-04T03:00:00.000Z'], // clocks went from 00:00 to 01:00: the day began at 01:00
  ];
  for (const [zone, day, want] of cases) assert.equal(new Date(dayStart(day, zone)).toISOString(), want, `${zone} ${day}`);

  const days = new DayTable('2026-03-01', '2026-03-31', 'Asia/Kolkata');
  const instants: [string, string][] = [
    ['2026-03-10T18:29:59.999Z', '2026-03-10'],
    ['2026-03-10T18:30:00.000Z', '2026-03-11'],
    ['2026-02-28T18:30:00.000Z', '2026-03-01'],
    ['2026-03-31T18:29:59.999Z', '2026-03-31'],
    ['2026-03-31T18:30:00.000Z', '2026-04-01'], // past the table: through Intl
    ['2025-06-01T00:00:00.000Z', '2025-06-01'],
  ];
  for (const [iso, want] of instants) assert.equal(days.dayOf(iso), want, iso);
});

test('deliveryFigures: on time on or before the due date in the zone, turnaround in calendar days', () => {
  const days = new DayTable('2026-03-01', '2026-03-31', 'Asia/Kolkata');
  const figures = deliveryFigures(
    [
      // Delivered 2026-03-10 23:59 IST, due that day: on time; created 03-01 → 9 days.
      { createdAt: '2026-02-28T18:30:00.000Z', deliveredAt: '2026-03-10T18:29:00.000Z', dueDate: '2026-03-10' },
      // Delivered 2026-03-11 00:01 IST, due 03-10: late; created 03-09 23:59 IST → 2 days.
      { createdAt: '2026-03-09T18:29:00.000Z', deliveredAt: '2026-03-10T18:31:00.000Z', dueDate: '2026-03-10' },
      // No due date: counted as delivered, not in the rate; same day → 0 days.
      { createdAt: '2026-03-20T04:00:00.000Z', deliveredAt: '2026-03-20T10:00:00.000Z', dueDate: null },
    ],
    days,
  );
  assert.deepEqual(figures.onTime, { delivered: 3, withDueDate: 2, onTime: 1, rate: 0.5 });
  assert.deepEqual(figures.turnaround, { medianDays: 2, p90Days: 9 });
  assert.deepEqual([...figures.deliveredByMonth], [['2026-03', 3]]);
  assert.deepEqual(deliveryFigures([], days).turnaround, { medianDays: null, p90Days: null });
});

test('balanceFigures: by customer largest first with the oldest age, and the aging buckets', () => {
  const days = new DayTable('2026-01-01', '2026-03-31', 'UTC');
  const figures = balanceFigures(
    [
      { customerId: 'a', customerName: 'Acme', balance: 100n, verifiedAt: '2026-03-31T10:00:00.000Z' }, // 0 days
      { customerId: 'a', customerName: 'Acme', balance: 50n, verifiedAt: '2026-02-28T10:00:00.000Z' }, // 31 days
      { customerId: 'b', customerName: 'Brill', balance: 500n, verifiedAt: '2025-12-30T23:00:00.000Z' }, // 91 days
      { customerId: null, customerName: null, balance: 150n, verifiedAt: '2026-01-01T00:00:00.000Z' }, // 89 days
      { customerId: 'c', customerName: 'Paid', balance: 0n, verifiedAt: '2026-01-01T00:00:00.000Z' },
    ],
    '2026-03-31',
    days,
  );
  assert.deepEqual(figures.outstanding, [
    { customerId: 'b', customerName: 'Brill', balance: 500, oldestDays: 91 },
    { customerId: 'a', customerName: 'Acme', balance: 150, oldestDays: 31 },
    { customerId: null, customerName: null, balance: 150, oldestDays: 89 },
  ]);
  assert.deepEqual(figures.aging, { '0-30': 100, '31-60': 50, '61-90': 150, '90+': 500 });
});

test('agingStarts: the instants the database buckets by agree with agingBucket of the age in days', () => {
  const asOf = '2026-03-31';
  const days = new DayTable('2025-12-01', asOf, 'Asia/Kolkata');
  const [t30, t60, t90] = agingStarts(asOf, days);
  assert.deepEqual([t30, t60, t90], ['2026-02-28T18:30:00.000Z', '2026-01-29T18:30:00.000Z', '2025-12-30T18:30:00.000Z']);
  const bySql = (at: string) => (at >= t30 ? '0-30' : at >= t60 ? '31-60' : at >= t90 ? '61-90' : '90+');
  // Each bound and the instants either side of it (a ms before, the same day's last minute in IST).
  for (const bound of [t30, t60, t90]) {
    for (const ms of [-60_000, -1, 0, 1, 86_399_999]) {
      const at = new Date(Date.parse(bound) + ms).toISOString();
      assert.equal(bySql(at), agingBucket(daysBetween(days.dayOf(at), asOf)), at);
    }
  }
});
