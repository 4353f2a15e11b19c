import type { Readable } from 'node:stream';
import type { DataStore } from '@tus/server';

/** Where one document goes: the specification's folder and public name, plus the original extension. */
export interface ObjectLocation {
  folder: string;
  publicName: string;
  extension: string | null;
}

/** The object's key inside the store: `<folder>/<public name>[.<ext>]`. */
export const objectKey = (o: ObjectLocation): string => `${o.folder}/${o.publicName}${o.extension ? `.${o.extension}` : ''}`;

/** The location a key was made from (objectKey's inverse: public names hold no dot). */
export function locationOf(key: string): ObjectLocation {
  const slash = key.lastIndexOf('/');
  const name = key.slice(slash + 1);
  const dot = name.indexOf('.');
  return { folder: key.slice(0, Math.max(slash, 0)), publicName: dot < 0 ? name : name.slice(0, dot), extension: dot < 0 ? null : name.slice(dot + 1) };
}

/**
 * A place documents are kept. Implementations stream (never hold a whole file in memory) and
 * never overwrite: the service reserves each key in the database first, and a driver refuses a key
 * that is taken anyway. Every call that goes over the network fails (rejects with an Error saying
 * what and why) within a bound when the store is away, instead of hanging.
 *
 * Every driver passes the contract in storage/contract.test.ts; each is made by the factory in
 * storage/index.ts, the one place a driver is chosen.
 */
export interface FileStorage {
  readonly driver: string;
  /**
   * Set by a store whose documents the service itself serves, at `<PUBLIC_URL>/files/<key>` (the
   * local driver): the directory holding each object at `<root>/<key>`. GET /files/* exists only
   * then; the other stores' URLs are their own.
   */
  readonly servesOwnFiles?: { readonly root: string };
  /**
   * Streams body into a new object; resolves with its secure public URL once every byte is stored.
   * When the key is taken it rejects with ObjectExistsError, where it can before reading body.
   * When body fails (broken off, over the size limit) it rejects with body's own error and keeps
   * nothing under the key.
   * `filename` (the original name) is for stores that keep a download name with the object, and
   * `detectedType` (what the first bytes are) for those that keep its disposition too.
   */
  put(location: ObjectLocation, body: Readable, contentType: string, filename?: string, detectedType?: string | null): Promise<{ url: string }>;
  /**
   * Optional: stores a document already whole in memory (a small one) in one write, without a
   * stream; otherwise the caller streams it through put(). Rejects with ObjectExistsError when the key is taken.
   */
  putBytes?(location: ObjectLocation, bytes: readonly Buffer[], contentType: string, filename?: string, detectedType?: string | null): Promise<{ url: string }>;
  /**
   * Optional: makes a finished local file (a resumable upload's assembled bytes) the object, without
   * copying it where the store can (a link on the same file system); otherwise as put() from the file.
   * The file stays where it is, for its owner to remove. Rejects with ObjectExistsError when the key is taken.
   */
  adopt?(location: ObjectLocation, file: string, contentType: string, filename?: string, detectedType?: string | null): Promise<{ url: string }>;
  /**
   * Streams a stored document's bytes (the documents ZIP). Rejects with ObjectMissingError when
   * the store does not hold it, before a byte is sent.
   */
  open(object: { key: string; url: string }): Promise<Readable>;
  /**
   * Set by a store whose documents its own origin serves (S3, Cloudinary): a short-lived signed
   * address of the object, valid for `seconds`, for DOCUMENT_ACCESS=private, where the service
   * checks who asks and then redirects there (http/routes/files.ts).
   */
  signedAddress?(object: { key: string; url: string }, seconds: number, method?: 'GET' | 'HEAD'): Promise<string>;
  /**
   * Removes an object (used when an upload is refused or broken after bytes were written). A key
   * that holds nothing is no failure, so removing twice is fine.
   */
  remove(location: ObjectLocation): Promise<void>;
  /**
   * Deletes a recorded document's bytes for good (a voided document), found by its key and the URL
   * put() answered for it: once it resolves, open() rejects with ObjectMissingError and the URL no
   * longer gives the bytes (a store with a CDN invalidates its copies too). A key that holds
   * nothing is no failure, so deleting twice is fine (the reconciler retries a failed deletion).
   */
  delete(object: { key: string; url: string }): Promise<void>;
  /** Throws when the store cannot be reached (readiness). */
  check(): Promise<void>;
}

/** A complete object in a store, as a listing shows it. */
export interface StoredObject {
  key: string;
  modifiedAt: Date;
}

/** A write that never completed: a local temporary file, an S3 multipart upload never completed or aborted. */
export interface IncompleteWrite {
  /** What to show: the temporary file's name, or the multipart upload's key and id. */
  name: string;
  startedAt: Date;
  /** Deletes what was written (the temporary file; the upload's parts). */
  remove(): Promise<void>;
}

/**
 * What the reconciler (storage/reconcile.ts) needs of a store: drivers that can list their
 * objects implement it (local, S3); Cloudinary's listing is a rate-limited admin API, so it does not.
 */
export interface ListableStorage {
  /** Every complete object whose key starts with prefix. */
  listObjects(prefix: string): AsyncIterable<StoredObject>;
  /** Writes that began and never completed (crashed uploads). */
  listIncomplete(): AsyncIterable<IncompleteWrite>;
  /** Removes an object by its key; like remove(), a key that holds nothing is no failure. */
  removeObject(key: string): Promise<void>;
}

export const isListable = (s: FileStorage): s is FileStorage & ListableStorage => 'listObjects' in s && 'listIncomplete' in s;

/**
 * Raised by a driver when the key is taken. The caller moves on to the next free name when the
 * body is still unread; once read, its bytes cannot be sent again and the upload fails.
 */
export class ObjectExistsError extends Error {
  /**
   * @param placeElsewhere Set by a store that still holds the bytes it read (the local driver keeps
   * its temporary file): puts them under another key instead, without reading the body again.
   * Whoever catches the error calls it, or `discard`, exactly once.
   */
  constructor(
    key: string,
    readonly staged?: { placeElsewhere(location: ObjectLocation): Promise<{ url: string }>; discard(): Promise<void> },
  ) {
    super(`Storage object ${key} already exists`);
  }
}

/** Raised by a driver's open() when the store does not hold the object. */
export class ObjectMissingError extends Error {
  constructor(key: string) {
    super(`Storage object ${key} is missing`);
  }
}

/**
 * Where a resumable upload's bytes wait until it is finished: a tus DataStore, plus what the
 * completion needs of it. Each storage driver names its own in the factory (storage/index.ts): the
 * S3 driver keeps them in its bucket (s3/resumable.ts), so no instance holds them; the others on
 * this instance's disk, DATA_DIR/resumable (local/resumable.ts).
 */
export interface ResumableStore {
  readonly datastore: DataStore;
  /** The finished upload's bytes: a local file (which a store with adopt() may take as it is) or a stream. */
  assembled(id: string): Promise<{ file: string } | { body: Readable }>;
  /** Removes an upload's bytes and bookkeeping, finished or not; an upload already gone is no failure. */
  discard(id: string): Promise<void>;
}
