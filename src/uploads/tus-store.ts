import path from 'node:path';
import type { Readable } from 'node:stream';
import type { DataStore } from '@tus/server';
import type { Config } from '../config.js';

/**
 * Where a resumable upload's bytes wait until it is finished: a tus DataStore, plus what the
 * completion needs of it. DATA_DIR/resumable (@tus/file-store) in general; with STORAGE_DRIVER=s3,
 * an S3 multipart upload per tus upload in the same bucket (@tus/s3-store), so no instance keeps them.
 */
export interface ResumableStore {
  readonly datastore: DataStore;
  /** The finished upload's bytes: a local file (which a local storage driver may take as it is) or a stream. */
  assembled(id: string): Promise<{ file: string } | { body: Readable }>;
  /** Removes an upload's bytes and bookkeeping, finished or not; an upload already gone is no failure. */
  discard(id: string): Promise<void>;
}

/** The store for the configured storage driver; the S3 one (and its SDK) is loaded only when used. */
export async function createResumableStore(config: Config): Promise<ResumableStore> {
  const expirationPeriodInMilliseconds = config.resumableExpiryMs;
  if (config.storage.driver === 's3') {
    const { S3ResumableStore } = await import('./tus-s3-store.js');
    return new S3ResumableStore(config.storage, expirationPeriodInMilliseconds);
  }
  const { FileStore } = await import('@tus/file-store');
  const directory = path.join(config.dataDir, 'resumable');
  const datastore = new FileStore({ directory, expirationPeriodInMilliseconds });
  return {
    datastore,
    assembled: async (id) => ({ file: path.join(directory, id) }),
    discard: (id) => datastore.remove(id).catch((err: unknown) => ignoreGone(err)),
  };
}

/** tus's "not found" (an object, not an Error): the upload was removed already. */
export function ignoreGone(err: unknown): void {
  if ((err as { status_code?: number } | null)?.status_code === 404) return;
  throw err;
}
