import assert from 'node:assert/strict';
import { test } from 'node:test';
import { AppError } from '../errors.js';
import { MAX_AMOUNT } from './money.js';
import { balanceOf, paidRefusal, parsePayment, parsePi, paymentCurrency, piCurrencyRefusal } from './pi.js';

const message = (r: unknown) => (r instanceof AppError ? `${r.status} ${r.message}` : r);

test('parsePi: each field checked, in order, with a message naming it', () => {
  const ok = { number: ' PI-2026-014 ', amount: 12_500_000 };
  assert.deepEqual(parsePi(ok, 'INR'), { number: 'PI-2026-014', amount: 12_500_000, currency: 'INR', validUntil: null });
  assert.deepEqual(parsePi({ ...ok, currency: 'USD', validUntil: '2026-12-31' }, 'INR'), { number: 'PI-2026-014', amount: 12_500_000, currency: 'USD', validUntil: '2026-12-31' });
  const cases: [object, string][] = [
    [{ amount: 1 }, '400 PI number is required'],
    [{ number: '  ', amount: 1 }, '400 PI number is required'],
    [{ number: 42, amount: 1 }, '400 PI number must be text'],
    [{ number: 'x'.repeat(101), amount: 1 }, '400 PI number must be at most 100 characters'],
    [{ number: 'PI-1' }, '400 Amount is required'],
    [{ number: 'PI-1', amount: 0 }, '400 Amount must be more than 0'],
    [{ number: 'PI-1', amount: -100 }, '400 Amount must be more than 0'],
    [{ number: 'PI-1', amount: 10.5 }, '400 Amount must be a whole number of minor units (paise for INR)'],
    [{ number: 'PI-1', amount: '100' }, '400 Amount must be a whole number of minor units (paise for INR)'],
    [{ number: 'PI-1', amount: MAX_AMOUNT + 1 }, `400 Amount must be at most ${MAX_AMOUNT}`],
    [{ number: 'PI-1', amount: 1, currency: 'inr' }, '400 Currency must be an ISO 4217 currency code in capitals, such as INR'],
    [{ number: 'PI-1', amount: 1, currency: 'XYZ' }, '400 Currency must be an ISO 4217 currency code in capitals, such as INR'],
    [{ number: 'PI-1', amount: 1, validUntil: '2026-02-30' }, '400 Valid until must be a real date written YYYY-MM-DD'],
    [{ number: 'PI-1', amount: 1, validUntil: '31/12/2026' }, '400 Valid until must be a real date written YYYY-MM-DD'],
  ];
  for (const [input, want] of cases) assert.equal(message(parsePi(input, 'INR')), want, JSON.stringify(input));
});

test('parsePayment: amount, a received date not after today, optional currency, method and reference', () => {
  const today = '2026-03-10';
  assert.deepEqual(parsePayment({ amount: 500, receivedOn: today, method: ' UPI ', reference: '' }, today), {
    amount: 500,
    receivedOn: today,
    currency: null,
    method: 'UPI',
    reference: null,
  });
  const cases: [object, string][] = [
    [{ receivedOn: today }, '400 Amount is required'],
    [{ amount: 0, receivedOn: today }, '400 Amount must be more than 0'],
    [{ amount: 5 }, '400 Received on is required'],
    [{ amount: 5, receivedOn: '2026-3-1' }, '400 Received on must be a real date written YYYY-MM-DD'],
    [{ amount: 5, receivedOn: '2026-03-11' }, '400 Received on must not be in the future (today is 2026-03-10)'],
    [{ amount: 5, receivedOn: today, currency: 'RUPEES' }, '400 Currency must be an ISO 4217 currency code in capitals, such as INR'],
    [{ amount: 5, receivedOn: today, method: 'x'.repeat(101) }, '400 Method must be at most 100 characters'],
    [{ amount: 5, receivedOn: today, reference: 7 }, '400 Reference must be text'],
  ];
  for (const [input, want] of cases) assert.equal(message(parsePayment(input, today)), want, JSON.stringify(input));
});

test('paymentCurrency: the PI’s, else the earlier payments’, else CURRENCY; another is refused', () => {
  const cases: [string | null, string | null, string | null, string][] = [
    [null, 'USD', null, 'USD'],
    [null, 'USD', 'USD', 'USD'],
    [null, null, 'EUR', 'EUR'],
    [null, null, null, 'INR'],
    ['USD', null, null, 'USD'],
    ['USD', 'USD', null, 'USD'],
    ['INR', 'USD', null, "400 Currency must be USD, the currency of the project's PI"],
    ['INR', null, 'EUR', '400 Currency must be EUR, the currency of the payments already recorded'],
  ];
  for (const [sent, piCurrency, paymentsCurrency, want] of cases) {
    assert.equal(message(paymentCurrency(sent, { piCurrency, paymentsCurrency }, 'INR')), want, `${sent} ${piCurrency} ${paymentsCurrency}`);
  }
});

test('piCurrencyRefusal: a PI in another currency than the payments recorded', () => {
  assert.equal(piCurrencyRefusal('INR', null), null);
  assert.equal(piCurrencyRefusal('INR', 'INR'), null);
  assert.equal(message(piCurrencyRefusal('USD', 'INR')), '400 Currency must be INR, the currency of the payments already recorded');
});

test('paidRefusal and balanceOf: exact at the bounds', () => {
  assert.equal(paidRefusal(0, MAX_AMOUNT), null);
  assert.equal(paidRefusal(MAX_AMOUNT - 1, 1), null);
  assert.equal(message(paidRefusal(MAX_AMOUNT, 1)), `400 Amount would take this project's payments beyond ${MAX_AMOUNT} in all`);
  assert.equal(message(paidRefusal(1, MAX_AMOUNT)), `400 Amount would take this project's payments beyond ${MAX_AMOUNT} in all`);
  assert.equal(balanceOf(null, 500), null);
  assert.equal(balanceOf({ amount: MAX_AMOUNT }, 1), MAX_AMOUNT - 1);
  assert.equal(balanceOf({ amount: 1 }, MAX_AMOUNT), 1 - MAX_AMOUNT);
  assert.equal(balanceOf({ amount: MAX_AMOUNT }, MAX_AMOUNT), 0);
});
