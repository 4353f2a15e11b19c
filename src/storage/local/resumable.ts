import fs from 'node:fs';
import path from 'node:path';
import { type Readable, Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { FileConfigstore, FileStore } from '@tus/file-store';
import { type KvStore, type Upload, ERRORS } from '@tus/server';
import type { ResumableStore } from '../types.js';

const WRITE_BUFFER_BYTES = 1024 * 1024;

/**
 * Resumable uploads' bytes in `directory` (DATA_DIR/resumable) on this instance's disk (@tus/file-store):
 * the local driver adopts a finished one as it is, other stores read it from there.
 */
export function createFileResumableStore(directory: string, expirationPeriodInMilliseconds: number): ResumableStore {
  /** @tus/file-store, writing through a 1 MiB buffer: chunks that arrive during a write go out together (its own writes 16 KiB at a time). */
  class BufferedFileStore extends FileStore {
    override async write(readable: Readable, id: string, offset: number): Promise<number> {
      if (!/^[\w-]+$/.test(id)) throw ERRORS.FILE_NOT_FOUND;
      let received = 0;
      const counter = new Transform({
        transform(chunk: Buffer, _enc, callback) {
          received += chunk.length;
          callback(null, chunk);
        },
      });
      const file = fs.createWriteStream(path.join(directory, id), { flags: 'r+', start: offset, highWaterMark: WRITE_BUFFER_BYTES });
      // As @tus/file-store: a failed write keeps what reached the file (HEAD reports it), and says so.
      await pipeline(readable, counter, file).catch(() => {
        throw ERRORS.FILE_WRITE_ERROR;
      });
      this.#flushBehind(id);
      return offset + received;
    }

    readonly #flushing = new Set<string>();

    /**
     * Starts putting what this PATCH wrote on disk, without holding up its answer: the disk works while
     * the client sends the next chunk, and the completion's own flush (adopt) finds little left to do.
     * Only a speed-up: a failure here is left for that flush to meet.
     */
    #flushBehind(id: string): void {
      if (this.#flushing.has(id)) return;
      this.#flushing.add(id);
      void fs.promises
        .open(path.join(directory, id), 'r')
        .then((handle) => handle.datasync().finally(() => handle.close()))
        .catch(() => {})
        .finally(() => this.#flushing.delete(id));
    }
  }
  const datastore = new BufferedFileStore({ directory, expirationPeriodInMilliseconds, configstore: cachedConfigstore(new FileConfigstore(directory)) });
  return {
    datastore,
    assembled: async (id) => ({ file: path.join(directory, id) }),
    discard: (id) => datastore.remove(id).catch((err: unknown) => ignoreGone(err)),
  };
}

/** Descriptions kept in memory at once; past it the oldest is read from its file again. */
const CACHED_DESCRIPTIONS = 1000;

/**
 * An upload's description (`<id>.json`: size, metadata, creation date) read once per instance
 * instead of on every PATCH and HEAD. It does not change once its size is known (the offset is the
 * file's length), so a copy cannot go stale on another instance sharing DATA_DIR/resumable; a
 * deferred length is read from the file each time until declared.
 */
function cachedConfigstore(files: KvStore<Upload>): KvStore<Upload> {
  const cache = new Map<string, Upload>();
  return {
    async get(id) {
      const known = cache.get(id);
      if (known) return known;
      const read = await files.get(id);
      if (read?.size !== undefined) {
        cache.set(id, read);
        if (cache.size > CACHED_DESCRIPTIONS) cache.delete(cache.keys().next().value!);
      }
      return read;
    },
    async set(id, upload) {
      cache.delete(id);
      await files.set(id, upload);
    },
    async delete(id) {
      cache.delete(id);
      await files.delete(id);
    },
    list: () => files.list!(),
  };
}

/** tus's "not found" (an object, not an Error): the upload was removed already. */
export function ignoreGone(err: unknown): void {
  if ((err as { status_code?: number } | null)?.status_code === 404) return;
  throw err;
}
