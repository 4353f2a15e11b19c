import { getDocument } from 'pdfjs-dist/legacy/build/pdf.mjs';

/**
 * A PDF's text as a reader extracts it (pdf.js): one string per page, the pieces joined with spaces.
 * The service's PDF tests assert on this, so what they check is what a person copying text or an
 * accountant's software finds.
 */
export async function pdfPages(pdf: Buffer | Uint8Array): Promise<string[]> {
  const doc = await getDocument({ data: new Uint8Array(pdf), isEvalSupported: false, useSystemFonts: false }).promise;
  try {
    const pages: string[] = [];
    for (let i = 1; i <= doc.numPages; i++) {
      const content = await (await doc.getPage(i)).getTextContent();
      pages.push(content.items.map((item) => ('str' in item ? item.str : '')).join(' ').replace(/\s+/g, ' '));
    }
    return pages;
  } finally {
    await doc.destroy();
  }
}

export async function pdfText(pdf: Buffer | Uint8Array): Promise<string> {
  return (await pdfPages(pdf)).join('\n');
}

/**
 * Whether `text` holds `word`'s letters together, in any order: Devanagari's pre-base vowel signs
 * (ि) are drawn, and so extracted, before the consonant they follow, so a Devanagari word is found
 * by its letters rather than their order. Spaces are ignored (extraction may break a word's glyph runs).
 */
export function hasWordLetters(text: string, word: string): boolean {
  const letters = (s: string) => [...s.replace(/\s+/g, '')];
  const hay = letters(text);
  const want = letters(word).sort().join('');
  const n = letters(word).length;
  for (let i = 0; i + n <= hay.length; i++) {
    if (hay.slice(i, i + n).sort().join('') === want) return true;
  }
  return false;
}
