import type { Doc } from './document.js';

/**
 * Breaks every word too wide for a column before pdfkit sees it. pdfkit's line wrapper cuts an
 * over-long word by measuring ever shorter pieces of it, over and over: a 5,000-character word in a
 * narrow column costs seconds of CPU (quadratic in the word's length). Here each grapheme is
 * measured once (widths cached per font and size) and the word is cut greedily into pieces that
 * fit, joined by line breaks: the same lines pdfkit would draw, in linear time.
 */
const segmenter = new Intl.Segmenter(undefined, { granularity: 'grapheme' });

/** The width one grapheme takes, per font and size (a word repeats few distinct letters). */
const cache = new Map<string, number>();

function graphemeWidth(doc: Doc, font: string, fontSize: number, g: string): number {
  const key = `${font}\u0000${fontSize}\u0000${g}`;
  let w = cache.get(key);
  if (w === undefined) {
    w = doc.font(font).fontSize(fontSize).widthOfString(g);
    if (cache.size > 20_000) cache.clear();
    cache.set(key, w);
  }
  return w;
}

/**
 * `text` with each word wider than `width` (points, in `font` at `fontSize`) cut into pieces of at
 * most ~95 % of it (shaping can make a run a little wider than its letters' sum), separated by "\n".
 * Words that fit, spaces and line breaks are kept as they are.
 */
export function breakLongWords(doc: Doc, text: string, width: number, font: string, fontSize: number): string {
  const limit = Math.max(1, width * 0.95);
  return text
    .split(/(\s+)/)
    .map((token) => {
      if (!token || /^\s+$/.test(token)) return token;
      // Cheap bound first: no letter of this font is wider than its size, so a short word fits.
      if ([...token].length * fontSize <= limit) return token;
      const pieces: string[] = [];
      let piece = '';
      let pieceWidth = 0;
      for (const { segment } of segmenter.segment(token)) {
        const w = graphemeWidth(doc, font, fontSize, segment);
        if (piece && pieceWidth + w > limit) {
          pieces.push(piece);
          piece = '';
          pieceWidth = 0;
        }
        piece += segment;
        pieceWidth += w;
      }
      if (piece) pieces.push(piece);
      return pieces.join('\n');
    })
    .join('');
}
