import { type Doc, pageNumbers, qrCode, table } from '../document.js';

/** A small layout that uses every helper: the tests and the bench render it (and a new layout can start from it). */
export interface SampleData {
  title: string;
  lines: string[];
  qr?: string;
  /** Busy-waits this long while drawing: lets tests see the time bound and the thread pool at work. */
  spinMs?: number;
}

export function sample(doc: Doc, data: SampleData): void {
  doc.font('bold').fontSize(16).text(data.title);
  if (data.qr) qrCode(doc, data.qr, doc.page.width - doc.page.margins.right - 80, doc.page.margins.top, 80);
  doc.moveDown();
  table(doc, [{ header: '#', width: 1, align: 'right' }, { header: 'Line', width: 12 }], data.lines.map((l, i) => [String(i + 1), l]));
  if (data.spinMs) {
    const until = Date.now() + data.spinMs;
    while (Date.now() < until) { /* the work a slow layout would do */ }
  }
  pageNumbers(doc);
}
