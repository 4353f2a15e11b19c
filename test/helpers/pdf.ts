import { deflateSync } from 'node:zlib';

/**
 * A small PDF writer for the preview tests and the bench: real PDFs (a catalog, a page tree, pages
 * with content streams, a correct cross-reference table), and hostile ones built the same way.
 * Pages draw filled rectangles, so no font is needed to tell them apart.
 */

/** One object's body, as PDF source (`<< … >>`, `[ … ]`), or a stream with its dictionary entries. */
type PdfObject = string | { dict: string; data: Buffer };

/** Writes objects 1…n (object 1 must be the catalog) with their cross-reference table. */
export function writePdf(objects: PdfObject[]): Buffer {
  const chunks: Buffer[] = [Buffer.from('%PDF-1.7\n%\xe2\xe3\xcf\xd3\n', 'latin1')];
  let length = chunks[0]!.length;
  const offsets: number[] = [];
  const push = (b: Buffer) => {
    chunks.push(b);
    length += b.length;
  };
  objects.forEach((o, i) => {
    offsets.push(length);
    if (typeof o === 'string') push(Buffer.from(`${i + 1} 0 obj\n${o}\nendobj\n`, 'latin1'));
    else {
      push(Buffer.from(`${i + 1} 0 obj\n<< ${o.dict} /Length ${o.data.length} >>\nstream\n`, 'latin1'));
      push(o.data);
      push(Buffer.from('\nendstream\nendobj\n', 'latin1'));
    }
  });
  const xref = length;
  const table = offsets.map((o) => `${String(o).padStart(10, '0')} 00000 n \n`).join('');
  push(Buffer.from(`xref\n0 ${objects.length + 1}\n0000000000 65535 f \n${table}trailer\n<< /Size ${objects.length + 1} /Root 1 0 R >>\nstartxref\n${xref}\n%%EOF\n`, 'latin1'));
  return Buffer.concat(chunks);
}

export interface PageSpec {
  /** In points (1/72 inch); A4 by default. */
  width?: number;
  height?: number;
  /** The content stream (PDF operators). */
  content: string | Buffer;
  /** Compress the content (FlateDecode). */
  deflate?: boolean;
  /** Extra entries of the page dictionary (`/UserUnit 10`). */
  extra?: string;
  /** An image XObject drawn over the whole page: raw RGB bytes of this many pixels wide. */
  image?: { width: number; height: number; rgb: Buffer };
}

export const A4 = { width: 595, height: 842 } as const;

/** A PDF of these pages. `declaredCount` overrides the page tree's /Count (a lie, for hostile files). */
export function pdfOf(pages: PageSpec[], opts: { declaredCount?: number } = {}): Buffer {
  const objects: PdfObject[] = ['', ''];
  const kids: number[] = [];
  for (const p of pages) {
    const pageNo = objects.length + 1;
    kids.push(pageNo);
    objects.push(''); // the page, filled below
    const contentNo = objects.length + 1;
    const raw = Buffer.isBuffer(p.content) ? p.content : Buffer.from(p.content, 'latin1');
    let resources = '';
    let drawImage = '';
    if (p.image) {
      const imageNo = contentNo + 1;
      resources = `/Resources << /XObject << /Im0 ${imageNo} 0 R >> >>`;
      drawImage = `q ${p.width ?? A4.width} 0 0 ${p.height ?? A4.height} 0 0 cm /Im0 Do Q\n`;
    }
    const body = Buffer.concat([Buffer.from(drawImage, 'latin1'), raw]);
    objects.push(p.deflate ? { dict: '/Filter /FlateDecode', data: deflateSync(body) } : { dict: '', data: body });
    if (p.image) {
      objects.push({ dict: `/Type /XObject /Subtype /Image /Width ${p.image.width} /Height ${p.image.height} /ColorSpace /DeviceRGB /BitsPerComponent 8`, data: p.image.rgb });
    }
    objects[pageNo - 1] = `<< /Type /Page /Parent 2 0 R /MediaBox [0 0 ${p.width ?? A4.width} ${p.height ?? A4.height}] /Contents ${contentNo} 0 R ${resources} ${p.extra ?? ''} >>`;
  }
  objects[0] = '<< /Type /Catalog /Pages 2 0 R >>';
  objects[1] = `<< /Type /Pages /Kids [${kids.map((k) => `${k} 0 R`).join(' ')}] /Count ${opts.declaredCount ?? pages.length} >>`;
  return writePdf(objects);
}

/**
 * Page i (from 0) of n: a black bar across the page at a height that moves down page by page, and
 * a red square on odd pages, so every page looks different.
 */
export function barPage(i: number, n: number, size: { width: number; height: number } = A4): PageSpec {
  const band = size.height / n;
  const top = size.height - (i + 1) * band;
  const square = i % 2 ? `1 0 0 rg 20 20 100 100 re f\n` : '';
  return { ...size, content: `0 0 0 rg 0 ${top.toFixed(2)} ${size.width} ${band.toFixed(2)} re f\n${square}` };
}

export const barsPdf = (n: number, size?: { width: number; height: number }) => pdfOf(Array.from({ length: n }, (_, i) => barPage(i, n, size)));

/** Hostile and broken PDFs: each must end as "no preview", within the bound. */
export const hostilePdfs = {
  /** Not a PDF past its header. */
  malformed: () => Buffer.from('%PDF-1.7\n1 0 obj\n<< /Type /Catalog /Pages 2 0 R\nthis is not a PDF at all\n%%EOF\n', 'latin1'),
  /** A page whose resources nest arrays 200,000 deep. */
  deepNesting: () =>
    pdfOf([{ content: '0 0 0 rg 0 0 10 10 re f', extra: `/Nested ${'['.repeat(200_000)}${']'.repeat(200_000)}` }]),
  /** A page tree of a billion pages: three levels of a thousand references to the same node below. */
  hugePageCount: () => {
    const refs = (n: number) => Array.from({ length: 1000 }, () => `${n} 0 R`).join(' ');
    return writePdf([
      '<< /Type /Catalog /Pages 2 0 R >>',
      `<< /Type /Pages /Kids [${refs(4)}] /Count 1000000000 >>`,
      `<< /Type /Page /Parent 5 0 R /MediaBox [0 0 595 842] /Contents 6 0 R >>`,
      `<< /Type /Pages /Parent 2 0 R /Kids [${refs(5)}] /Count 1000000 >>`,
      `<< /Type /Pages /Parent 4 0 R /Kids [${refs(3)}] /Count 1000 >>`,
      { dict: '', data: Buffer.from('0 0 0 rg 0 0 100 100 re f') },
    ]);
  },
  /** A page a billion points wide. */
  hugePageSize: () => pdfOf([{ width: 1e9, height: 1e9, content: '0 0 0 rg 0 0 10 10 re f' }]),
  /** A page of ten million tiny strokes (compressed to little): drawing it takes far longer than the bound. */
  slowToDraw: () => pdfOf([{ content: Buffer.from('0 0 m 595 842 l S\n'.repeat(10_000_000), 'latin1'), deflate: true }]),
};
