import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { type ContentEncoding, compress } from './compression.js';

/** How often at most a request starts a look at the file on disk (the answer never waits for it). */
export const INDEX_RECHECK_MS = 1000;

/** The web app's index.html as answered: its bytes, compressed once each way, and its ETag. */
export interface IndexPage {
  body: Buffer;
  encoded: Record<ContentEncoding, Buffer>;
  etag: string;
}

/**
 * The web app's index.html held in memory with its gzip and brotli forms, made once per build:
 * every page address answers it (the approval link's page on a customer's phone among them), and a
 * read from disk per request waits on the thread pool behind the uploads' writes (issue 34's link
 * page p99). A new build is still served without a restart: at most every INDEX_RECHECK_MS a
 * request starts a look at the file's size and time in the background, and the next requests
 * answer what it found (a build removed: null, the 503).
 */
export class IndexCache {
  #page: IndexPage | null = null;
  #stamp = '';
  #checkedAt = -Infinity;
  #checking: Promise<void> | undefined;

  constructor(private readonly root: string | null) {}

  /** The page: from memory when known (looked at again in the background now and then), else read now; null without a build. */
  async page(): Promise<IndexPage | null> {
    if (this.#page) {
      if (performance.now() - this.#checkedAt >= INDEX_RECHECK_MS) void this.#check();
      return this.#page;
    }
    await this.#check();
    return this.#page;
  }

  #check(): Promise<void> {
    this.#checkedAt = performance.now();
    return (this.#checking ??= this.#load().finally(() => (this.#checking = undefined)));
  }

  async #load(): Promise<void> {
    if (this.root === null) return;
    const file = path.join(this.root, 'index.html');
    const stat = await fs.promises.stat(file).catch(() => null);
    if (!stat?.isFile()) {
      this.#page = null;
      this.#stamp = '';
      return;
    }
    const stamp = `${stat.size}:${stat.mtimeMs}:${stat.ino}`;
    if (stamp === this.#stamp && this.#page) return;
    const body = await fs.promises.readFile(file).catch(() => null);
    if (!body) {
      this.#page = null;
      return;
    }
    const [gzip, br] = await Promise.all([compress('gzip', body, 'once'), compress('br', body, 'once')]);
    this.#page = { body, encoded: { gzip, br }, etag: `"${createHash('sha256').update(body).digest('base64url').slice(0, 22)}"` };
    this.#stamp = stamp;
  }
}
