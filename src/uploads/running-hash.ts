import { Transform, type Readable } from 'node:stream';
import type { DataStore } from '@tus/server';
import { SNIFF_BYTES } from '../domain/content-types.js';
import { StreamingSha256 } from './sha256.js';

interface Running {
  /** The upload's offset the hash has reached: the next write continues it only from there. */
  offset: number;
  hash: StreamingSha256;
  head: Buffer;
}

/** Uploads followed at once; past it the oldest is forgotten (its completion reads the bytes again). */
const MAX_FOLLOWED = 1000;

/**
 * The SHA-256 and first bytes of the resumable uploads this instance is receiving, kept while the
 * PATCH bytes go into the tus store, so a finished upload needs no second read to be hashed and
 * recognised. A write continues the hash only from where it stopped; an upload whose earlier bytes
 * went through another instance (or a process since restarted), or a write that failed part-way,
 * is no longer followed, and its completion reads the assembled bytes through the inspector instead.
 */
export class RunningHashes {
  readonly #uploads = new Map<string, Running>();

  /** Wraps the datastore's write so the bytes it stores pass through the hash on the way. */
  follow(datastore: DataStore): void {
    const write = datastore.write.bind(datastore);
    datastore.write = async (source: Readable, id: string, offset: number): Promise<number> => {
      const known = this.#uploads.get(id);
      // Taken out while the write runs: a second write to the upload (another lock holder) finds nothing to continue.
      this.#uploads.delete(id);
      const running = offset === 0 ? { offset: 0, hash: new StreamingSha256(), head: Buffer.alloc(0) } : known?.offset === offset ? known : undefined;
      if (known && known !== running) known.hash.destroy();
      if (!running) return write(source, id, offset);
      let seen = 0;
      const tap = new Transform({
        transform(chunk: Buffer, _enc, callback) {
          if (running.head.length < SNIFF_BYTES) running.head = Buffer.concat([running.head, chunk.subarray(0, SNIFF_BYTES - running.head.length)]);
          seen += chunk.length;
          running.hash.update(chunk);
          callback(null, chunk);
        },
      });
      source.on('error', (err) => tap.destroy(err));
      let written: number;
      try {
        written = await write(source.pipe(tap), id, offset);
      } catch (err) {
        running.hash.destroy();
        throw err;
      }
      // Every byte that passed was stored, and only those: the hash matches the upload up to `written`.
      if (written !== offset + seen) {
        running.hash.destroy();
        return written;
      }
      running.offset = written;
      this.#uploads.set(id, running);
      if (this.#uploads.size > MAX_FOLLOWED) this.#forget(this.#uploads.keys().next().value!);
      return written;
    };
  }

  /** The finished upload's SHA-256 and first bytes, when this instance saw all `size` of them; forgets the upload either way. */
  async take(id: string, size: number): Promise<{ sha256: string; head: Buffer } | undefined> {
    const running = this.#uploads.get(id);
    this.#uploads.delete(id);
    if (!running) return undefined;
    if (running.offset !== size) {
      running.hash.destroy();
      return undefined;
    }
    return { sha256: await running.hash.digest(), head: running.head };
  }

  forget(id: string): void {
    this.#forget(id);
  }

  #forget(id: string): void {
    this.#uploads.get(id)?.hash.destroy();
    this.#uploads.delete(id);
  }
}
