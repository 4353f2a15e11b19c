import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import type { Config } from '../config.js';
import { documentKey, previewKey, type PreviewKind } from '../domain/previews.js';
import type { FileUpload } from '../domain/model.js';
import type { Log } from '../logger.js';
import type { FileStorage } from '../storage/types.js';
import { PreviewCache } from './cache.js';
import { PreviewRenderer } from './renderer.js';

/** A preview as answered: the picture, or why there is none. `pages` is a PDF's page count when known. */
export type Preview = { image: Buffer; contentType: 'image/webp'; pages: number | null } | { none: 'no-page' | 'unreadable'; pages: number | null };

/** Page counts kept in memory (a number each, with its key: about 100 bytes). */
const PAGE_COUNTS_KEPT = 10_000;
/** How long a document whose page count could not be learnt is answered null from memory before the cache is asked again. */
const PAGE_COUNT_RETRY_MS = 60_000;

/**
 * Previews of stored documents: from the cache when made before, else made once (requests for the
 * same preview at the same time share one rendering) from the stored bytes, read through the
 * FileStorage interface into a temporary file the rendering process reads.
 *
 * A document that cannot be rendered within the bounds is remembered as such, whatever the page
 * and width asked (issue 33, item 12: fifteen widths of one heavy PDF each cost a rendering), and
 * a document's renderings are made one at a time, so the requests for other widths and pages learn
 * of a failure instead of each trying again (a page count known says nothing of whether a page can
 * be drawn). The renderer serves the users in turn (fair-queue.ts).
 */
export class Previews {
  readonly cache: PreviewCache;
  readonly renderer: PreviewRenderer;
  readonly #making = new Map<string, Promise<Preview>>();
  /** The last rendering queued for each document (the next of the same document waits for it). */
  readonly #documents = new Map<string, Promise<unknown>>();
  /**
   * Page counts known, by document key (its bytes' SHA-256: a count never changes), and documents
   * whose count could not be learnt, until when: the approval link's page asks for its proof's
   * count at every load, and the disk cache's reads wait on the thread pool behind the uploads'
   * writes (issue 34's link page p99). Bounded: the oldest entry leaves first.
   */
  readonly #pageCounts = new Map<string, number | { until: number }>();

  constructor(
    private readonly config: Pick<Config, 'dataDir' | 'previews'>,
    private readonly log: Log,
  ) {
    const { cacheBytes, concurrency, timeoutMs, memoryBytes, maxWaiting } = config.previews;
    this.cache = new PreviewCache(path.join(config.dataDir, 'previews'), cacheBytes, log);
    this.renderer = new PreviewRenderer({ concurrency, timeoutMs, memoryBytes, maxWaiting }, log);
  }

  /** The preview of a document's page at a width, from the cache or made now; `owner`: the user who asked (for a fair share of the renderer). */
  async of(storage: FileStorage, file: FileUpload, kind: PreviewKind, page: number, width: number, owner = ''): Promise<Preview> {
    const key = previewKey(file, page, width);
    const docKey = documentKey(file);
    const known = await this.#known(kind, docKey, key, page);
    if (known) return known;
    let making = this.#making.get(key);
    if (!making) {
      // One at a time per document, each looking at the cache again when its turn comes (a failure meanwhile is answered at once).
      const make = () => this.#make(storage, file, kind, page, width, key, docKey, owner);
      making = this.#oneAtATime(docKey, async () => (await this.#known(kind, docKey, key, page)) ?? make()).finally(() => this.#making.delete(key));
      this.#making.set(key, making);
    }
    return making;
  }

  /**
   * A PDF's page count (1 for a picture), learnt from its first page's preview at `width` (made
   * once, as `of` does; the page shows that picture first), then answered from memory; null when
   * it cannot be rendered (asked again after PAGE_COUNT_RETRY_MS) or for a type without a preview.
   */
  async pageCount(storage: FileStorage, file: FileUpload, kind: PreviewKind, width: number): Promise<number | null> {
    if (kind === 'image') return 1;
    const docKey = documentKey(file);
    const known = this.#pageCounts.get(docKey);
    if (typeof known === 'number') return known;
    if (known && known.until > Date.now()) return null;
    const first = await this.of(storage, file, kind, 1, width).catch(() => undefined);
    if (first === undefined) return null; // the storage failed: nothing learnt, asked again next time
    if (this.#pageCounts.size >= PAGE_COUNTS_KEPT) this.#pageCounts.delete(this.#pageCounts.keys().next().value!);
    this.#pageCounts.delete(docKey);
    this.#pageCounts.set(docKey, first.pages ?? { until: Date.now() + PAGE_COUNT_RETRY_MS });
    return first.pages;
  }

  /** What the cache already says of this preview: its picture, a page past the end, or a failure (of the document, or of this page and width); null: it must be made. */
  async #known(kind: PreviewKind, docKey: string, key: string, page: number): Promise<Preview | null> {
    const pages = kind === 'pdf' ? await this.cache.pages(docKey) : 1;
    if (pages !== null && page > pages) return { none: 'no-page', pages: kind === 'pdf' ? pages : null };
    const image = await this.cache.image(key);
    if (image) return { image, contentType: 'image/webp', pages: kind === 'pdf' ? pages : null };
    if ((await this.cache.failed(docKey)) || (await this.cache.failed(key))) return { none: 'unreadable', pages: null };
    return null;
  }

  /** Runs `fn` after the document's renderings queued before it. */
  #oneAtATime<T>(docKey: string, fn: () => Promise<T>): Promise<T> {
    const run = (this.#documents.get(docKey) ?? Promise.resolve()).then(fn);
    const tail = run.catch(() => {});
    this.#documents.set(docKey, tail);
    void tail.then(() => {
      if (this.#documents.get(docKey) === tail) this.#documents.delete(docKey);
    });
    return run;
  }

  async #make(storage: FileStorage, file: FileUpload, kind: PreviewKind, page: number, width: number, key: string, docKey: string, owner: string): Promise<Preview> {
    // DATA_DIR/tmp is this instance's scratch space, emptied at start-up (service.ts).
    const input = path.join(this.config.dataDir, 'tmp', `preview-${randomUUID()}`);
    try {
      await pipeline(await storage.open({ key: file.storageKey, url: file.url }), fs.createWriteStream(input));
      const outcome = await this.renderer.render({ kind, file: input, page, width }, owner);
      if (outcome.ok) {
        if (outcome.pages !== null) await this.cache.putPages(docKey, outcome.pages);
        await this.cache.putImage(key, outcome.image);
        return { image: outcome.image, contentType: 'image/webp', pages: outcome.pages };
      }
      if (outcome.reason === 'no-page') {
        if (kind === 'pdf') await this.cache.putPages(docKey, outcome.pages);
        return { none: 'no-page', pages: kind === 'pdf' ? outcome.pages : null };
      }
      // Too slow, too big, malformed: so is every page and width of it. Only a page too large at this width is this preview's alone.
      await this.cache.putFailed(outcome.pageOnly ? key : docKey);
      return { none: 'unreadable', pages: null };
    } finally {
      await fs.promises.rm(input, { force: true });
    }
  }

  close(): void {
    this.renderer.close();
  }
}
