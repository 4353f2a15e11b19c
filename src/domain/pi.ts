import { AppError, errors } from '../errors.js';
import { isCalendarDate } from './due.js';
import { textRefusal } from './limits.js';
import type { PiFigures } from './model.js';
import { MAX_AMOUNT, amountRefusal, isCurrencyCode } from './money.js';

/**
 * The PI's figures and the payments (interface.md, "The PI and payments"), as pure rules: the
 * checks of a submit-pi body and of a payment, the currency a payment or a PI may be in, and the
 * balance. A project's payments are all in one currency, the PI's once there is one: a payment in
 * another is refused, and so is a PI in another than the payments already recorded (README,
 * decisions), so `paid` and `balance` never add up two currencies.
 */

export interface PiInput {
  number?: unknown;
  amount?: unknown;
  currency?: unknown;
  validUntil?: unknown;
}

export interface PaymentInput {
  amount?: unknown;
  receivedOn?: unknown;
  currency?: unknown;
  method?: unknown;
  reference?: unknown;
}

/** A payment's checked fields; `currency` is null when the request named none (paymentCurrency decides). */
export interface PaymentDraft {
  amount: number;
  receivedOn: string;
  currency: string | null;
  method: string | null;
  reference: string | null;
}

const amountOf = (value: unknown): number | AppError => {
  if (value === undefined || value === null) return errors.invalidField('amount', 'is required');
  const refusal = amountRefusal(value);
  return refusal ? errors.invalidField('amount', refusal) : (value as number);
};

/** The currency sent (an ISO 4217 code in capitals), null when none is, or the refusal. */
const currencyOf = (value: unknown): string | null | AppError => {
  if (value === undefined || value === null) return null;
  return isCurrencyCode(value) ? value : errors.invalidField('currency', 'must be an ISO 4217 currency code in capitals, such as INR');
};

/** Optional bounded text: trimmed, blank is null. */
const optionalText = (field: 'method' | 'reference', value: unknown): string | null | AppError => {
  if (value === undefined || value === null) return null;
  if (typeof value !== 'string') return errors.invalidField(field, 'must be text');
  return textRefusal(field, value) ?? (value.trim() || null);
};

/** A submit-pi body's figures, checked in the order of the fields; the currency defaults to CURRENCY. */
export function parsePi(input: PiInput, defaultCurrency: string): PiFigures | AppError {
  if (input.number === undefined || input.number === null) return errors.invalidField('number', 'is required');
  if (typeof input.number !== 'string') return errors.invalidField('number', 'must be text');
  const numberRefusal = textRefusal('number', input.number, true);
  if (numberRefusal) return numberRefusal;
  const amount = amountOf(input.amount);
  if (amount instanceof AppError) return amount;
  const currency = currencyOf(input.currency);
  if (currency instanceof AppError) return currency;
  if (input.validUntil !== undefined && input.validUntil !== null && !isCalendarDate(input.validUntil)) {
    return errors.invalidField('validUntil', 'must be a real date written YYYY-MM-DD');
  }
  return { number: input.number.trim(), amount, currency: currency ?? defaultCurrency, validUntil: (input.validUntil as string | null | undefined) ?? null };
}

/** A payment's fields, checked; `today` is the date in the shop's time zone, the latest a payment can have been received. */
export function parsePayment(input: PaymentInput, today: string): PaymentDraft | AppError {
  const amount = amountOf(input.amount);
  if (amount instanceof AppError) return amount;
  if (input.receivedOn === undefined || input.receivedOn === null) return errors.invalidField('receivedOn', 'is required');
  if (!isCalendarDate(input.receivedOn)) return errors.invalidField('receivedOn', 'must be a real date written YYYY-MM-DD');
  if (input.receivedOn > today) return errors.invalidField('receivedOn', `must not be in the future (today is ${today})`);
  const currency = currencyOf(input.currency);
  if (currency instanceof AppError) return currency;
  const method = optionalText('method', input.method);
  if (method instanceof AppError) return method;
  const reference = optionalText('reference', input.reference);
  if (reference instanceof AppError) return reference;
  return { amount, receivedOn: input.receivedOn, currency, method, reference };
}

/**
 * The currency of a new payment: the one sent, else the project's (its PI's, else its earlier
 * payments'), else CURRENCY (an advance before any PI). One other than the project's is refused.
 */
export function paymentCurrency(sent: string | null, project: { piCurrency: string | null; paymentsCurrency: string | null }, defaultCurrency: string): string | AppError {
  const own = project.piCurrency ?? project.paymentsCurrency;
  if (sent === null) return own ?? defaultCurrency;
  if (own !== null && sent !== own) {
    return errors.invalidField('currency', `must be ${own}, the currency of ${project.piCurrency !== null ? "the project's PI" : "the payments already recorded"}`);
  }
  return sent;
}

/** A PI submitted in a currency other than the payments already recorded is refused: they would no longer add up against it. */
export function piCurrencyRefusal(piCurrency: string, paymentsCurrency: string | null): AppError | null {
  if (paymentsCurrency === null || paymentsCurrency === piCurrency) return null;
  return errors.invalidField('currency', `must be ${paymentsCurrency}, the currency of the payments already recorded`);
}

/** A payment that would take the project's payments together beyond MAX_AMOUNT (so sums and balances stay exact). */
export function paidRefusal(paid: number, amount: number): AppError | null {
  return amount > MAX_AMOUNT - paid ? errors.invalidField('amount', `would take this project's payments beyond ${MAX_AMOUNT} in all`) : null;
}

/** What is still owed: the PI's amount less the payments (negative when overpaid); null without a PI. */
export const balanceOf = (pi: { amount: number } | null, paid: number): number | null => (pi ? pi.amount - paid : null);
