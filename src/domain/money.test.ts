import assert from 'node:assert/strict';
import { test } from 'node:test';
import { MAX_AMOUNT, amountRefusal, formatMinor, isCurrencyCode, minorDigits, parseMajor } from './money.js';

test('MAX_AMOUNT is a safe integer, and so is the largest balance (an amount less a sum of payments)', () => {
  assert.ok(Number.isSafeInteger(MAX_AMOUNT));
  assert.ok(Number.isSafeInteger(-MAX_AMOUNT));
  assert.ok(MAX_AMOUNT < Number.MAX_SAFE_INTEGER);
});

test('isCurrencyCode: ISO 4217 codes in capitals, known to Intl', () => {
  for (const code of ['INR', 'USD', 'EUR', 'JPY', 'KWD', 'GBP']) assert.equal(isCurrencyCode(code), true, code);
  for (const code of ['inr', 'Inr', 'XXXX', 'RS', 'ABC', '', ' INR', 'INR ', 12, null, undefined, ['INR']]) assert.equal(isCurrencyCode(code), false, String(code));
});

test('minorDigits: the currency’s number of minor-unit digits', () => {
  const cases: [string, number][] = [
    ['INR', 2],
    ['USD', 2],
    ['EUR', 2],
    ['JPY', 0],
    ['KRW', 0],
    ['KWD', 3],
    ['BHD', 3],
  ];
  for (const [currency, digits] of cases) assert.equal(minorDigits(currency), digits, currency);
});

test('amountRefusal: whole numbers of minor units from 1 to MAX_AMOUNT', () => {
  for (const ok of [1, 100, 12_500_000, MAX_AMOUNT]) assert.equal(amountRefusal(ok), null, String(ok));
  const cases: [unknown, string][] = [
    [0, 'must be more than 0'],
    [-5, 'must be more than 0'],
    [1.5, 'must be a whole number of minor units (paise for INR)'],
    [0.1, 'must be a whole number of minor units (paise for INR)'],
    ['100', 'must be a whole number of minor units (paise for INR)'],
    [null, 'must be a whole number of minor units (paise for INR)'],
    [Number.NaN, 'must be a whole number of minor units (paise for INR)'],
    [Number.POSITIVE_INFINITY, 'must be a whole number of minor units (paise for INR)'],
    [MAX_AMOUNT + 1, `must be at most ${MAX_AMOUNT}`],
    [Number.MAX_SAFE_INTEGER, `must be at most ${MAX_AMOUNT}`],
    [1e20, `must be at most ${MAX_AMOUNT}`],
  ];
  for (const [value, want] of cases) assert.equal(amountRefusal(value), want, String(value));
});

test('formatMinor: major units with a dot and the currency’s digits, exact at any size', () => {
  const cases: [number | bigint | string, string, string][] = [
    [12_500_000, 'INR', '125000.00'],
    [1, 'INR', '0.01'],
    [10, 'INR', '0.10'],
    [0, 'INR', '0.00'],
    [-150, 'INR', '-1.50'],
    [-1, 'INR', '-0.01'],
    [5, 'JPY', '5'],
    [1234, 'KWD', '1.234'],
    [7, 'KWD', '0.007'],
    [MAX_AMOUNT, 'INR', '10000000000.00'],
    [Number.MAX_SAFE_INTEGER, 'INR', '90071992547409.91'],
    // Beyond the safe integers (a dashboard total), as a bigint or a string of digits.
    [2n ** 64n + 1n, 'INR', '184467440737095516.17'],
    ['18014398509481982', 'INR', '180143985094819.82'],
  ];
  for (const [amount, currency, want] of cases) assert.equal(formatMinor(amount, currency), want, `${amount} ${currency}`);
});

test('parseMajor: what a person types, as minor units, with string arithmetic', () => {
  const cases: [string, string, number | null][] = [
    ['125000', 'INR', 12_500_000],
    ['125000.5', 'INR', 12_500_050],
    ['125000.50', 'INR', 12_500_050],
    ['0.01', 'INR', 1],
    [' 12 ', 'INR', 1200],
    ['12.', 'INR', 1200],
    // 0.1 + 0.2 would not be 0.3 in floating point; here it is exact.
    ['0.3', 'INR', 30],
    ['1.005', 'INR', null],
    ['1.005', 'KWD', 1005],
    ['5', 'JPY', 5],
    ['5.0', 'JPY', null],
    ['10000000000.00', 'INR', MAX_AMOUNT],
    ['10000000000.01', 'INR', null],
    ['90071992547400.00', 'INR', null],
    ['', 'INR', null],
    ['.5', 'INR', null],
    ['-1', 'INR', null],
    ['1e3', 'INR', null],
    ['1,000', 'INR', null],
    ['abc', 'INR', null],
  ];
  for (const [text, currency, want] of cases) assert.equal(parseMajor(text, currency), want, `${JSON.stringify(text)} ${currency}`);
});
