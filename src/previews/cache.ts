import { randomUUID } from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';
import type { Log } from '../logger.js';

/** How long a preview that could not be made is not tried again (a hostile document costs its 10 s once an hour, not per request). */
const FAILURE_TTL_MS = 3_600_000;
/** Pruning goes down to this share of the bound, so it does not run again at the next write. */
const PRUNE_TO = 0.8;

/**
 * Previews on disk (DATA_DIR/previews), named by the document's SHA-256, the page and the width:
 * `<key>.webp` the picture, `<document>.pages` a PDF's page count, `<document>.failed` a document
 * that could not be rendered and `<key>.failed` a page too large at a width (each kept an hour). Bounded: past `maxBytes` the least recently used files are
 * removed (a hit renews a file's time). Writes go through a temporary name, so a reader never sees half a file.
 */
export class PreviewCache {
  #bytes: number | undefined;
  #pruning: Promise<void> | undefined;

  constructor(
    readonly dir: string,
    private readonly maxBytes: number,
    private readonly log: Log,
  ) {}

  async image(key: string): Promise<Buffer | null> {
    const file = this.#path(`${key}.webp`);
    const image = await fs.readFile(file).catch(() => null);
    if (image) {
      const now = new Date();
      await fs.utimes(file, now, now).catch(() => {});
    }
    return image;
  }

  async pages(documentKey: string): Promise<number | null> {
    const text = await fs.readFile(this.#path(`${documentKey}.pages`), 'utf8').catch(() => null);
    const n = text === null ? NaN : Number(text);
    return Number.isInteger(n) && n > 0 ? n : null;
  }

  /** True when this preview (a preview's key), or any of the document (a document's key), failed within the last hour. */
  async failed(key: string): Promise<boolean> {
    const stat = await fs.stat(this.#path(`${key}.failed`)).catch(() => null);
    return stat !== null && Date.now() - stat.mtimeMs < FAILURE_TTL_MS;
  }

  /** Resolves once a pruning under way has ended (tests, shutdown). */
  async pruned(): Promise<void> {
    await this.#pruning;
  }

  putImage = (key: string, image: Buffer) => this.#write(`${key}.webp`, image);
  putPages = (documentKey: string, pages: number) => this.#write(`${documentKey}.pages`, String(pages));
  putFailed = (key: string) => this.#write(`${key}.failed`, '');

  #path = (name: string) => path.join(this.dir, name);

  async #write(name: string, content: Buffer | string): Promise<void> {
    try {
      await fs.mkdir(this.dir, { recursive: true });
      // Measured once, before the first write, then counted as files are written.
      this.#bytes ??= await this.#measure();
      const tmp = this.#path(`.${randomUUID()}.tmp`);
      await fs.writeFile(tmp, content);
      await fs.rename(tmp, this.#path(name));
      const total = (this.#bytes += Buffer.byteLength(content));
      // One pruning at a time; writes meanwhile are counted and pruned by the next.
      if (total > this.maxBytes && !this.#pruning) this.#pruning = this.#prune().finally(() => (this.#pruning = undefined));
    } catch (err) {
      // A cache that cannot be written only costs the next request a rendering.
      this.log.warn({ err }, 'preview cache write failed');
    }
  }

  async #entries(): Promise<{ file: string; size: number; time: number }[]> {
    const names = await fs.readdir(this.dir).catch(() => [] as string[]);
    const entries = await Promise.all(
      names.map(async (name) => {
        const file = this.#path(name);
        const stat = await fs.stat(file).catch(() => null);
        return stat?.isFile() ? { file, size: stat.size, time: stat.mtimeMs } : null;
      }),
    );
    return entries.filter((e) => e !== null);
  }

  async #measure(): Promise<number> {
    return (await this.#entries()).reduce((sum, e) => sum + e.size, 0);
  }

  /** Removes the least recently used files until the cache holds PRUNE_TO of its bound. */
  async #prune(): Promise<void> {
    const entries = (await this.#entries()).sort((a, b) => a.time - b.time);
    let total = entries.reduce((sum, e) => sum + e.size, 0);
    let removed = 0;
    for (const e of entries) {
      if (total <= this.maxBytes * PRUNE_TO) break;
      await fs.rm(e.file, { force: true });
      total -= e.size;
      removed++;
    }
    this.#bytes = total;
    this.log.info({ removed, bytes: total }, 'preview cache pruned');
  }
}
