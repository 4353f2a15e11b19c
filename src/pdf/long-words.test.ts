import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { breakLongWords, newDocument } from './document.js';

describe('breakLongWords (over-long words cut before pdfkit wraps them)', () => {
  const doc = newDocument({ title: 'test' });
  const fits = (piece: string, font: string, size: number, width: number) => doc.font(font).fontSize(size).widthOfString(piece) <= width;

  const cases: { name: string; text: string; width: number; font?: 'regular' | 'bold'; size?: number; same?: boolean }[] = [
    { name: 'short words: unchanged', text: 'Visiting cards, 350 gsm', width: 100, same: true },
    { name: 'empty: unchanged', text: '', width: 100, same: true },
    { name: 'a word that just fits: unchanged', text: 'Lamination', width: 60, same: true },
    { name: 'a 5,000-character word in a narrow column', text: 'abcdefghij'.repeat(500), width: 44 },
    { name: 'a long word between short ones, spaces kept', text: `Offset ${'W'.repeat(300)} print\nsecond line`, width: 80 },
    { name: 'Devanagari: cut between graphemes', text: 'निमंत्रण'.repeat(200), width: 60, font: 'bold', size: 12 },
  ];
  for (const c of cases) {
    it(c.name, () => {
      const font = c.font ?? 'regular';
      const size = c.size ?? 9;
      const out = breakLongWords(doc, c.text, c.width, font, size);
      if (c.same) return assert.equal(out, c.text);
      assert.notEqual(out, c.text);
      // Nothing lost or added but line breaks where a word was cut.
      assert.equal(out.replace(/\n/g, ''), c.text.replace(/\n/g, ''));
      for (const line of out.split('\n')) for (const word of line.split(/\s+/)) assert.ok(fits(word, font, size, c.width), `${word.length} characters too wide`);
      // Full lines: a piece is not cut far short of the width.
      const pieces = out.split('\n').filter((l) => !/\s/.test(l));
      for (const piece of pieces.slice(0, -1)) assert.ok(doc.widthOfString(piece) > c.width * 0.7, `a piece of ${doc.widthOfString(piece)} pt`);
    });
  }

  it('takes time linear in the word (a 40,000-character word: well under a second)', () => {
    const started = performance.now();
    breakLongWords(doc, 'x'.repeat(40_000), 44, 'regular', 9);
    assert.ok(performance.now() - started < 1_000);
  });
});
