import assert from 'node:assert/strict';
import { test } from 'node:test';
import { gstinCheckCharacter, gstinProblem, normalizeGstin } from './gstin.js';

const CASES: { gstin: string; problem: 'format' | 'check character' | null }[] = [
  { gstin: '27AAPFU0939F1ZV', problem: null },
  { gstin: '29AAGCB7383J1Z4', problem: null },
  { gstin: '33AAACH7409R1Z8', problem: null },
  // Each valid one with a wrong check character.
  { gstin: '27AAPFU0939F1ZW', problem: 'check character' },
  { gstin: '29AAGCB7383J1Z5', problem: 'check character' },
  { gstin: '33AAACH7409R1Z9', problem: 'check character' },
  // A changed character elsewhere: the check character no longer matches.
  { gstin: '27AAPFU0938F1ZV', problem: 'check character' },
  { gstin: '28AAPFU0939F1ZV', problem: 'check character' },
  // Format.
  { gstin: '27AAPFU0939F1Z', problem: 'format' },
  { gstin: '27AAPFU0939F1ZVX', problem: 'format' },
  { gstin: 'A7AAPFU0939F1ZV', problem: 'format' },
  { gstin: '271APFU0939F1ZV', problem: 'format' },
  { gstin: '27AAPFUA939F1ZV', problem: 'format' },
  { gstin: '27AAPFU093911ZV', problem: 'format' },
  { gstin: '27AAPFU0939F0ZV', problem: 'format' },
  { gstin: '27AAPFU0939F1YV', problem: 'format' },
  { gstin: '27aapfu0939f1zv', problem: 'format' },
  { gstin: '27AAPFU0939F1Z-', problem: 'format' },
  { gstin: '', problem: 'format' },
];

for (const c of CASES) {
  test(`gstinProblem(${JSON.stringify(c.gstin)}) = ${c.problem}`, () => assert.equal(gstinProblem(c.gstin), c.problem));
}

test('the check character of the valid examples', () => {
  assert.equal(gstinCheckCharacter('27AAPFU0939F1Z'), 'V');
  assert.equal(gstinCheckCharacter('29AAGCB7383J1Z'), '4');
  assert.equal(gstinCheckCharacter('33AAACH7409R1Z'), '8');
  assert.equal(gstinCheckCharacter('27AAPFU0939F1z'), null);
});

test('normalizeGstin: trimmed and upper case', () => {
  assert.equal(normalizeGstin(' 27aapfu0939f1zv '), '27AAPFU0939F1ZV');
  assert.equal(gstinProblem(normalizeGstin('27aapfu0939f1zv')), null);
});
