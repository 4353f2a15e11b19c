import type { Doc } from './document.js';

/**
 * pdfkit's line wrapper cuts a word wider than its line by measuring (shaping) ever shorter and
 * then ever longer prefixes of it, and the whole rest again after each cut: quadratic in the word's
 * length. A 5,000-character description or HSN in a table's column took seventeen seconds of a
 * rendering thread. breakLongWords cuts such words once, before pdfkit sees them, into pieces that
 * fit, joined by line breaks: the lines pdfkit would have drawn, in time linear in the word.
 */
const graphemes = new Intl.Segmenter(undefined, { granularity: 'grapheme' });

/** One grapheme's width per font and size: a long word repeats few distinct letters. */
const widths = new Map<string, number>();
const MAX_CACHED = 20_000;

function graphemeWidth(doc: Doc, key: string, g: string): number {
  const k = key + g;
  let w = widths.get(k);
  if (w === undefined) {
    w = doc.widthOfString(g);
    if (widths.size >= MAX_CACHED) widths.clear();
    widths.set(k, w);
  }
  return w;
}

/** Pieces are filled to this share of the width: a shaped run (kerning) may be a little wider than its letters' sum. */
const FILL = 0.95;

/**
 * `text` with every word (a run without white space) wider than `width` points, in the document's
 * current font `font` at `fontSize`, cut into pieces no wider than `width` separated by "\n". Words
 * that fit, white space and line breaks are kept as they are. Sets the document's font.
 */
export function breakLongWords(doc: Doc, text: string, width: number, font: string, fontSize: number): string {
  if (!text || width <= 0) return text;
  doc.font(font).fontSize(fontSize);
  // A word of fewer characters than the column holds of the widest letter (under 1.5 em) fits: not measured.
  const widest = fontSize * 1.5;
  if (text.length * widest <= width) return text;
  const key = `${font}\u0000${fontSize}\u0000`;
  return text
    .split(/(\s+)/)
    .map((word) => {
      if (word.length < 2 || /\s/.test(word[0]!) || word.length * widest <= width) return word;
      // The letters' widths summed (cached), not the word shaped whole: shaping 40,000 letters takes a second.
      const letters = graphemesOf(word);
      const sum = letters.reduce((s, g) => s + graphemeWidth(doc, key, g), 0);
      if (sum <= width * FILL || (sum <= width / FILL && doc.widthOfString(word) <= width)) return word;
      return cut(doc, key, letters, width).join('\n');
    })
    .join('');
}

/** A word's graphemes: its characters when it has no combining marks or surrogates (fast), else Intl.Segmenter's. */
function graphemesOf(word: string): string[] {
  return /^[!-\u02ff]*$/.test(word) ? word.split('') : Array.from(graphemes.segment(word), (s) => s.segment);
}

function cut(doc: Doc, key: string, letters: string[], width: number): string[] {
  const pieces: string[] = [];
  let piece: string[] = [];
  let sum = 0;
  const flush = () => {
    // A piece is measured once as a whole; the rare one that shaping made too wide gives back its last graphemes.
    let carry: string[] = [];
    while (piece.length > 1 && doc.widthOfString(piece.join('')) > width) carry = [piece.pop()!, ...carry];
    pieces.push(piece.join(''));
    piece = carry;
    sum = carry.reduce((s, g) => s + graphemeWidth(doc, key, g), 0);
  };
  for (const segment of letters) {
    const w = graphemeWidth(doc, key, segment);
    if (piece.length > 0 && sum + w > width * FILL) flush();
    piece.push(segment);
    sum += w;
  }
  while (piece.length) flush();
  return pieces;
}
