import type { Deps } from '../deps.js';
import { SavepointBroken, type Store } from '../db/store.js';
import { nowIso } from '../deps.js';
import { recordProjectActivity } from '../actions/record-activity.js';
import { uploadedAction } from '../domain/activity.js';
import type { Actor, DocumentType, FileUpload, Project } from '../domain/model.js';
import { newId } from '../ids.js';
import { queueProjectEmails } from '../mail/outbox.js';
import { objectKey } from '../storage/types.js';
import type { PlacedDocument } from './place.js';

/**
 * Specification 4.1 steps 9 and 10: the FileUpload record and the activity entry (and the emails the
 * entry calls for). A later step's failure does not undo an earlier one. The record and the entry are
 * committed together, in the group commit with the other uploads of the moment (db/group-commit.ts);
 * should the entry (or the commit) fail, the record is written again on its own before the failure is answered.
 */
export async function recordDocument(
  deps: Pick<Deps, 'store' | 'config' | 'log'>,
  actor: Actor,
  project: Project,
  type: DocumentType,
  placed: PlacedDocument,
  doc: { filename: string; contentType: string; size: number; sha256: string; detectedType: string | null },
  options: { id?: string; createdAt?: string; within?: (store: Store, record: FileUpload) => Promise<void> } = {},
): Promise<FileUpload> {
  const now = options.createdAt ?? nowIso();
  const record: FileUpload = {
    id: options.id ?? newId(),
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
    voidedAt: null,
    voidedById: null,
    voidReason: null,
  };
  let recorded = false;
  const details = { filename: record.filename, size: record.size };
  const action = uploadedAction(type);
  try {
    await deps.store.groupCommit(async (store) => {
      recorded = false; // a unit may run twice (alone, after its batch failed to commit)
      // A document the service makes itself (the tax invoice) writes its own rows first, in the same commit: their failure records nothing.
      await options.within?.(store, record);
      await store.files.insert(record);
      recorded = true;
      await recordProjectActivity(store, actor, project.id, action, details, now, { concerned: { fileId: record.id } });
      // Issue 12: the emails follow the record and the activity entry, in the same commit (as every
      // project change queues them), and never change the upload's answer: a failure undoes only them.
      await store
        .savepoint(() => queueProjectEmails(store, deps.config.mail.batchSeconds, { actor, project, action, details, at: now }))
        .catch((err: unknown) => {
          if (err instanceof SavepointBroken) throw err;
          deps.log.error({ err, projectId: project.id }, "the upload's emails could not be queued");
        });
    }, { activity: true });
  } catch (err) {
    // Step 9 succeeded and a later one failed: the rollback took the record with it, and it must stay.
    if (recorded) await deps.store.groupCommit((store) => store.files.insert(record));
    throw err;
  }
  return record;
}
