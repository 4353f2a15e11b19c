import type { Readable } from 'node:stream';

/** Where one document goes: the specification's folder and public name, plus the original extension. */
export interface ObjectLocation {
  folder: string;
  publicName: string;
  extension: string | null;
}

/** The object's key inside the store: `<folder>/<public name>[.<ext>]`. */
export const objectKey = (o: ObjectLocation): string => `${o.folder}/${o.publicName}${o.extension ? `.${o.extension}` : ''}`;

/**
 * A place documents are kept. Implementations stream (never hold a whole file in memory) and
 * never overwrite: the service reserves each key in the database first, and a driver refuses a key
 * that is taken anyway.
 */
export interface FileStorage {
  readonly driver: string;
  /**
   * Streams body into a new object; resolves with its secure public URL once every byte is stored.
   * When the key is taken it rejects with ObjectExistsError, where it can before reading body.
   * `filename` (the original name) is for stores that keep a download name with the object.
   */
  put(location: ObjectLocation, body: Readable, contentType: string, filename?: string): Promise<{ url: string }>;
  /** Removes an object (used when an upload is refused or broken after bytes were written). */
  remove(location: ObjectLocation): Promise<void>;
  /** Throws when the store cannot be reached (readiness). */
  check(): Promise<void>;
}

/**
 * Raised by a driver when the key is taken. The caller moves on to the next free name when the
 * body is still unread; once read, its bytes cannot be sent again and the upload fails.
 */
export class ObjectExistsError extends Error {
  constructor(key: string) {
    super(`Storage object ${key} already exists`);
  }
}
