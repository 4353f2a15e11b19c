import { essence } from './content-types.js';
import type { FileUpload } from './model.js';

/*
 * Previews of documents (interface.md, additions of 2026-11-24, "Previews"): which documents have
 * one, the size it is made at, the bounds a rendering must keep, and how it is named in the cache
 * and in its ETag. Pure: the rendering itself is in src/previews/.
 */

/** What a preview is made from: the first page of a PDF, or a picture that sharp reads. */
export type PreviewKind = 'pdf' | 'image';

export const PREVIEW_WIDTH = { min: 64, max: 1600, default: 320 } as const;

/** A PDF page is never shown wider than it is at this resolution (its points are 1/72 inch). */
export const PDF_DPI = 144;

/** Raster types sharp reads here; SVG is left out on purpose (a renderer of markup may follow references to other files). */
const PICTURES = new Set(['image/png', 'image/jpeg', 'image/webp', 'image/gif', 'image/avif', 'image/tiff']);

/** Bounds a rendering keeps: past any of them the document has no preview. */
export const PREVIEW_BOUNDS = {
  /** A PDF declaring more pages than this is not believed (its page count would be shown). */
  maxPages: 10_000,
  /** Pixels of one rendered page (the canvas): 1600 × 6400, a long receipt; a page thinner still is refused. */
  maxCanvasPixels: 1600 * 6400,
  /** Pixels an image inside a PDF may have. */
  maxPdfImagePixels: 25_000_000,
  /** Pixels a picture may have (a decompression bomb is refused before it is decoded). */
  maxPicturePixels: 100_000_000,
  /** The largest page side in PDF units (ISO 32000: 14,400 units, UserUnit included). */
  maxPageUnits: 14_400 * 75,
} as const;

/**
 * Which preview a document has, or null: voided ones none (the field is read when the model has it),
 * else by the type its bytes showed (the declared one only for records older than detection).
 */
export function previewKindOf(file: Pick<FileUpload, 'contentType' | 'detectedType'> & { voidedAt?: string | null }): PreviewKind | null {
  if (file.voidedAt) return null;
  const type = essence(file.detectedType ?? file.contentType);
  if (type === 'application/pdf' || type === 'application/x-pdf') return 'pdf';
  if (type === 'image/jpg') return 'image';
  return PICTURES.has(type) ? 'image' : null;
}

/** The width a preview is made at: the one asked for, never wider than the picture or the page at PDF_DPI; at least 1 pixel. */
export function previewWidth(requested: number, naturalWidth: number): number {
  return Math.max(1, Math.min(requested, Math.floor(naturalWidth)));
}

/** The height kept in proportion to a width, at least 1 pixel. */
export const proportionalHeight = (width: number, natural: { width: number; height: number }): number =>
  Math.max(1, Math.round((width * natural.height) / natural.width));

/** Whether a PDF page of this size (in units, UserUnit applied) can be rendered at this width within the bounds. */
export function pageWithinBounds(page: { width: number; height: number }, width: number): boolean {
  const { maxPageUnits, maxCanvasPixels } = PREVIEW_BOUNDS;
  if (!(page.width > 0 && page.height > 0) || page.width > maxPageUnits || page.height > maxPageUnits) return false;
  return width * proportionalHeight(width, page) <= maxCanvasPixels;
}

/** A whole number written plainly (no sign, fraction, exponent or spaces), or null. */
function wholeNumber(raw: unknown): number | null {
  const text = Array.isArray(raw) ? raw[0] : raw;
  if (typeof text !== 'string' || !/^[0-9]{1,9}$/.test(text)) return null;
  return Number(text);
}

/**
 * The page and width of a preview request from its query string, or the message naming the
 * parameter: `page` a whole number from 1 (default 1), `width` one from 64 to 1600 (default 320).
 */
export function previewParams(query: Record<string, unknown>): { page: number; width: number } | { error: string } {
  const page = query.page === undefined ? 1 : wholeNumber(query.page);
  if (page === null || page < 1) return { error: 'page must be a whole number from 1' };
  const width = query.width === undefined ? PREVIEW_WIDTH.default : wholeNumber(query.width);
  if (width === null || width < PREVIEW_WIDTH.min || width > PREVIEW_WIDTH.max) {
    return { error: `width must be a whole number from ${PREVIEW_WIDTH.min} to ${PREVIEW_WIDTH.max}` };
  }
  return { page, width };
}

/** Version of the renderer's output: raised when the same request would give another picture, so caches and ETags move on. */
export const PREVIEW_VERSION = 1;

/**
 * The cache's name for one preview: the document's bytes (its SHA-256; a record older than
 * checksums, its id), the page and the width asked for. Only lower-case hex, digits and dashes.
 */
export const previewKey = (file: Pick<FileUpload, 'id' | 'sha256'>, page: number, width: number): string => `${documentKey(file)}-p${page}-w${width}-v${PREVIEW_VERSION}`;

/** The cache's name for a document's bytes (what its page count is kept under). */
export const documentKey = (file: Pick<FileUpload, 'id' | 'sha256'>): string =>
  file.sha256 ? file.sha256.toLowerCase() : `id-${file.id.toLowerCase().replace(/[^0-9a-f-]/g, '')}`;

/** The ETag of a preview: the same key gives the same picture, on every instance. */
export const previewEtag = (key: string): string => `"${key}"`;

/** Whether an If-None-Match header names this ETag (a list, weak forms and `*` included). */
export function etagMatches(ifNoneMatch: string | undefined, etag: string): boolean {
  if (!ifNoneMatch) return false;
  return ifNoneMatch.split(',').some((t) => {
    const tag = t.trim();
    return tag === '*' || tag === etag || tag === `W/${etag}`;
  });
}
