import type { Deps } from '../deps.js';
import { SavepointBroken, type Store } from '../db/store.js';
import { nowIso } from '../deps.js';
import { uploadedAction } from '../domain/activity.js';
import type { Actor, DocumentType, FileUpload, Project } from '../domain/model.js';
import { newId } from '../ids.js';
import { projectEmailRecipients, queueProjectEmailsTo } from '../mail/outbox.js';
import { queueWebhookEvent } from '../webhooks/outbox.js';
import { isDependencyUnavailable } from '../domain/outage.js';
import { objectKey } from '../storage/types.js';
import type { PlacedDocument } from './place.js';

/**
 * Specification 4.1 steps 9 and 10: the FileUpload record and the activity entry (and the emails the
 * entry calls for). A later step's failure does not undo an earlier one. The record and the entry are
 * committed together (one statement on PostgreSQL), in the group commit with the other uploads of the
 * moment (db/group-commit.ts); should the entry (or the commit) fail, the record is written again on
 * its own before the failure is answered.
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
  // How far the unit got: its own rows (options.within), then the record with its entry, then the rest.
  let reached = 'within' as 'within' | 'entry' | 'recorded';
  const details = { filename: record.filename, size: record.size };
  const action = uploadedAction(type);
  const change = { actor, project, action, details, at: now };
  try {
    const unit = async (store: Store) => {
      reached = 'within'; // a unit may run twice (alone, after its batch failed to commit)
      // A document the service makes itself (the tax invoice) writes its own rows first, in the same commit: their failure records nothing.
      await options.within?.(store, record);
      reached = 'entry';
      // The record and its activity entry (as recordProjectActivity writes it): one statement on PostgreSQL (db/activity.ts).
      const seq = await store.activity.insert({ id: newId(), userId: actor.id, action, entityType: 'project', entityId: project.id, details, createdAt: now, internal: false }, { file: record });
      reached = 'recorded';
      await queueWebhookEvent(store, { actorId: actor.id, projectId: project.id, action, details, at: now, concerned: { fileId: record.id }, seq });
      // Issue 12: the emails follow the record and the activity entry, in the same commit (as every
      // project change queues them), and never change the upload's answer: a failure of their writes
      // undoes only them. The recipients are read first, outside that savepoint (a read that fails
      // fails the unit, as a failed read of the webhooks does), so an upload nobody is emailed about
      // sets no savepoint: two round trips fewer on PostgreSQL.
      const recipients = await projectEmailRecipients(store, change);
      if (!recipients.length) return;
      await store.savepoint(() => queueProjectEmailsTo(store, deps.config.mail.batchSeconds, change, recipients)).catch((err: unknown) => {
        if (err instanceof SavepointBroken) throw err;
        deps.log.error({ err, projectId: project.id }, "the upload's emails could not be queued");
      });
    };
    // Rows of its own may change what the event carries of the project: the batch's shared read of it (db/store.ts) is made again in it, and after it (they may be undone).
    const ownRows = (store: Store) => {
      store.forgetProjectReads();
      return unit(store).finally(() => store.forgetProjectReads());
    };
    await deps.store.groupCommit(options.within ? ownRows : unit, { activity: true, noSavepoint: !options.within }); // no savepoint in its batch: should it fail, the others run again alone (db/group-commit.ts)
  } catch (err) {
    // Step 9 succeeded and a later one failed: the rollback took the record with it, and it must stay.
    if (reached === 'recorded') await deps.store.groupCommit((store) => store.files.insert(record));
    // The statement writing the record with its entry failed, and which of the two is not known: the
    // record alone tells (written: step 10 failed; refused: step 9 did, and nothing is kept). Not
    // tried when the database is unreachable, as it was not before this statement was one.
    else if (reached === 'entry' && !isDependencyUnavailable(err)) await deps.store.groupCommit((store) => store.files.insert(record)).catch(() => {});
    throw err;
  }
  return record;
}
