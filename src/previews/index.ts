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

/**
 * Previews of stored documents: from the cache when made before, else made once (requests for the
 * same preview at the same time share one rendering) from the stored bytes, read through the
 * FileStorage interface into a temporary file the rendering process reads.
 */
export class Previews {
  readonly cache: PreviewCache;
  readonly renderer: PreviewRenderer;
  readonly #making = new Map<string, Promise<Preview>>();

  constructor(
    private readonly config: Pick<Config, 'dataDir' | 'previews'>,
    private readonly log: Log,
  ) {
    const { cacheBytes, concurrency, timeoutMs, memoryBytes, maxWaiting } = config.previews;
    this.cache = new PreviewCache(path.join(config.dataDir, 'previews'), cacheBytes, log);
    this.renderer = new PreviewRenderer({ concurrency, timeoutMs, memoryBytes, maxWaiting }, log);
  }

  /** The preview of a document's page at a width, from the cache or made now. */
  async of(storage: FileStorage, file: FileUpload, kind: PreviewKind, page: number, width: number): Promise<Preview> {
    const key = previewKey(file, page, width);
    const docKey = documentKey(file);
    const pages = kind === 'pdf' ? await this.cache.pages(docKey) : 1;
    if (pages !== null && page > pages) return { none: 'no-page', pages: kind === 'pdf' ? pages : null };
    const image = await this.cache.image(key);
    if (image) return { image, contentType: 'image/webp', pages: kind === 'pdf' ? pages : null };
    if (await this.cache.failed(key)) return { none: 'unreadable', pages: null };
    let making = this.#making.get(key);
    if (!making) {
      making = this.#make(storage, file, kind, page, width, key, docKey).finally(() => this.#making.delete(key));
      this.#making.set(key, making);
    }
    return making;
  }

  async #make(storage: FileStorage, file: FileUpload, kind: PreviewKind, page: number, width: number, key: string, docKey: string): Promise<Preview> {
    // DATA_DIR/tmp is this instance's scratch space, emptied at start-up (service.ts).
    const input = path.join(this.config.dataDir, 'tmp', `preview-${randomUUID()}`);
    try {
      await pipeline(await storage.open({ key: file.storageKey, url: file.url }), fs.createWriteStream(input));
      const outcome = await this.renderer.render({ kind, file: input, page, width });
      if (outcome.ok) {
        if (outcome.pages !== null) await this.cache.putPages(docKey, outcome.pages);
        await this.cache.putImage(key, outcome.image);
        return { image: outcome.image, contentType: 'image/webp', pages: outcome.pages };
      }
      if (outcome.reason === 'no-page') {
        if (kind === 'pdf') await this.cache.putPages(docKey, outcome.pages);
        return { none: 'no-page', pages: kind === 'pdf' ? outcome.pages : null };
      }
      await this.cache.putFailed(key);
      return { none: 'unreadable', pages: null };
    } finally {
      await fs.promises.rm(input, { force: true });
    }
  }

  close(): void {
    this.renderer.close();
  }
}
