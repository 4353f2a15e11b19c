import assert from 'node:assert/strict';
import { test } from 'node:test';
import { MAX_LENGTH, type LimitedField, emailRefusal, passwordRefusal, textRefusal } from './limits.js';

const message = (e: { message: string } | null) => e?.message ?? null;

test('textRefusal: required and bounded, the bound in the message, counted in characters after trimming', () => {
  const cases: [LimitedField, string | null | undefined, boolean, string | null][] = [
    ['name', 'Brochures', true, null],
    ['name', '', true, 'Name is required'],
    ['name', '   ', true, 'Name is required'],
    ['name', undefined, true, 'Name is required'],
    ['name', 'x'.repeat(200), true, null],
    ['name', ` ${'x'.repeat(200)} `, true, null],
    ['name', 'x'.repeat(201), true, 'Name must be at most 200 characters'],
    ['name', 'é'.repeat(200), true, null],
    ['description', null, false, null],
    ['description', 'x'.repeat(5001), false, 'Description must be at most 5000 characters'],
    ['note', 'x'.repeat(1001), false, 'Note must be at most 1000 characters'],
    ['phone', '+91 '.repeat(11), false, 'Phone must be at most 40 characters'],
    ['location', 'x'.repeat(201), false, 'Location must be at most 200 characters'],
    ['branch', 'x'.repeat(201), false, 'Branch must be at most 200 characters'],
    ['email', `${'x'.repeat(250)}@a.io`, true, 'Email must be at most 254 characters'],
    ['reference', 'x'.repeat(100), false, null],
    ['reference', 'x'.repeat(101), false, 'Reference must be at most 100 characters'],
    ['deliveryAddress', 'x'.repeat(1000), false, null],
    ['deliveryAddress', 'x'.repeat(1001), false, 'Delivery address must be at most 1000 characters'],
    ['number', 'x'.repeat(101), true, 'PI number must be at most 100 characters'],
    ['number', '  ', true, 'PI number is required'],
    ['method', 'x'.repeat(101), false, 'Method must be at most 100 characters'],
    ['billingAddress', 'x'.repeat(1000), false, null],
    ['billingAddress', 'x'.repeat(1001), false, 'Billing address must be at most 1000 characters'],
    ['reason', 'x'.repeat(501), true, 'Reason must be at most 500 characters'],
    ['reason', '', true, 'Reason is required'],
    ['body', '👍'.repeat(5000), true, null],
    ['body', 'x'.repeat(5001), true, 'Comment must be at most 5000 characters'],
  ];
  for (const [field, value, required, want] of cases) {
    assert.equal(message(textRefusal(field, value, required)), want, `${field} ${JSON.stringify(value)?.slice(0, 20)}`);
  }
  assert.equal(Object.keys(MAX_LENGTH).length, 14, 'each bounded field has its cases above');
});

test('passwordRefusal: at least 8 characters, at most the 72 bytes bcrypt reads', () => {
  const cases: [string, string | null][] = [
    ['', 'Password must be at least 8 characters'],
    ['a', 'Password must be at least 8 characters'],
    ['1234567', 'Password must be at least 8 characters'],
    ['12345678', null],
    ['x'.repeat(72), null],
    ['x'.repeat(73), 'Password must be at most 72 bytes'],
    ['é'.repeat(36), null],
    ['é'.repeat(37), 'Password must be at most 72 bytes'],
  ];
  for (const [pw, want] of cases) assert.equal(message(passwordRefusal(pw)), want, `${pw.length} characters`);
});

test('emailRefusal: a whole address, with a domain ending', () => {
  const refused = 'Email must be a full address, like name@example.com';
  const cases: [string, string | null][] = [
    ['priya@example.com', null],
    [' Priya.Sharma+print@mail.example.co.in ', null],
    ['ravi@xn--p1ai.xn--p1ai', null],
    ['रवि@उदाहरण.भारत', null],
    ['priya@example', refused],
    ['priya@example.', refused],
    ['priya@.com', refused],
    ['priya@example.c', refused],
    ['priya@10.0.0.1', refused],
    ['priya', refused],
    ['@example.com', refused],
    ['priya@@example.com', refused],
    ['priya sharma@example.com', refused],
    ['priya@exa mple.com', refused],
    ['', refused],
  ];
  for (const [email, want] of cases) assert.equal(message(emailRefusal(email)), want, JSON.stringify(email));
});
