import assert from 'node:assert/strict';
import { test } from 'node:test';
import { AppError } from '../errors.js';
import { nameKey, parseCustomer } from './customer.js';

test('nameKey: case, surrounding and repeated spaces do not make another name', () => {
  for (const [a, b] of [
    ['Acme Prints', 'acme prints'],
    ['  ACME   Prints ', 'acme prints'],
    ['Ünïcode Ltd', 'ünïcode ltd'],
  ]) assert.equal(nameKey(a!), b);
  assert.notEqual(nameKey('Acme Prints'), nameKey('Acme Print'));
});

const CASES: { name: string; input: Parameters<typeof parseCustomer>[0]; creating: boolean; result: Record<string, unknown> | string }[] = [
  { name: 'a name only', input: { name: ' Acme  Prints ' }, creating: true, result: { name: 'Acme Prints' } },
  { name: 'no name on creation', input: {}, creating: true, result: 'Name is required' },
  { name: 'blank name', input: { name: '  ' }, creating: false, result: 'Name is required' },
  { name: 'no name on a change', input: { phone: '123' }, creating: false, result: { phone: '123' } },
  { name: 'name too long', input: { name: 'x'.repeat(201) }, creating: true, result: 'Name must be at most 200 characters' },
  { name: 'name of 200', input: { name: 'x'.repeat(200) }, creating: true, result: { name: 'x'.repeat(200) } },
  { name: 'lower-case GSTIN is upper-cased', input: { name: 'A', gstin: '27aapfu0939f1zv' }, creating: true, result: { name: 'A', gstin: '27AAPFU0939F1ZV' } },
  { name: 'GSTIN bad check', input: { name: 'A', gstin: '27AAPFU0939F1ZW' }, creating: true, result: 'GSTIN check character does not match: please check the number' },
  { name: 'GSTIN bad format', input: { name: 'A', gstin: '27AAPFU0939' }, creating: true, result: 'GSTIN must be 15 characters: 2 digits, a 10-character PAN, an entity character, Z and a check character' },
  { name: 'blank GSTIN clears', input: { gstin: ' ' }, creating: false, result: { gstin: null } },
  { name: 'null clears', input: { email: null, phone: null, billingAddress: null, gstin: null }, creating: false, result: { email: null, phone: null, billingAddress: null, gstin: null } },
  { name: 'email not whole', input: { name: 'A', email: 'priya@example' }, creating: true, result: 'Email must be a full address, like name@example.com' },
  { name: 'email whole', input: { name: 'A', email: ' accounts@acme.in ' }, creating: true, result: { name: 'A', email: 'accounts@acme.in' } },
  { name: 'phone too long', input: { phone: '1'.repeat(41) }, creating: false, result: 'Phone must be at most 40 characters' },
  { name: 'billing address too long', input: { billingAddress: 'x'.repeat(1001) }, creating: false, result: 'Billing address must be at most 1000 characters' },
  { name: 'active', input: { active: false }, creating: false, result: { active: false } },
];

for (const c of CASES) {
  test(`parseCustomer: ${c.name}`, () => {
    const r = parseCustomer(c.input, c.creating);
    if (typeof c.result === 'string') {
      assert.ok(r instanceof AppError);
      assert.equal(r.status, 400);
      assert.equal(r.message, c.result);
    } else assert.deepEqual(r, c.result);
  });
}
