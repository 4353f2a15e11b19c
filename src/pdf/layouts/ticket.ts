import { type Column, type Doc, breakLongWords, pageNumbers, qrCode, table } from '../document.js';

/**
 * The job ticket (interface.md, "The job ticket"): the work order that goes to the press. Every
 * word already written as text by the action (actions/ticket.ts, domain/ticket.ts); this places it
 * on A4: the shop, the job's number, a RUSH mark, the hold, the job's facts, the QR code of its
 * address on the first page, then every line with all its fields in a table that flows onto further
 * pages (header repeated; each further page names the job at its top). Every text is passed
 * through breakLongWords for the width it is drawn in first (pdfkit's quadratic trap).
 */
export interface TicketData {
  shopName: string;
  /** "#1042". */
  number: string;
  name: string;
  id: string;
  description: string | null;
  rush: boolean;
  /** "Waiting for paper (since 27 Nov 2026, 10:05, by Asha)", or null when not held. */
  hold: string | null;
  /** Customer, reference, owner, due date, status, approved proof…: label and value, in order. */
  facts: [string, string][];
  deliveryAddress: string | null;
  /** With a price column only when `priced`. */
  priced: boolean;
  lines: TicketLine[];
  /** PUBLIC_URL/projects/<id>: the QR code's text. */
  url: string;
  /** "Printed 27 Nov 2026, 19:35". */
  footer: string;
}

export interface TicketLine {
  description: string;
  quantity: string;
  size: string;
  stock: string;
  colours: string;
  finishing: string;
  notes: string;
  price: string;
}

const QR_SIZE = 92;
const TABLE_FONT_SIZE = 8;

export function ticket(doc: Doc, data: TicketData): void {
  const left = doc.page.margins.left;
  const top = doc.page.margins.top;
  const width = doc.page.width - left - doc.page.margins.right;
  const beside = width - QR_SIZE - 12;
  const fit = (text: string, w: number, font: string, size: number) => breakLongWords(doc, text, w, font, size);

  // The QR code of the project's address, top right, its address under it.
  qrCode(doc, data.url, left + width - QR_SIZE, top - 6, QR_SIZE);
  doc.font('regular').fontSize(6).fillColor('#333333')
    .text(fit(data.url, QR_SIZE + 8, 'regular', 6), left + width - QR_SIZE - 4, top + QR_SIZE - 6, { width: QR_SIZE + 8, align: 'center' })
    .fillColor('black');
  const qrBottom = doc.y;

  doc.font('bold').fontSize(10).text(fit(data.shopName, beside, 'bold', 10), left, top, { width: beside });
  doc.font('regular').fontSize(9).fillColor('#555555').text('JOB TICKET', { width: beside }).fillColor('black');
  const numberY = doc.y + 2;
  doc.font('bold').fontSize(26).text(data.number, left, numberY, { width: beside, lineBreak: false });
  if (data.rush) {
    const x = left + doc.widthOfString(data.number) + 14;
    doc.save().roundedRect(x, numberY + 4, 62, 24, 3).fill('#c00000').restore();
    doc.font('bold').fontSize(15).fillColor('white').text('RUSH', x, numberY + 7, { width: 62, align: 'center', lineBreak: false }).fillColor('black');
  }
  doc.y = numberY + 34;
  doc.font('bold').fontSize(13).text(fit(data.name, beside, 'bold', 13), left, doc.y, { width: beside });
  doc.font('regular').fontSize(7).fillColor('#555555').text(data.id, { width: beside }).fillColor('black');
  doc.y = Math.max(doc.y, qrBottom) + 8;

  if (data.hold) {
    const text = fit(`ON HOLD: ${data.hold}`, width - 16, 'bold', 11);
    doc.font('bold').fontSize(11);
    const h = doc.heightOfString(text, { width: width - 16 }) + 12;
    const y = doc.y;
    doc.save().rect(left, y, width, h).lineWidth(2).stroke('#c00000').restore();
    doc.fillColor('#c00000').text(text, left + 8, y + 6, { width: width - 16 }).fillColor('black');
    doc.y = y + h + 8;
  }

  // The job's facts in two columns: label, value.
  const half = (width - 12) / 2;
  const labelWidth = 78;
  const factRows: [string, string][][] = [];
  for (let i = 0; i < data.facts.length; i += 2) factRows.push(data.facts.slice(i, i + 2));
  for (const row of factRows) {
    const y = doc.y;
    let bottom = y;
    row.forEach(([label, value], i) => {
      const x = left + i * (half + 12);
      doc.font('bold').fontSize(9).text(label, x, y, { width: labelWidth });
      doc.font('regular').fontSize(9).text(fit(value, half - labelWidth, 'regular', 9), x + labelWidth, y, { width: half - labelWidth });
      bottom = Math.max(bottom, doc.y);
    });
    doc.y = bottom + 3;
  }
  const block = (label: string, text: string | null) => {
    if (!text) return;
    doc.moveDown(0.3);
    doc.font('bold').fontSize(9).text(label, left, doc.y, { width });
    doc.font('regular').fontSize(9).text(fit(text, width, 'regular', 9), { width });
  };
  block('Delivery address', data.deliveryAddress);
  block('Description', data.description);
  doc.moveDown(0.8);

  const columns: Column[] = [
    { header: '#', width: 1.3, align: 'right' },
    { header: 'Description', width: 6 },
    { header: 'Quantity', width: 2.4, align: 'right' },
    { header: 'Size', width: 2.6 },
    { header: 'Stock', width: 3.2 },
    { header: 'Colours', width: 2.6 },
    { header: 'Finishing', width: 3.2 },
    { header: 'Notes', width: 4.4 },
    ...(data.priced ? [{ header: 'Price', width: 3 }] : []),
  ];
  // table() cuts over-long words itself (long-words.ts).
  const rows = data.lines.map((l, i) => [String(i + 1), l.description, l.quantity, l.size, l.stock, l.colours, l.finishing, l.notes, ...(data.priced ? [l.price] : [])]);
  doc.font('bold').fontSize(10).text(`Lines (${data.lines.length})`, left, doc.y, { width });
  doc.moveDown(0.3);
  table(doc, columns, rows, { fontSize: TABLE_FONT_SIZE });
  doc.moveDown();
  doc.font('regular').fontSize(8).fillColor('#555555').text(data.footer, left, doc.y, { width }).fillColor('black');

  // Each further page names the job at its top (the table's header is repeated by table()).
  const range = doc.bufferedPageRange();
  const running = fit(`${data.number} · ${data.name} (continued)`, width, 'bold', 9);
  for (let i = range.start + 1; i < range.start + range.count; i++) {
    doc.switchToPage(i);
    const topMargin = doc.page.margins.top;
    doc.page.margins.top = 0;
    doc.font('bold').fontSize(9).fillColor('#333333').text(running, left, 18, { width, height: 14, lineBreak: false, ellipsis: true }).fillColor('black');
    doc.page.margins.top = topMargin;
  }
  pageNumbers(doc);
}
