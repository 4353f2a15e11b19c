import fs from 'node:fs';
import path from 'node:path';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { type FileStorage, type ObjectLocation, ObjectExistsError, objectKey } from '../types.js';

const WRITE_BUFFER_BYTES = 1024 * 1024;

/** Files on the local disk under `root`, served by the service itself at `<publicUrl>/files/<key>`. */
export class LocalStorage implements FileStorage {
  readonly driver = 'local';

  constructor(
    readonly root: string,
    private readonly publicUrl: string,
  ) {}

  /** Folders made (or found) already: each project and type's folder is made once, not on every upload. */
  readonly #folders = new Set<string>();

  async put(location: ObjectLocation, body: Readable): Promise<{ url: string }> {
    const key = objectKey(location);
    const file = this.pathOf(key);
    const folder = path.dirname(file);
    const makeFolder = async () => {
      await fs.promises.mkdir(folder, { recursive: true });
      this.#folders.add(folder);
    };
    if (!this.#folders.has(folder)) await makeFolder();
    let out: fs.WriteStream;
    try {
      // 'wx': fail rather than overwrite, even if two instances share the disk.
      out = await openExclusive(file).catch(async (err: NodeJS.ErrnoException) => {
        if (err.code !== 'ENOENT') throw err;
        await makeFolder(); // removed since (by hand, a restore): make it again
        return openExclusive(file);
      });
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'EEXIST') throw new ObjectExistsError(key);
      throw err;
    }
    try {
      await pipeline(body, out);
    } catch (err) {
      await fs.promises.rm(file, { force: true });
      throw err;
    }
    return { url: `${this.publicUrl}/files/${key.split('/').map(encodeURIComponent).join('/')}` };
  }

  async remove(location: ObjectLocation): Promise<void> {
    await fs.promises.rm(this.pathOf(objectKey(location)), { force: true });
  }

  async check(): Promise<void> {
    await fs.promises.mkdir(this.root, { recursive: true });
    await fs.promises.access(this.root, fs.constants.W_OK);
  }

  /** The file behind a key, or null when the key would leave the root. */
  pathOf(key: string): string {
    const file = path.resolve(this.root, key);
    if (!file.startsWith(this.root + path.sep)) throw new Error(`Invalid storage key ${key}`);
    return file;
  }
}

function openExclusive(file: string): Promise<fs.WriteStream> {
  return new Promise((resolve, reject) => {
    // A 1 MiB buffer: chunks that arrive while a write is on the thread pool go out together (writev), one trip instead of one per 64 KiB.
    const out = fs.createWriteStream(file, { flags: 'wx', highWaterMark: WRITE_BUFFER_BYTES });
    out.once('open', () => resolve(out));
    out.once('error', reject);
  });
}
