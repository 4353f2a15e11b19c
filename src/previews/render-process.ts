/**
 * The preview renderer's own process (forked by renderer.ts): takes one job at a time over IPC,
 * reads the document from a local file, and answers a WebP picture or why there is none. It runs
 * apart from the service so a malformed or hostile document costs only this process: the parent
 * kills it past the time or memory bound, and other requests never wait for it.
 */
import fs from 'node:fs/promises';
import { createRequire } from 'node:module';
import path from 'node:path';
import { PDF_DPI, PREVIEW_BOUNDS, pageWithinBounds, previewWidth, proportionalHeight, type PreviewKind } from '../domain/previews.js';

export interface RenderJob {
  id: number;
  kind: PreviewKind;
  /** The document's bytes, in a local file the parent removes afterwards. */
  file: string;
  page: number;
  width: number;
}

export type RenderAnswer =
  | { id: number; ok: true; image: Uint8Array; width: number; height: number; pages: number | null }
  | { id: number; ok: false; reason: 'no-page'; pages: number }
  | { id: number; ok: false; reason: 'unreadable'; detail: string };

const QUALITY = 80;
const require = createRequire(import.meta.url);
const pdfjsRoot = path.dirname(require.resolve('pdfjs-dist/package.json'));

type Pdfjs = typeof import('pdfjs-dist/legacy/build/pdf.mjs');
type Sharp = (typeof import('sharp'))['default'];
let pdfjs: Pdfjs;
let sharp: Sharp;

async function renderPdf(job: RenderJob): Promise<RenderAnswer> {
  const data = new Uint8Array(await fs.readFile(job.file));
  const task = pdfjs.getDocument({
    data,
    isEvalSupported: false,
    useSystemFonts: false,
    disableFontFace: true,
    verbosity: 0,
    maxImageSize: 25_000_000,
    standardFontDataUrl: `${pdfjsRoot}/standard_fonts/`,
    cMapUrl: `${pdfjsRoot}/cmaps/`,
    cMapPacked: true,
    wasmUrl: `${pdfjsRoot}/wasm/`,
    iccUrl: `${pdfjsRoot}/iccs/`,
  });
  try {
    const doc = await task.promise;
    const pages = doc.numPages;
    if (!Number.isInteger(pages) || pages < 1 || pages > PREVIEW_BOUNDS.maxPages) return unreadable(job, `page count ${pages}`);
    if (job.page > pages) return { id: job.id, ok: false, reason: 'no-page', pages };
    const page = await doc.getPage(job.page);
    const natural = page.getViewport({ scale: 1 });
    const width = previewWidth(job.width, (natural.width * PDF_DPI) / 72);
    if (!pageWithinBounds(natural, width)) return unreadable(job, `page of ${natural.width} × ${natural.height}`);
    const height = proportionalHeight(width, natural);
    const viewport = page.getViewport({ scale: width / natural.width });
    const factory = doc.canvasFactory as { create(w: number, h: number): { canvas: import('@napi-rs/canvas').Canvas; context: import('@napi-rs/canvas').SKRSContext2D } };
    const { canvas, context } = factory.create(width, height);
    // PDF pages are paper: transparent areas are white.
    context.fillStyle = '#ffffff';
    context.fillRect(0, 0, width, height);
    // pdf.js types its parameters with the DOM's canvas; @napi-rs/canvas is what it draws on in Node.
    await page.render({ canvas: canvas as never, canvasContext: context as never, viewport, background: '#ffffff' }).promise;
    const image = await canvas.encode('webp', QUALITY);
    return { id: job.id, ok: true, image, width, height, pages };
  } finally {
    await task.destroy().catch(() => {});
  }
}

async function renderPicture(job: RenderJob): Promise<RenderAnswer> {
  if (job.page !== 1) return { id: job.id, ok: false, reason: 'no-page', pages: 1 };
  // autoOrient: a phone's photo is shown the right way up, and measured that way.
  const { data, info } = await sharp(job.file, { limitInputPixels: PREVIEW_BOUNDS.maxPicturePixels, pages: 1, autoOrient: true })
    .resize({ width: job.width, withoutEnlargement: true })
    .webp({ quality: QUALITY })
    .toBuffer({ resolveWithObject: true });
  return { id: job.id, ok: true, image: data, width: info.width, height: info.height, pages: null };
}

const unreadable = (job: RenderJob, detail: string): RenderAnswer => ({ id: job.id, ok: false, reason: 'unreadable', detail });

async function main(): Promise<void> {
  pdfjs = await import('pdfjs-dist/legacy/build/pdf.mjs');
  sharp = (await import('sharp')).default;
  // One picture at a time in this process: its memory bound is the parent's to keep, not libvips' caches'.
  sharp.cache(false);
  sharp.concurrency(1);
  process.on('message', (job: RenderJob) => {
    const render = job.kind === 'pdf' ? renderPdf(job) : renderPicture(job);
    render
      .catch((err: unknown) => unreadable(job, err instanceof Error ? err.message : String(err)))
      .then((answer) => process.send!(answer));
  });
  process.send!({ ready: true });
}

// The parent going away (a crash) takes this process with it.
process.on('disconnect', () => process.exit(0));
void main();
