import assert from 'node:assert/strict';
import { test } from 'node:test';
import { AppError } from '../errors.js';
import { type JobChange, diffLines, jobChanges, parseJob, resolveLines } from './job.js';
import type { JobItem } from './model.js';

const line = (over: Partial<JobItem> = {}): JobItem => ({
  id: 'l1',
  description: 'Leaflet A5',
  quantity: 1000,
  unit: 'pcs',
  size: null,
  stock: null,
  colours: null,
  finishing: null,
  notes: null,
  ...over,
});

const outcome = (r: JobChange | AppError) => (r instanceof AppError ? { status: r.status, error: r.message } : r);

test('parseJob: each field as sent, checked; the first refusal names the field', () => {
  const ok = (v: JobChange) => v;
  const refused = (error: string) => ({ status: 400, error });
  const cases: [string, Record<string, unknown>, unknown][] = [
    ['nothing', {}, ok({})],
    ['reference trimmed', { reference: '  PO-4471 ' }, ok({ reference: 'PO-4471' })],
    ['reference blank is cleared', { reference: '   ' }, ok({ reference: null })],
    ['reference null', { reference: null }, ok({ reference: null })],
    ['reference at its bound', { reference: 'x'.repeat(100) }, ok({ reference: 'x'.repeat(100) })],
    ['reference over its bound', { reference: 'x'.repeat(101) }, refused('Reference must be at most 100 characters')],
    ['reference a number', { reference: 4471 }, refused('Reference must be text')],
    ['address over its bound', { deliveryAddress: 'x'.repeat(1001) }, refused('Delivery address must be at most 1000 characters')],
    ['address in characters, not bytes', { deliveryAddress: 'é'.repeat(1000) }, ok({ deliveryAddress: 'é'.repeat(1000) })],
    ['dueDate', { dueDate: '2026-03-31' }, ok({ dueDate: '2026-03-31' })],
    ['dueDate leap day', { dueDate: '2028-02-29' }, ok({ dueDate: '2028-02-29' })],
    ['dueDate cleared', { dueDate: null }, ok({ dueDate: null })],
    ['dueDate 30 February', { dueDate: '2026-02-30' }, refused('Due date must be a real date written YYYY-MM-DD')],
    ['dueDate not a leap year', { dueDate: '2026-02-29' }, refused('Due date must be a real date written YYYY-MM-DD')],
    ['dueDate month 13', { dueDate: '2026-13-01' }, refused('Due date must be a real date written YYYY-MM-DD')],
    ['dueDate with a time', { dueDate: '2026-03-31T00:00:00Z' }, refused('Due date must be a real date written YYYY-MM-DD')],
    ['dueDate another order', { dueDate: '31/03/2026' }, refused('Due date must be a real date written YYYY-MM-DD')],
    ['dueDate blank', { dueDate: '' }, refused('Due date must be a real date written YYYY-MM-DD')],
    ['dueDate a number', { dueDate: 20260331 }, refused('Due date must be a real date written YYYY-MM-DD')],
    ['no lines', { items: [] }, ok({ items: [] })],
    [
      'a line with only what is required: unit pcs, the rest null',
      { items: [{ description: ' Leaflet A5 ', quantity: 1000 }] },
      ok({ items: [{ description: 'Leaflet A5', quantity: 1000, unit: 'pcs', size: null, stock: null, colours: null, finishing: null, notes: null }] }),
    ],
    [
      'a whole line, with the id of a line it keeps',
      { items: [{ id: 'l1', description: 'Poster', quantity: 1, unit: 'sheets', size: 'A1', stock: '170 gsm silk', colours: '4/0', finishing: 'trim', notes: ' urgent ' }] },
      ok({ items: [{ id: 'l1', description: 'Poster', quantity: 1, unit: 'sheets', size: 'A1', stock: '170 gsm silk', colours: '4/0', finishing: 'trim', notes: 'urgent' }] }),
    ],
    ['a blank unit is pcs', { items: [{ description: 'x', quantity: 1, unit: '  ' }] }, ok({ items: [{ description: 'x', quantity: 1, unit: 'pcs', size: null, stock: null, colours: null, finishing: null, notes: null }] })],
    ['quantity at its bounds', { items: [{ description: 'x', quantity: 1 }, { description: 'y', quantity: 10_000_000 }] }, 'ok'],
    ['items not a list', { items: { description: 'x', quantity: 1 } }, refused('Items must be a list')],
    ['items null', { items: null }, refused('Items must be a list')],
    ['50 lines', { items: Array.from({ length: 50 }, () => ({ description: 'x', quantity: 1 })) }, 'ok'],
    ['51 lines', { items: Array.from({ length: 51 }, () => ({ description: 'x', quantity: 1 })) }, refused('Items must have at most 50 entries')],
    ['a line not an object', { items: [{ description: 'x', quantity: 1 }, 'y'] }, refused('Line 2 must be an object')],
    ['a line a list', { items: [[]] }, refused('Line 1 must be an object')],
    ['an unknown field of a line', { items: [{ description: 'x', quantity: 1, colour: 'red' }] }, refused('Line 1 colour is not a known field')],
    ['a line without description', { items: [{ quantity: 1 }] }, refused('Line 1 description is required')],
    ['a blank description', { items: [{ description: '  ', quantity: 1 }] }, refused('Line 1 description is required')],
    ['a description over its bound', { items: [{ description: 'x'.repeat(501), quantity: 1 }] }, refused('Line 1 description must be at most 500 characters')],
    ['a line without quantity', { items: [{ description: 'x' }] }, refused('Line 1 quantity is required')],
    ['quantity 0', { items: [{ description: 'x', quantity: 0 }] }, refused('Line 1 quantity must be at least 1')],
    ['quantity negative', { items: [{ description: 'x', quantity: -5 }] }, refused('Line 1 quantity must be at least 1')],
    ['quantity 10,000,001', { items: [{ description: 'x', quantity: 10_000_001 }] }, refused('Line 1 quantity must be at most 10000000')],
    ['quantity 1.5', { items: [{ description: 'x', quantity: 1.5 }] }, refused('Line 1 quantity must be a whole number')],
    ['quantity "3"', { items: [{ description: 'x', quantity: '3' }] }, refused('Line 1 quantity must be a whole number')],
    ['quantity null', { items: [{ description: 'x', quantity: null }] }, refused('Line 1 quantity must be a whole number')],
    ['quantity Infinity', { items: [{ description: 'x', quantity: Infinity }] }, refused('Line 1 quantity must be a whole number')],
    ['a unit over its bound', { items: [{ description: 'x', quantity: 1, unit: 'x'.repeat(21) }] }, refused('Line 1 unit must be at most 20 characters')],
    ['size over its bound', { items: [{ description: 'x', quantity: 1, size: 'x'.repeat(101) }] }, refused('Line 1 size must be at most 100 characters')],
    ['stock over its bound', { items: [{ description: 'x', quantity: 1, stock: 'x'.repeat(201) }] }, refused('Line 1 stock must be at most 200 characters')],
    ['colours over its bound', { items: [{ description: 'x', quantity: 1, colours: 'x'.repeat(101) }] }, refused('Line 1 colours must be at most 100 characters')],
    ['finishing over its bound', { items: [{ description: 'x', quantity: 1, finishing: 'x'.repeat(201) }] }, refused('Line 1 finishing must be at most 200 characters')],
    ['notes over its bound', { items: [{ description: 'x', quantity: 1, notes: 'x'.repeat(1001) }] }, refused('Line 1 notes must be at most 1000 characters')],
    ['notes not text', { items: [{ description: 'x', quantity: 1, notes: 5 }] }, refused('Line 1 notes must be text')],
    ['an id not text', { items: [{ id: 7, description: 'x', quantity: 1 }] }, refused('Line 1 id must be text')],
    ['the third line wrong', { items: [{ description: 'a', quantity: 1 }, { description: 'b', quantity: 2 }, { description: 'c', quantity: 0 }] }, refused('Line 3 quantity must be at least 1')],
  ];
  for (const [label, input, want] of cases) {
    const got = outcome(parseJob(input));
    if (want === 'ok') assert.ok(!('error' in got), `${label}: ${JSON.stringify(got)}`);
    else assert.deepEqual(got, want, label);
  }
});

test('resolveLines: an id keeps its line, once; a line without one is new', () => {
  let n = 0;
  const newId = () => `new${++n}`;
  const current = [line({ id: 'a' }), line({ id: 'b' })];
  const draft = (id?: string) => ({ ...line(), id });
  assert.deepEqual(
    (resolveLines([draft('b'), draft(), draft('a')], current, newId) as JobItem[]).map((l) => l.id),
    ['b', 'new1', 'a'],
  );
  const unknown = resolveLines([draft('a'), draft('zzz')], current, newId);
  assert.ok(unknown instanceof AppError);
  assert.deepEqual([unknown.status, unknown.message], [400, 'Line 2 id is not a line of this project']);
  const twice = resolveLines([draft('a'), draft('a')], current, newId);
  assert.ok(twice instanceof AppError);
  assert.deepEqual([twice.status, twice.message], [400, 'Line 2 id repeats an earlier line']);
  assert.deepEqual(resolveLines([], current, newId), []);
});

test('diffLines: which lines were added, changed, removed or moved, by their numbers', () => {
  const a = line({ id: 'a', description: 'A' });
  const b = line({ id: 'b', description: 'B' });
  const c = line({ id: 'c', description: 'C' });
  const cases: [string, JobItem[], JobItem[], unknown][] = [
    ['nothing to nothing', [], [], null],
    ['the same', [a, b], [a, b], null],
    ['a line added at the end', [a], [a, b], { before: 1, after: 2, added: [2], changed: [], removed: [], reordered: false }],
    ['the first removed', [a, b, c], [b, c], { before: 3, after: 2, added: [], changed: [], removed: [1], reordered: false }],
    ['the second changed', [a, b], [a, { ...b, quantity: 5 }], { before: 2, after: 2, added: [], changed: [2], removed: [], reordered: false }],
    ['a null field set', [a], [{ ...a, finishing: 'matt lamination' }], { before: 1, after: 1, added: [], changed: [1], removed: [], reordered: false }],
    ['swapped', [a, b], [b, a], { before: 2, after: 2, added: [], changed: [], removed: [], reordered: true }],
    ['one removed before the others: not a move', [a, b, c], [a, c], { before: 3, after: 2, added: [], changed: [], removed: [2], reordered: false }],
    ['all replaced (no ids sent)', [a, b], [line({ id: 'x' }), line({ id: 'y' })], { before: 2, after: 2, added: [1, 2], changed: [], removed: [1, 2], reordered: false }],
    ['cleared', [a, b], [], { before: 2, after: 0, added: [], changed: [], removed: [1, 2], reordered: false }],
  ];
  for (const [label, before, after, want] of cases) assert.deepEqual(diffLines(before, after), want, label);
  // Never more than 50 numbers per list: the lines are at most 50.
  const fifty = Array.from({ length: 50 }, (_, i) => line({ id: `o${i}` }));
  const others = Array.from({ length: 50 }, (_, i) => line({ id: `n${i}` }));
  const all = diffLines(fifty, others)!;
  assert.equal(all.added.length, 50);
  assert.equal(all.removed.length, 50);
});

test('jobChanges: the fields that differ, the due date from and to, the lines', () => {
  const current = { reference: 'PO-1', dueDate: '2026-03-10', deliveryAddress: null, items: [line({ id: 'a' })] };
  assert.deepEqual(jobChanges(current, {}), { changed: [], details: {} });
  assert.deepEqual(jobChanges(current, { reference: 'PO-1', dueDate: '2026-03-10', items: current.items }), { changed: [], details: {} });
  assert.deepEqual(jobChanges(current, { dueDate: '2026-03-12', deliveryAddress: 'Pune' }), {
    changed: ['dueDate', 'deliveryAddress'],
    details: { dueDate: { from: '2026-03-10', to: '2026-03-12' } },
  });
  assert.deepEqual(jobChanges(current, { dueDate: null, reference: null, items: [] }), {
    changed: ['reference', 'dueDate', 'items'],
    details: { dueDate: { from: '2026-03-10', to: null }, items: { before: 1, after: 0, added: [], changed: [], removed: [1], reordered: false } },
  });
});
