import fs from 'node:fs';
import { Readable } from 'node:stream';
import type { Deps } from '../deps.js';
import { nowIso } from '../deps.js';
import { type StoredKind, documentFolder, extensionOf, publicName } from '../domain/documents.js';
import { type ObjectLocation, ObjectExistsError, objectKey } from '../storage/types.js';
import { nowMs } from '../clock.js';

/**
 * A document's bytes as step 8 takes them, and the type their first bytes show (uploads/inspect.ts: a
 * store that keeps headers with the object serves active content as a download):
 * - `body`: a stream; an error on it (size limit, broken body) fails the upload;
 * - `file`: a finished local file (a resumable upload's), adopted without a copy where the store can;
 * - `bytes`: a small document already whole in memory, stored in one write where the store can.
 */
export type DocumentBytes = ({ body: Readable } | { file: string } | { bytes: readonly Buffer[] }) & { detectedType: string | null };

/** What step 8 keeps of the file besides its bytes. */
export interface DocumentFile {
  filename: string;
  contentType: string;
}

/** A document whose bytes are in storage but not yet recorded. */
export interface PlacedDocument {
  location: ObjectLocation;
  url: string;
}

/**
 * Specification 4.1 step 8: stream the bytes into storage under a fresh public name. A taken name
 * moves to the next free millisecond; the database reservation decides, across instances.
 */
export async function placeDocument(
  deps: Pick<Deps, 'store' | 'storage'>,
  projectId: string,
  type: StoredKind,
  doc: DocumentFile,
  bytes: DocumentBytes,
): Promise<PlacedDocument> {
  const folder = documentFolder(projectId, type);
  const extension = extensionOf(doc.filename);
  // Bytes a store kept when their name turned out taken after it had read them: placed, not read again.
  let staged: ObjectExistsError['staged'];
  for (let ms = nowMs(); ; ms++) {
    const location: ObjectLocation = { folder, publicName: publicName(type, ms), extension };
    const key = objectKey(location);
    // Durable before the bytes are placed: in the group commit with the other uploads of the moment (SQLite), a statement of its own (PostgreSQL).
    const reserved = await deps.store.groupCommit((store) => store.storageNames.reserve(key, nowIso()), { oneStatement: true }).catch(async (err: unknown) => {
      await staged?.discard().catch(() => {}); // the reconciler removes it; the database's failure is the answer
      throw err;
    });
    if (!reserved) continue;
    try {
      const { url } = staged
        ? await staged.placeElsewhere(location)
        : 'file' in bytes
          ? await placeFile(deps.storage, location, doc, bytes)
          : 'bytes' in bytes
            ? await placeBytes(deps.storage, location, doc, bytes)
            : await deps.storage.put(location, bytes.body, doc.contentType, doc.filename, bytes.detectedType);
      return { location, url };
    } catch (err) {
      // Left by an earlier deployment: keep the reservation and try the next name, unless the
      // store only said so after reading the body and kept nothing (S3 conditional write, Cloudinary): those bytes are gone.
      if (err instanceof ObjectExistsError) {
        staged = err.staged;
        if (staged || !('body' in bytes) || !bytes.body.readableDidRead) continue; // a file or bytes in memory can be read again
        throw err;
      }
      await deps.store.storageNames.release(key).catch(() => {});
      throw err;
    }
  }
}

/** A local file into storage: adopted where the driver can, else streamed. */
function placeFile(storage: Deps['storage'], location: ObjectLocation, doc: DocumentFile, { file, detectedType }: Extract<DocumentBytes, { file: string }>): Promise<{ url: string }> {
  if (storage.adopt) return storage.adopt(location, file, doc.contentType, doc.filename, detectedType);
  return storage.put(location, fs.createReadStream(file), doc.contentType, doc.filename, detectedType);
}

/** Bytes in memory into storage: in one write where the driver can, else streamed. */
function placeBytes(storage: Deps['storage'], location: ObjectLocation, doc: DocumentFile, { bytes, detectedType }: Extract<DocumentBytes, { bytes: readonly Buffer[] }>): Promise<{ url: string }> {
  if (storage.putBytes) return storage.putBytes(location, bytes, doc.contentType, doc.filename, detectedType);
  return storage.put(location, Readable.from(bytes, { objectMode: false }), doc.contentType, doc.filename, detectedType);
}

/** Undoes step 8 when the request turns out broken after the bytes were stored: nothing is kept. */
export async function discardPlacedDocument(deps: Pick<Deps, 'store' | 'storage'>, placed: PlacedDocument): Promise<void> {
  await deps.storage.remove(placed.location);
  await deps.store.storageNames.release(objectKey(placed.location));
}

