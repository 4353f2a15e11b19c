import assert from 'node:assert/strict';
import { test } from 'node:test';
import { formatMoney, todayIso } from '../web/src/money.js';
import { formatBytes, isOwnershipRefusal, uploadBlocker, wordsAround } from '../web/src/words.js';

/** The web app's money format (web/src/format.ts): minor units to text without floating point. */

test('formatMoney writes minor units in the currency, INR in the Indian grouping, exactly', () => {
  const cases: [number | string, string, string][] = [
    [12500000, 'INR', '₹1,25,000.00'],
    [12500050, 'INR', '₹1,25,000.50'],
    [1, 'INR', '₹0.01'],
    [0, 'INR', '₹0.00'],
    [-150, 'INR', '-₹1.50'],
    // Past 2^53 as a number would lose the last digits; the string of digits keeps them.
    ['9007199254740993', 'INR', '₹9,00,71,99,25,47,409.93'],
    [9_007_199_254_740_000, 'INR', '₹9,00,71,99,25,47,400.00'],
    // 0.1 + 0.2 style sums: 30 paise stay 30 paise.
    [30, 'INR', '₹0.30'],
  ];
  for (const [amount, currency, text] of cases) assert.equal(formatMoney(amount, currency), text, `${amount} ${currency}`);
});

test('formatMoney follows the currency’s minor digits (JPY none, KWD three)', () => {
  assert.match(formatMoney(1234, 'JPY'), /1,234/);
  assert.doesNotMatch(formatMoney(1234, 'JPY'), /\./);
  assert.match(formatMoney(1234, 'KWD'), /1\.234/);
  assert.match(formatMoney(123456, 'USD'), /1,234\.56/);
});

test('todayIso is the local calendar date', () => {
  assert.equal(todayIso(new Date(2026, 0, 5, 23, 59)), '2026-01-05');
  assert.equal(todayIso(new Date(2026, 11, 31, 0, 0)), '2026-12-31');
});

test('uploadBlocker names the true reason: someone who does not own the project is told so, whatever its state (issue 33 item 1)', () => {
  const notYours = 'You can only upload files to your own projects';
  const dispatched = { status: 'DISPATCHED', approval: null, piStatus: 'VERIFIED' } as const;
  const cases: [Parameters<typeof uploadBlocker>, string | null][] = [
    [[dispatched, 'CHALLAN', false, notYours], notYours],
    [[dispatched, 'PO', false, notYours], notYours],
    [[{ status: 'REQUESTED', approval: null, piStatus: 'PENDING' }, 'INVOICE', false, notYours], notYours],
    [[dispatched, 'CHALLAN', false, null], null],
    [[{ status: 'PRINTING', approval: null, piStatus: 'VERIFIED' }, 'CHALLAN', false, 'Challan can only be uploaded after dispatch'], 'A challan can be added once the project is dispatched (now: printing).'],
    [[{ status: 'CANCELLED', approval: null, piStatus: 'VERIFIED' }, 'PO', true, 'PO can only be uploaded after project approval'], 'The project is cancelled: no documents can be added.'],
  ];
  for (const [args, expected] of cases) assert.equal(uploadBlocker(...args), expected, JSON.stringify(args));
  assert.equal(isOwnershipRefusal(notYours), true);
  assert.equal(isOwnershipRefusal('Challan can only be uploaded after dispatch'), false);
  assert.equal(isOwnershipRefusal(null), false);
});

test('wordsAround names the project in the action where a list shows it, never "the project in" (issue 33 item 7)', () => {
  const cases: [string, string, [string, string]][] = [
    ['PROJECT_CREATED', 'created the project', ['created', '']],
    ['PROJECT_DELIVERED', 'marked the project delivered', ['marked', 'delivered']],
    ['PROJECT_APPROVED', 'approved the project', ['approved', '']],
    ['COMMENT_ADDED', 'commented', ['commented on', '']],
    ['PO_UPLOADED', 'uploaded a PO', ['uploaded a PO to', '']],
    ['INVOICE_VOIDED', 'withdrew an invoice', ['withdrew an invoice from', '']],
    ['PI_VERIFIED', 'verified the PI', ['verified the PI for', '']],
    ['PAYMENT_RECORDED', 'recorded a payment', ['recorded a payment on', '']],
    ['SOMETHING_OLD', 'something old', ['something old on', '']],
  ];
  for (const [action, label, words] of cases) assert.deepEqual(wordsAround(action, label), words, action);
});

test('formatBytes counts in steps of 1024: the 100 MiB limit reads 100 MB (issue 33 item 7)', () => {
  assert.match(formatBytes(100 * 1024 * 1024), /^100 MB$/);
  assert.match(formatBytes(1536), /^1\.5 kB$/);
  assert.match(formatBytes(512), /^512 bytes$/);
});

test('jobName: a project as people name it, the same in the web app, the emails and the ticket', async () => {
  const { jobName } = await import('../src/domain/labels.js');
  const cases: [{ name: string; number?: number }, string][] = [
    [{ name: 'Wedding cards', number: 1042 }, '#1042 Wedding cards'],
    [{ name: 'Wedding cards', number: 1 }, '#1 Wedding cards'],
    [{ name: 'Wedding cards' }, 'Wedding cards'],
    [{ name: '#7 in the name', number: 8 }, '#8 #7 in the name'],
  ];
  for (const [project, expected] of cases) assert.equal(jobName(project), expected);
});
