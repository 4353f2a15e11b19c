import fs from 'node:fs';
import { Readable } from 'node:stream';
import type { Deps } from '../deps.js';
import { SavepointBroken } from '../db/store.js';
import { nowIso } from '../deps.js';
import { uploadedAction } from '../domain/activity.js';
import { documentFolder, extensionOf, publicName } from '../domain/documents.js';
import type { Actor, DocumentType, FileUpload, Project } from '../domain/model.js';
import { uploadRefusal } from '../domain/upload-policy.js';
import { newId } from '../ids.js';
import { queueProjectEmails } from '../mail/outbox.js';
import { notifyProjectChanged } from '../realtime/index.js';
import { type ObjectLocation, ObjectExistsError, objectKey } from '../storage/types.js';
import { recordProjectActivity } from './record-activity.js';

/** Specification 4.1 checks 4–7 against the stored project: returns the project, or throws the refusal. */
export async function authorizeUpload(deps: Pick<Deps, 'store'>, actor: Actor, projectId: string, type: DocumentType): Promise<Project> {
  const project = await deps.store.projects.findById(projectId);
  const refusal = uploadRefusal(actor, project, type);
  if (refusal) throw refusal;
  return project!;
}

export interface IncomingDocument {
  filename: string;
  contentType: string;
  /** The file's bytes; an error on this stream (size limit, broken body) fails the upload. */
  body: Readable;
  /** What the first bytes are (uploads/inspect.ts): a store that keeps headers with the object serves active content as a download. */
  detectedType?: string | null;
}

/** A document whose bytes are a finished local file (a resumable upload's): a store that can adopts it without a copy. */
export type LocalDocument = Omit<IncomingDocument, 'body'> & { file: string };

/** A small document already whole in memory (http/receive-upload.ts): stored in one write where the store can. */
export type BufferedDocument = Omit<IncomingDocument, 'body'> & { bytes: readonly Buffer[] };

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
  type: DocumentType,
  doc: IncomingDocument | LocalDocument | BufferedDocument,
): Promise<PlacedDocument> {
  const folder = documentFolder(projectId, type);
  const extension = extensionOf(doc.filename);
  // Bytes a store kept when their name turned out taken after it had read them: placed, not read again.
  let staged: ObjectExistsError['staged'];
  for (let ms = Date.now(); ; ms++) {
    const location: ObjectLocation = { folder, publicName: publicName(type, ms), extension };
    const reserved = await deps.store.storageNames.reserve(objectKey(location), nowIso()).catch(async (err: unknown) => {
      await staged?.discard().catch(() => {}); // the reconciler removes it; the database's failure is the answer
      throw err;
    });
    if (!reserved) continue;
    try {
      const { url } = staged
        ? await staged.placeElsewhere(location)
        : 'file' in doc
          ? await placeFile(deps.storage, location, doc)
          : 'bytes' in doc
            ? await placeBytes(deps.storage, location, doc)
            : await deps.storage.put(location, doc.body, doc.contentType, doc.filename, doc.detectedType ?? null);
      return { location, url };
    } catch (err) {
      // Left by an earlier deployment: keep the reservation and try the next name, unless the
      // store only said so after reading the body and kept nothing (S3 conditional write, Cloudinary): those bytes are gone.
      if (err instanceof ObjectExistsError) {
        staged = err.staged;
        if (staged || !('body' in doc) || !doc.body.readableDidRead) continue; // a file or bytes in memory can be read again
        throw err;
      }
      await deps.store.storageNames.release(objectKey(location)).catch(() => {});
      throw err;
    }
  }
}

/** A local file into storage: adopted where the driver can, else streamed. */
function placeFile(storage: Deps['storage'], location: ObjectLocation, doc: LocalDocument): Promise<{ url: string }> {
  const detected = doc.detectedType ?? null;
  if (storage.adopt) return storage.adopt(location, doc.file, doc.contentType, doc.filename, detected);
  return storage.put(location, fs.createReadStream(doc.file), doc.contentType, doc.filename, detected);
}

/** Bytes in memory into storage: in one write where the driver can, else streamed. */
function placeBytes(storage: Deps['storage'], location: ObjectLocation, doc: BufferedDocument): Promise<{ url: string }> {
  const detected = doc.detectedType ?? null;
  if (storage.putBytes) return storage.putBytes(location, doc.bytes, doc.contentType, doc.filename, detected);
  return storage.put(location, Readable.from(doc.bytes, { objectMode: false }), doc.contentType, doc.filename, detected);
}

/** Undoes step 8 when the request turns out broken after the bytes were stored: nothing is kept. */
export async function discardPlacedDocument(deps: Pick<Deps, 'store' | 'storage'>, placed: PlacedDocument): Promise<void> {
  await deps.storage.remove(placed.location);
  await deps.store.storageNames.release(objectKey(placed.location));
}

/**
 * Specification 4.1 steps 9–11: the FileUpload record, the activity entry, the two notifications.
 * A later step's failure does not undo an earlier one. The record and the entry are committed
 * together (one write to the database instead of two); should the entry (or the commit) fail, the
 * record is written again on its own before the failure is answered. The notifications go out after both.
 */
export async function recordDocument(
  deps: Pick<Deps, 'store' | 'realtime' | 'config' | 'log'>,
  actor: Actor,
  project: Project,
  type: DocumentType,
  placed: PlacedDocument,
  doc: { filename: string; contentType: string; size: number; sha256: string; detectedType: string | null },
): Promise<FileUpload> {
  const now = nowIso();
  const record: FileUpload = {
    id: newId(),
    projectId: project.id,
    type,
    url: placed.url,
    filename: doc.filename,
    size: doc.size,
    contentType: doc.contentType,
    storageKey: objectKey(placed.location),
    uploadedById: actor.id,
    createdAt: now,
    sha256: doc.sha256,
    detectedType: doc.detectedType,
  };
  let recorded = false;
  const details = { filename: record.filename, size: record.size };
  const action = uploadedAction(type);
  try {
    await deps.store.transaction(async (store) => {
      await store.files.insert(record);
      recorded = true;
      await recordProjectActivity(store, actor, project.id, action, details, now);
      // Issue 12: the emails follow the record and the activity entry, in the same commit (as every
      // project change queues them), and never change the upload's answer: a failure undoes only them.
      await store
        .savepoint(() => queueProjectEmails(store, deps.config.mail.batchSeconds, { actor, project, action, details, at: now }))
        .catch((err: unknown) => {
          if (err instanceof SavepointBroken) throw err;
          deps.log.error({ err, projectId: project.id }, "the upload's emails could not be queued");
        });
    });
  } catch (err) {
    // Step 9 succeeded and a later one failed: the rollback took the record with it, and it must stay.
    if (recorded) await deps.store.files.insert(record);
    throw err;
  }
  await notifyProjectChanged(deps.realtime, project.id, project.pocId);
  return record;
}
