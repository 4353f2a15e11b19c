import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { type Readable, Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { Flusher } from './flusher.js';
import { type FileStorage, type IncompleteWrite, type ListableStorage, type ObjectLocation, type StoredObject, ObjectExistsError, ObjectMissingError, objectKey } from '../types.js';

/** Chunks that arrive while a write is on the thread pool go out together (writev): one trip instead of one per 64 KiB. */
const WRITE_BUFFER_BYTES = 1024 * 1024;

/** Where bytes are written before they are complete: inside the root, so moving them is a rename on one file system. */
const INCOMING = '.incoming';

/**
 * Files on the local disk under `root`, served by the service itself at `<publicUrl>/files/<key>`.
 * A file is written under a temporary name and appears under its key only once complete (and on
 * disk: flushed), so a crash leaves at most a temporary file, which the reconciler removes. A name
 * made under a key (and a folder made for one) is flushed too before the write resolves, so what
 * the record then points at survives a crash; small files' flushes are shared (flusher.ts).
 */
export class LocalStorage implements FileStorage, ListableStorage {
  readonly driver = 'local';
  /** Its files are served by the service, at `<publicUrl>/files/<key>` (http/routes/files.ts). */
  readonly servesOwnFiles: { readonly root: string };

  constructor(
    readonly root: string,
    private readonly publicUrl: string,
  ) {
    this.servesOwnFiles = { root };
  }

  /** Folders made (or found) already: each project and type's folder is made once, not on every upload. */
  readonly #folders = new Set<string>();

  async put(location: ObjectLocation, body: Readable): Promise<{ url: string }> {
    const temporary = path.join(this.root, INCOMING, randomUUID());
    const handle = await this.#create(temporary);
    try {
      await pipeline(body, into(handle));
      // Flushed before it is moved into place: what appears under the key is on disk, not only in the page cache.
      await handle.sync();
      await this.#keepTemporary(temporary, handle);
    } catch (err) {
      await removeQuietly(temporary);
      throw err;
    } finally {
      await handle.close();
    }
    return this.#place(temporary, location);
  }

  /** A new file (never over an existing one), open for reading too, its folder made again when it has gone (by hand, a restore, a test harness). */
  async #create(file: string): Promise<fs.promises.FileHandle> {
    await this.#folder(path.dirname(file));
    return fs.promises.open(file, 'wx+').catch(async (err: NodeJS.ErrnoException) => {
      if (err.code !== 'ENOENT') throw err;
      await this.#folder(path.dirname(file), true);
      return fs.promises.open(file, 'wx+');
    });
  }

  /**
   * The temporary file's name removed while it was written (its folder cleaned up meanwhile): the
   * bytes are still there through the open handle, so they are written under the name again.
   */
  async #keepTemporary(temporary: string, handle: fs.promises.FileHandle): Promise<void> {
    if (await fs.promises.access(temporary).then(() => true, () => false)) return;
    const again = await this.#create(temporary);
    try {
      const buffer = Buffer.allocUnsafe(WRITE_BUFFER_BYTES);
      for (let position = 0; ; ) {
        const { bytesRead } = await handle.read(buffer, 0, buffer.length, position);
        if (!bytesRead) break;
        await writeAll(again, [buffer.subarray(0, bytesRead)]);
        position += bytesRead;
      }
      await again.sync();
    } finally {
      await again.close();
    }
  }

  /**
   * A document held in memory, in one go (open, write, flush, close), straight under its key:
   * exclusive creation refuses a taken key before a byte is written, and a crash midway leaves a
   * file without a record, which no one is served (files are served by their record) and the
   * reconciler removes as an orphan. A temporary name and its link would double the disk trips.
   * Open and (up to SMALL_WRITE_BYTES) write are made on the event loop: they only fill the page
   * cache (as SQLite's own commits do); the flush of the file and of its name, which waits for the
   * disk, is shared with the other uploads' flushes of the moment (flusher.ts).
   */
  async putBytes(location: ObjectLocation, bytes: readonly Buffer[]): Promise<{ url: string }> {
    const key = objectKey(location);
    const file = this.pathOf(key);
    await this.#folder(path.dirname(file));
    await writeDurably(file, bytes).catch(async (err: NodeJS.ErrnoException) => {
      if (err.code === 'EEXIST') throw new ObjectExistsError(key);
      if (err.code !== 'ENOENT') throw err;
      await this.#folder(path.dirname(file), true); // removed since (by hand, a restore): make it again
      return writeDurably(file, bytes);
    });
    return { url: this.#urlOf(key) };
  }

  /**
   * Moves a complete temporary file under its key. A taken key (left by an earlier deployment: the
   * database reserves every name this service gives) keeps the file for the caller to place under
   * another key, so the body is read once and no name is checked before it is (one disk trip less per upload).
   */
  async #place(temporary: string, location: ObjectLocation): Promise<{ url: string }> {
    const key = objectKey(location);
    const file = this.pathOf(key);
    // link() fails when the name exists (rename() would replace it): nothing is ever overwritten,
    // even if two instances share the disk.
    const link = () => fs.promises.link(temporary, file);
    try {
      await this.#folder(path.dirname(file));
      await link().catch(async (err: NodeJS.ErrnoException) => {
        if (err.code !== 'ENOENT') throw err;
        await this.#folder(path.dirname(file), true); // removed since (by hand, a restore): make it again
        return link();
      });
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'EEXIST') {
        throw new ObjectExistsError(key, { placeElsewhere: (next) => this.#place(temporary, next), discard: () => removeQuietly(temporary) });
      }
      await removeQuietly(temporary);
      throw err;
    }
    // In place: a temporary name that will not go is the reconciler's to remove, not this upload's failure.
    await Promise.all([removeQuietly(temporary).catch(() => {}), flusher().flushFolders([path.dirname(file)])]);
    return { url: this.#urlOf(key) };
  }

  /** A hard link to the finished file, flushed first as put() flushes: no copy, and never over an existing key. */
  async adopt(location: ObjectLocation, file: string): Promise<{ url: string }> {
    const key = objectKey(location);
    const target = this.pathOf(key);
    const handle = await fs.promises.open(file, 'r');
    try {
      await handle.sync();
    } finally {
      await handle.close();
    }
    await this.#folder(path.dirname(target), true);
    try {
      await fs.promises.link(file, target);
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      if (code === 'EEXIST') throw new ObjectExistsError(key);
      // Another file system (DATA_DIR/resumable mounted apart) or one without hard links: copy it.
      if (code === 'EXDEV' || code === 'EPERM' || code === 'ENOTSUP') return this.put(location, fs.createReadStream(file));
      throw err;
    }
    await flusher().flushFolders([path.dirname(target)]);
    return { url: this.#urlOf(key) };
  }

  #urlOf(key: string): string {
    return `${this.publicUrl}/files/${key.split('/').map(encodeURIComponent).join('/')}`;
  }

  /** Makes a folder when missing; the names of those it made are flushed into their parents, as a file's name is. */
  async #folder(folder: string, again = false): Promise<void> {
    if (this.#folders.has(folder) && !again) return;
    const first = await fs.promises.mkdir(folder, { recursive: true });
    if (first !== undefined) {
      const parents = [path.dirname(first)];
      for (let made = folder; made !== first; made = path.dirname(made)) parents.splice(1, 0, path.dirname(made));
      await flusher().flushFolders(parents);
    }
    this.#folders.add(folder);
  }

  async open({ key }: { key: string }): Promise<Readable> {
    const handle = await fs.promises.open(this.pathOf(key), 'r').catch((err: NodeJS.ErrnoException) => {
      throw err.code === 'ENOENT' ? new ObjectMissingError(key) : err;
    });
    return handle.createReadStream();
  }

  async remove(location: ObjectLocation): Promise<void> {
    await this.removeObject(objectKey(location));
  }

  async delete({ key }: { key: string }): Promise<void> {
    await this.removeObject(key);
  }

  async check(): Promise<void> {
    await fs.promises.mkdir(this.root, { recursive: true });
    await fs.promises.access(this.root, fs.constants.W_OK);
  }

  async *listObjects(prefix: string): AsyncIterable<StoredObject> {
    const dir = this.pathOf(prefix.replace(/\/+$/, ''));
    for await (const file of walk(dir)) {
      const stat = await fs.promises.stat(file).catch(() => undefined);
      if (stat?.isFile()) yield { key: path.relative(this.root, file).split(path.sep).join('/'), modifiedAt: stat.mtime };
    }
  }

  async *listIncomplete(): AsyncIterable<IncompleteWrite> {
    const dir = path.join(this.root, INCOMING);
    const names = await fs.promises.readdir(dir).catch(() => [] as string[]);
    for (const name of names) {
      // mtime, not birth: a slow upload still being written is recent.
      const stat = await fs.promises.stat(path.join(dir, name)).catch(() => undefined);
      const file = path.join(dir, name);
      if (stat) yield { name: `${INCOMING}/${name}`, startedAt: stat.mtime, remove: () => fs.promises.rm(file, { force: true }) };
    }
  }

  async removeObject(key: string): Promise<void> {
    await fs.promises.rm(this.pathOf(key), { force: true });
  }

  /** The file behind a key; throws when the key would leave the root. */
  pathOf(key: string): string {
    const file = path.resolve(this.root, key);
    if (!file.startsWith(this.root + path.sep)) throw new Error(`Invalid storage key ${key}`);
    return file;
  }
}

/** Up to this size, a document held in memory is written on the event loop (into the page cache), only its flush going elsewhere. */
const SMALL_WRITE_BYTES = 64 * 1024;

/**
 * Creates file (never over an existing one), writes bytes and flushes them and the file's name
 * (with the other uploads' flushes of the moment: flusher.ts); a failure after creation removes it.
 * A small document is written on the event loop (two thread-pool trips cost more than copying 64 KiB
 * into the page cache); a larger one on the thread pool, in one writev.
 */
async function writeDurably(file: string, bytes: readonly Buffer[]): Promise<void> {
  const fd = fs.openSync(file, 'wx');
  try {
    const total = bytes.reduce((n, b) => n + b.length, 0);
    let written = total <= SMALL_WRITE_BYTES ? fs.writevSync(fd, bytes as Buffer[]) : await writev(fd, bytes);
    for (const rest = remainder(bytes, written); rest && written < rest.total; ) written += fs.writeSync(fd, rest.bytes, written, rest.total - written);
    await flusher().flush(fd, path.dirname(file));
  } catch (err) {
    fs.closeSync(fd);
    await removeQuietly(file);
    throw err;
  }
  fs.closeSync(fd);
}

const writev = (fd: number, bytes: readonly Buffer[]) =>
  new Promise<number>((resolve, reject) => fs.writev(fd, bytes as Buffer[], (err, n) => (err ? reject(err) : resolve(n))));

let shared: Flusher | undefined;
/** One flusher for the process: uploads to every folder share its batches. */
const flusher = () => (shared ??= new Flusher());

/** writev may write less than asked (a full disk, a signal): the whole, to write what is left of it. */
function remainder(bytes: readonly Buffer[], written: number): { bytes: Buffer; total: number } | null {
  const total = bytes.reduce((n, b) => n + b.length, 0);
  return written < total ? { bytes: Buffer.concat(bytes as Buffer[]), total } : null;
}

/**
 * A stream writing into an open file, which stays open (and its own) whatever happens to the
 * stream: Node's file streams close their descriptor when destroyed, as a failed pipeline does.
 * Chunks that arrive while a write is under way go out together (writev), up to WRITE_BUFFER_BYTES.
 */
function into(handle: fs.promises.FileHandle): Writable {
  return new Writable({
    highWaterMark: WRITE_BUFFER_BYTES,
    writev(chunks, callback) {
      writeAll(handle, chunks.map((c) => c.chunk as Buffer)).then(() => callback(), callback);
    },
  });
}

/** Writes every byte at the file's position (a write may take fewer bytes than it was given). */
async function writeAll(handle: fs.promises.FileHandle, chunks: readonly Buffer[]): Promise<void> {
  let written = (await handle.writev(chunks as Buffer[])).bytesWritten;
  const rest = remainder(chunks, written);
  while (rest && written < rest.total) written += (await handle.write(rest.bytes, written, rest.total - written)).bytesWritten;
}

/** unlink, not rm: rm checks its path synchronously (an lstat on the event loop) before it starts. */
const removeQuietly = (file: string) =>
  fs.promises.unlink(file).catch((err: NodeJS.ErrnoException) => {
    if (err.code !== 'ENOENT') throw err;
  });

/** Every file under dir, depth first; nothing when dir does not exist. */
async function* walk(dir: string): AsyncIterable<string> {
  const entries = await fs.promises.readdir(dir, { withFileTypes: true }).catch(() => [] as fs.Dirent[]);
  for (const entry of entries) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) yield* walk(full);
    else yield full;
  }
}
