import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parseAmount, parseWhole, ungroup } from '../web/src/numbers.js';

/** Numbers as typed in the web app's forms (web/src/numbers.ts), issue 33 item 5: Indian and international digit grouping. */

test('ungroup takes Indian and international grouping and refuses commas out of place, saying where they go', () => {
  const cases: [string, string | RegExp][] = [
    ['20000', '20000'],
    ['20,000', '20000'],
    [' 1,75,230 ', '175230'],
    ['1,75,230.50', '175230.50'],
    ['12,34,56,789', '123456789'],
    ['175,230', '175230'],
    ['1,234,567.5', '1234567.5'],
    ['999', '999'],
    ['0.5', '0.5'],
    ['1,7,5230', /^has its commas in the wrong places: write 1,75,230 or 175,230 or 175230$/],
    ['17,52,30', /^has its commas in the wrong places: write 1,75,230 or 175,230 or 175230$/],
    ['20,00', /^has its commas in the wrong places: write 2,000 or 2000$/],
    [',500', /commas in the wrong places/],
    ['1,000,00', /commas in the wrong places: write 1,00,000 or 100,000 or 100000/],
    ['1,75,230.5,0', /commas before the point/],
    ['1.2.3', /at most one point/],
    ['', /^is required$/],
    ['   ', /^is required$/],
    ['abc', /^must be a number, such as 1,75,230 or 175230$/],
    ['₹500', /must be a number/],
    ['1e5', /must be a number/],
    ['-500', /^must be more than 0$/],
  ];
  for (const [text, expected] of cases) {
    const got = ungroup(text);
    if (typeof expected === 'string') assert.deepEqual(got, { plain: expected }, JSON.stringify(text));
    else {
      assert.ok('refusal' in got, `${JSON.stringify(text)} refused`);
      assert.match(got.refusal, expected, JSON.stringify(text));
    }
  }
});

test('parseWhole: quantities with grouping commas; a fraction is not a whole number', () => {
  const cases: [string, number | RegExp][] = [
    ['20,000', 20000],
    ['2,00,000', 200000],
    ['10,000,000', 10000000],
    ['0', 0],
    ['12.5', /^must be a whole number$/],
    ['2,0000', /commas in the wrong places: write 20,000 or 20000/],
    ['', /^is required$/],
  ];
  for (const [text, expected] of cases) {
    const got = parseWhole(text);
    if (typeof expected === 'number') assert.deepEqual(got, { value: expected }, text);
    else assert.match('refusal' in got ? got.refusal : 'accepted', expected, text);
  }
});

test('parseAmount: major units with grouping to minor units, exactly; the currency’s digits after the point', () => {
  const cases: [string, string, number | RegExp][] = [
    ['1,75,230', 'INR', 17523000],
    ['1,75,230.50', 'INR', 17523050],
    ['1,75,230.5', 'INR', 17523050],
    ['175,230.05', 'INR', 17523005],
    ['0.01', 'INR', 1],
    ['1,234', 'JPY', 1234],
    ['1.234', 'KWD', 1234],
    ['1,75,230.505', 'INR', /^may have at most 2 digits after the point$/],
    ['12.5', 'JPY', /no minor units/],
    ['0', 'INR', /^must be more than 0$/],
    ['0.00', 'INR', /^must be more than 0$/],
    ['99,999,999,999,999,999', 'INR', /^is too large$/],
    ['1,7,5230', 'INR', /commas in the wrong places: write 1,75,230 or 175,230 or 175230/],
  ];
  for (const [text, currency, expected] of cases) {
    const got = parseAmount(text, currency);
    if (typeof expected === 'number') assert.deepEqual(got, { value: expected }, `${text} ${currency}`);
    else assert.match('refusal' in got ? got.refusal : 'accepted', expected, `${text} ${currency}`);
  }
});
