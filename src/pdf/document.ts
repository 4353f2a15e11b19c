import PDFDocument from 'pdfkit';
import QRCode from 'qrcode';
import { fontBytes } from './fonts.js';
import { breakLongWords } from './long-words.js';

export { breakLongWords };

/**
 * What layouts draw with: an A4 pdfkit document with the shop's fonts registered as `regular` and
 * `bold`, and a few helpers every layout needs (a QR code drawn as vector squares, a table that
 * flows onto further pages with its header repeated). Layouts are plain functions
 * (layouts/index.ts); this file has no rules of its own.
 */
export type Doc = PDFKit.PDFDocument;

export const PAGE_MARGIN = 40;

export function newDocument(info: { title: string }): Doc {
  const doc = new PDFDocument({ size: 'A4', margin: PAGE_MARGIN, bufferPages: true, info: { Title: info.title, Producer: 'print-order-service' } });
  doc.registerFont('regular', fontBytes('regular'));
  doc.registerFont('bold', fontBytes('bold'));
  doc.font('regular').fontSize(10);
  return doc;
}

/** The finished document's bytes. */
export function finish(doc: Doc): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    doc.on('data', (c: Buffer) => chunks.push(c));
    doc.on('end', () => resolve(Buffer.concat(chunks)));
    doc.on('error', reject);
    doc.end();
  });
}

/** A QR code of `text` with its top left corner at (x, y), `size` points wide, drawn as squares (sharp at any zoom, no image). */
export function qrCode(doc: Doc, text: string, x: number, y: number, size: number): void {
  const qr = QRCode.create(text, { errorCorrectionLevel: 'M' });
  const n = qr.modules.size;
  const quiet = 2;
  const cell = size / (n + quiet * 2);
  doc.save().fillColor('black');
  for (let row = 0; row < n; row++) {
    for (let col = 0; col < n; col++) {
      if (qr.modules.get(row, col)) doc.rect(x + (col + quiet) * cell, y + (row + quiet) * cell, cell, cell);
    }
  }
  doc.fill().restore();
}

export interface Column {
  header: string;
  /** Share of the table's width (the shares are scaled to fill it). */
  width: number;
  align?: 'left' | 'right' | 'center';
}

/**
 * Draws a table from the current position: the header row, then each row, a row's height the tallest
 * of its cells (text wraps inside its column); a row that does not fit starts a new page, where the
 * header is drawn again, and a row taller than a page is split between pages. A word wider than its
 * column is cut into lines first. Leaves doc.y below the table.
 */
export function table(doc: Doc, columns: Column[], rows: string[][], options: { fontSize?: number } = {}): void {
  const fontSize = options.fontSize ?? 9;
  const left = doc.page.margins.left;
  const full = doc.page.width - left - doc.page.margins.right;
  const shares = columns.reduce((s, c) => s + c.width, 0);
  const widths = columns.map((c) => (c.width / shares) * full);
  const pad = 3;
  // Over-long words cut once, before any measuring (long-words.ts): pdfkit would cut them in quadratic time.
  const fit = (cells: string[], font: string) => cells.map((cell, i) => breakLongWords(doc, cell, widths[i]! - pad * 2, font, fontSize));
  const heightOf = (cells: string[], font: string) => {
    doc.font(font).fontSize(fontSize);
    return Math.max(...cells.map((cell, i) => doc.heightOfString(cell || ' ', { width: widths[i]! - pad * 2 }))) + pad * 2;
  };
  const drawRow = (cells: string[], font: string, shade: boolean, h = heightOf(cells, font)) => {
    const y = doc.y;
    if (shade) doc.save().rect(left, y, full, h).fill('#eeeeee').restore();
    let x = left;
    doc.font(font).fontSize(fontSize).fillColor('black');
    cells.forEach((cell, i) => {
      doc.text(cell, x + pad, y + pad, { width: widths[i]! - pad * 2, align: columns[i]!.align ?? 'left' });
      x += widths[i]!;
    });
    doc.save().moveTo(left, y + h).lineTo(left + full, y + h).lineWidth(0.5).stroke('#999999').restore();
    doc.x = left;
    doc.y = y + h;
  };
  const bottom = () => doc.page.height - doc.page.margins.bottom;
  const header = fit(columns.map((c) => c.header), 'bold');
  const headerHeight = heightOf(header, 'bold');
  // A row is not begun with less room than a few lines; a row taller than a whole page is split across pages.
  const minRoom = fontSize * 3 + pad * 2;
  const first = rows[0] ? heightOf(fit(rows[0], 'regular'), 'regular') : 0;
  if (doc.y + headerHeight + Math.min(first, minRoom) > bottom()) doc.addPage();
  drawRow(header, 'bold', true, headerHeight);
  const newPage = () => {
    doc.addPage();
    drawRow(header, 'bold', true, headerHeight);
  };
  for (const given of rows) {
    let row = fit(given, 'regular');
    // Measured once: laying text out (shaping) is most of a table's cost.
    let h = heightOf(row, 'regular');
    if (doc.y + h > bottom() && h <= bottom() - doc.page.margins.top - headerHeight) newPage();
    while (doc.y + h > bottom()) {
      if (bottom() - doc.y < minRoom) newPage();
      const [heads, tails] = splitRow(row, bottom() - doc.y - pad * 2);
      drawRow(heads, 'regular', false);
      newPage();
      row = tails;
      h = heightOf(row, 'regular');
    }
    drawRow(row, 'regular', false, h);
  }
  /** Each cell's words that fit in `room` points of height, and the rest (its words are no wider than the column: fit). */
  function splitRow(cells: string[], room: number): [string[], string[]] {
    doc.font('regular').fontSize(fontSize);
    const split = cells.map((cell, i) => {
      const options = { width: widths[i]! - pad * 2 };
      if (doc.heightOfString(cell || ' ', options) <= room) return [cell, ''];
      const words = cell.split(/(?<=\s)/);
      // The most words whose height fits, by halving (at least one, so that a row always moves on).
      let lo = 1;
      let hi = words.length - 1;
      while (lo < hi) {
        const mid = Math.ceil((lo + hi) / 2);
        if (doc.heightOfString(words.slice(0, mid).join('').trimEnd() || ' ', options) <= room) lo = mid;
        else hi = mid - 1;
      }
      return [words.slice(0, lo).join('').trimEnd(), words.slice(lo).join('')];
    });
    return [split.map((c) => c[0]!), split.map((c) => c[1]!)];
  }
  doc.font('regular').fontSize(10);
}

/** Writes "Page n of m" at the foot of every page (needs bufferPages, which newDocument sets). */
export function pageNumbers(doc: Doc): void {
  const range = doc.bufferedPageRange();
  for (let i = range.start; i < range.start + range.count; i++) {
    doc.switchToPage(i);
    const bottomMargin = doc.page.margins.bottom;
    doc.page.margins.bottom = 0;
    doc.font('regular').fontSize(8).fillColor('#555555')
      .text(`Page ${i + 1} of ${range.count}`, doc.page.margins.left, doc.page.height - 28, { width: doc.page.width - doc.page.margins.left - doc.page.margins.right, align: 'right', lineBreak: false });
    doc.page.margins.bottom = bottomMargin;
  }
  doc.fillColor('black');
}
