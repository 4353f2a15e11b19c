/**
 * The rendering process's code (renderer.ts starts it with `node -e`): plain JavaScript, so the
 * process loads no TypeScript loader (under tsx, pdf.js alone took seconds to load). It only draws:
 * every rule (which width, which page sizes and counts are within the bounds) is the parent's,
 * from domain/previews.ts, asked for over IPC between measuring a page and drawing it.
 *
 * Messages in: `{op: 'render', id, kind: 'pdf' | 'image', file, page, width}`, then for a PDF
 * `{op: 'draw', id, width}` or `{op: 'stop', id}`. Out: `{op: 'ready'}` once loaded;
 * `{op: 'measured', id, pages, size: {width, height} | null}` (null: no such page); `{op: 'done',
 * id, ok: true, image, width, height, pages}` or `{op: 'done', id, ok: false, detail}`.
 */

/** What the process is told at start (as JSON in its environment): where its libraries are, and the bounds it hands them. */
export interface RenderInit {
  /** file: URL of pdf.js's legacy build for Node. */
  pdfjs: string;
  /** file: URL of sharp's entry. */
  sharp: string;
  /** Directory of pdf.js's data (standard fonts, character maps, decoders), ending in a slash. */
  pdfjsData: string;
  /** Pixels a picture may have before sharp decodes it. */
  maxPicturePixels: number;
  /** Pixels an image inside a PDF may have. */
  maxPdfImagePixels: number;
  /** WebP quality. */
  quality: number;
}

export const RENDER_INIT_ENV = 'PREVIEW_RENDER_INIT';

export const RENDER_SOURCE = `
const init = JSON.parse(process.env.${RENDER_INIT_ENV});
const fs = await import('node:fs/promises');
const pdfjs = await import(init.pdfjs);
const sharp = (await import(init.sharp)).default;
// One picture at a time in this process: its memory bound is the parent's to keep, not libvips' caches'.
sharp.cache(false);
sharp.concurrency(1);

const replies = new Map();
const ask = (message) => new Promise((resolve) => { replies.set(message.id, resolve); process.send(message); });

async function renderPdf(job) {
  const data = new Uint8Array(await fs.readFile(job.file));
  const task = pdfjs.getDocument({
    data,
    isEvalSupported: false,
    useSystemFonts: false,
    disableFontFace: true,
    verbosity: 0,
    maxImageSize: init.maxPdfImagePixels,
    standardFontDataUrl: init.pdfjsData + 'standard_fonts/',
    cMapUrl: init.pdfjsData + 'cmaps/',
    cMapPacked: true,
    wasmUrl: init.pdfjsData + 'wasm/',
    iccUrl: init.pdfjsData + 'iccs/',
  });
  try {
    const doc = await task.promise;
    const pages = doc.numPages;
    const page = job.page <= pages ? await doc.getPage(job.page) : null;
    const natural = page ? page.getViewport({ scale: 1 }) : null;
    const answer = await ask({ op: 'measured', id: job.id, pages, size: natural && { width: natural.width, height: natural.height } });
    if (answer.op !== 'draw') return null;
    const width = answer.width;
    const height = Math.max(1, Math.round((width * natural.height) / natural.width));
    const viewport = page.getViewport({ scale: width / natural.width });
    const { canvas, context } = doc.canvasFactory.create(width, height);
    // PDF pages are paper: what they leave transparent is white.
    context.fillStyle = '#ffffff';
    context.fillRect(0, 0, width, height);
    await page.render({ canvas, canvasContext: context, viewport, background: '#ffffff' }).promise;
    const image = await canvas.encode('webp', init.quality);
    return { ok: true, image, width, height, pages };
  } finally {
    await task.destroy().catch(() => {});
  }
}

async function renderPicture(job) {
  // autoOrient: a phone's photo is shown, and measured, the right way up.
  const { data, info } = await sharp(job.file, { limitInputPixels: init.maxPicturePixels, pages: 1, autoOrient: true })
    .resize({ width: job.width, withoutEnlargement: true })
    .webp({ quality: init.quality })
    .toBuffer({ resolveWithObject: true });
  return { ok: true, image: data, width: info.width, height: info.height, pages: null };
}

process.on('message', (m) => {
  if (m.op !== 'render') {
    const reply = replies.get(m.id);
    replies.delete(m.id);
    return reply?.(m);
  }
  (m.kind === 'pdf' ? renderPdf(m) : renderPicture(m))
    .catch((err) => ({ ok: false, detail: err instanceof Error ? err.message : String(err) }))
    .then((result) => result && process.send({ op: 'done', id: m.id, ...result }));
});
// The parent going away (a crash) takes this process with it.
process.on('disconnect', () => process.exit(0));
process.send({ op: 'ready' });
`;
