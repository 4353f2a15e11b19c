import assert from 'node:assert/strict';
import { test } from 'node:test';
import { amountInWords, financialYear, formatAmountIndian, groupIndian, invoiceNumber, isInvoicePrefix, numberInWords, placeOfSupply } from './indian.js';

test('groupIndian and formatAmountIndian: the last three digits, then pairs', () => {
  const cases: [string, string][] = [
    ['0', '0'],
    ['999', '999'],
    ['1000', '1,000'],
    ['125000', '1,25,000'],
    ['1234567', '12,34,567'],
    ['12500000', '1,25,00,000'],
    ['123456789012', '1,23,45,67,89,012'],
  ];
  for (const [digits, want] of cases) assert.equal(groupIndian(digits), want, digits);
  assert.equal(formatAmountIndian(12_500_050, 'INR'), '1,25,000.50');
  assert.equal(formatAmountIndian(5, 'INR'), '0.05');
  assert.equal(formatAmountIndian(0, 'INR'), '0.00');
  assert.equal(formatAmountIndian(1_234_567, 'JPY'), '12,34,567');
  assert.equal(formatAmountIndian(-150, 'INR'), '-1.50');
});

test('numberInWords: crore, lakh, thousand, hundred; tens hyphenated; no "and"', () => {
  const cases: [bigint, string][] = [
    [0n, 'Zero'],
    [1n, 'One'],
    [15n, 'Fifteen'],
    [20n, 'Twenty'],
    [42n, 'Forty-Two'],
    [100n, 'One Hundred'],
    [105n, 'One Hundred Five'],
    [999n, 'Nine Hundred Ninety-Nine'],
    [1000n, 'One Thousand'],
    [1001n, 'One Thousand One'],
    [99_999n, 'Ninety-Nine Thousand Nine Hundred Ninety-Nine'],
    [1_00_000n, 'One Lakh'],
    [1_25_000n, 'One Lakh Twenty-Five Thousand'],
    [10_00_000n, 'Ten Lakh'],
    [1_00_00_000n, 'One Crore'],
    [12_34_56_789n, 'Twelve Crore Thirty-Four Lakh Fifty-Six Thousand Seven Hundred Eighty-Nine'],
    [100_00_00_000n, 'One Hundred Crore'],
    [10n ** 11n, 'Ten Thousand Crore'],
    [10n ** 12n, 'One Lakh Crore'],
  ];
  for (const [n, want] of cases) assert.equal(numberInWords(n), want, String(n));
});

test('amountInWords: INR in rupees and paise, Rupee for exactly one, Only at the end; other currencies none', () => {
  const cases: [number, string][] = [
    [1_25_000_50, 'One Lakh Twenty-Five Thousand Rupees and Fifty Paise Only'],
    [100, 'One Rupee Only'],
    [101, 'One Rupee and One Paise Only'],
    [200, 'Two Rupees Only'],
    [5, 'Zero Rupees and Five Paise Only'],
    [0, 'Zero Rupees Only'],
    [2_95_044, 'Two Thousand Nine Hundred Fifty Rupees and Forty-Four Paise Only'],
    [1_00_00_000_99, 'One Crore Rupees and Ninety-Nine Paise Only'],
  ];
  for (const [paise, want] of cases) assert.equal(amountInWords(paise, 'INR'), want, String(paise));
  assert.equal(amountInWords(100, 'USD'), null);
});

test('financialYear: April to March', () => {
  const cases: [string, string][] = [
    ['2026-04-01', '2026-27'],
    ['2026-03-31', '2025-26'],
    ['2027-03-31', '2026-27'],
    ['2026-12-31', '2026-27'],
    ['2099-04-01', '2099-00'],
    ['2000-01-15', '1999-00'],
  ];
  for (const [date, want] of cases) assert.equal(financialYear(date), want, date);
});

test('invoiceNumber, isInvoicePrefix, placeOfSupply', () => {
  assert.equal(invoiceNumber('INV', '2026-27', 1), 'INV/2026-27/0001');
  assert.equal(invoiceNumber('A-1', '2026-27', 12345), 'A-1/2026-27/12345');
  for (const ok of ['INV', 'A', 'inv-2', '0123456789']) assert.equal(isInvoicePrefix(ok), true, ok);
  for (const bad of ['', 'INV/', 'IN V', '01234567890', 'इन', null, 5]) assert.equal(isInvoicePrefix(bad), false, String(bad));
  assert.equal(placeOfSupply('29'), 'Karnataka (29)');
  assert.equal(placeOfSupply('27'), 'Maharashtra (27)');
  assert.equal(placeOfSupply('07'), 'Delhi (07)');
  assert.equal(placeOfSupply(null), null);
});
