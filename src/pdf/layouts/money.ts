import { type Doc, pageNumbers, table } from '../document.js';

/**
 * The PI and the tax invoice (interface.md, "Money documents"): one layout, every figure already
 * written as text by the action (actions/money-documents.ts: Indian grouping, words, state names),
 * so this only places it.
 */
export interface MoneyDocData {
  title: string;
  shop: { name: string; lines: string[] };
  /** Number, date, place of supply…: label and value. */
  meta: [string, string][];
  customer: { name: string; lines: string[] };
  /** Intra-state: CGST and SGST columns; else IGST. */
  intra: boolean;
  lines: { description: string; hsnSac: string; quantity: string; rate: string; taxable: string; cgst: string; sgst: string; igst: string }[];
  totals: [string, string][];
  words: string | null;
  bankDetails: string | null;
  footer: string;
}

export function money(doc: Doc, data: MoneyDocData): void {
  const left = doc.page.margins.left;
  const width = doc.page.width - left - doc.page.margins.right;
  doc.font('bold').fontSize(16).text(data.title, { align: 'center' });
  doc.moveDown(0.5);
  const top = doc.y;
  doc.font('bold').fontSize(12).text(data.shop.name, left, top, { width: width / 2 - 10 });
  doc.font('regular').fontSize(9);
  for (const line of data.shop.lines) doc.text(line, { width: width / 2 - 10 });
  const shopBottom = doc.y;
  doc.y = top;
  for (const [label, value] of data.meta) {
    doc.font('bold').fontSize(9).text(`${label}: `, left + width / 2, doc.y, { continued: true, width: width / 2 }).font('regular').text(value);
  }
  doc.y = Math.max(doc.y, shopBottom) + 12;
  doc.font('bold').fontSize(10).text('Bill to', left, doc.y);
  doc.font('bold').fontSize(11).text(data.customer.name);
  doc.font('regular').fontSize(9);
  for (const line of data.customer.lines) doc.text(line);
  doc.moveDown();
  const taxColumns = data.intra
    ? [{ header: 'CGST', width: 3, align: 'right' as const }, { header: 'SGST', width: 3, align: 'right' as const }]
    : [{ header: 'IGST', width: 3, align: 'right' as const }];
  table(
    doc,
    [
      { header: '#', width: 1.2, align: 'right' },
      { header: 'Description', width: 9 },
      { header: 'HSN/SAC', width: 2.6 },
      { header: 'Qty', width: 2.4, align: 'right' },
      { header: 'Rate', width: 3, align: 'right' },
      { header: 'Taxable value', width: 3.6, align: 'right' },
      ...taxColumns,
    ],
    data.lines.map((l, i) => [String(i + 1), l.description, l.hsnSac, l.quantity, l.rate, l.taxable, ...(data.intra ? [l.cgst, l.sgst] : [l.igst])]),
  );
  doc.moveDown(0.5);
  for (const [label, value] of data.totals) {
    if (doc.y > doc.page.height - doc.page.margins.bottom - 20) doc.addPage();
    const y = doc.y;
    doc.font(label.startsWith('Total') ? 'bold' : 'regular').fontSize(10);
    doc.text(label, left + width / 2, y, { width: width / 4 });
    doc.text(value, left + (width * 3) / 4, y, { width: width / 4, align: 'right' });
  }
  doc.x = left;
  doc.moveDown(0.5);
  if (data.words) doc.font('bold').fontSize(10).text(`Amount in words: ${data.words}`, left, doc.y, { width });
  if (data.bankDetails) {
    doc.moveDown();
    doc.font('bold').fontSize(10).text('Bank details', { width });
    doc.font('regular').fontSize(9).text(data.bankDetails, { width });
  }
  doc.moveDown();
  doc.font('regular').fontSize(8).fillColor('#555555').text(data.footer, { width }).fillColor('black');
  pageNumbers(doc);
}
