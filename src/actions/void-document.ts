import type { Deps } from '../deps.js';
import { nowIso } from '../deps.js';
import { voidedAction } from '../domain/activity.js';
import { textRefusal } from '../domain/limits.js';
import type { Actor, FileUploadWithNames } from '../domain/model.js';
import { maySeeProject } from '../domain/visibility.js';
import { decideVoid } from '../domain/void-policy.js';
import { errors } from '../errors.js';
import { queueProjectEmails } from '../mail/outbox.js';
import { notifyProjectChanged } from '../realtime/index.js';
import { recordProjectActivity } from './record-activity.js';

/**
 * POST /api/projects/:id/files/:fileId/void (interface.md, "Withdrawing a wrong document"), in an
 * order that leaves nothing reachable whatever fails: (1) the record is marked voided, with its
 * <TYPE>_VOIDED entry and emails, in one commit: from then on it is out of the list's standing
 * documents, the ZIP, duplicate detection and the counts, and GET /files/ answers 404 for it;
 * (2) the bytes are deleted from storage; (3) the record says they are gone. A failure (or a crash)
 * after (1) leaves a deletion pending, which the reconciler finishes (storage/reconcile.ts); the
 * void stands and is answered.
 */
export async function voidDocument(
  deps: Pick<Deps, 'store' | 'storage' | 'realtime' | 'config' | 'clock' | 'log'>,
  actor: Actor,
  projectId: string,
  fileId: string,
  input: { reason?: unknown },
): Promise<FileUploadWithNames> {
  const project = await deps.store.projects.findById(projectId);
  if (!project || !maySeeProject(actor, project)) throw errors.projectNotFound();
  const file = await deps.store.files.findById(fileId);
  if (!file || file.projectId !== project.id) throw errors.documentNotFound();
  const reason = typeof input.reason === 'string' ? input.reason.trim() : '';
  const refusal = textRefusal('reason', reason, true);
  if (refusal) throw refusal;
  const refused = decideVoid(actor, file, deps.clock.now());
  if (refused) throw refused;

  const now = nowIso();
  const details = { filename: file.filename, reason };
  const action = voidedAction(file.type);
  await deps.store.transaction(async (store) => {
    // The conditional update is the guard: of two voids at once, one finds the record voided already.
    if (!(await store.files.markVoided(file.id, { voidedAt: now, voidedById: actor.id, voidReason: reason }))) throw errors.alreadyVoided();
    await recordProjectActivity(store, actor, project.id, action, details, now, { concerned: { fileId: file.id } });
    await queueProjectEmails(store, deps.config.mail.batchSeconds, { actor, project, action, details, at: now });
  });

  try {
    await deps.storage.delete({ key: file.storageKey, url: file.url });
    await deps.store.files.markBytesDeleted(file.id, nowIso());
  } catch (err) {
    deps.log.error({ err, fileId: file.id, key: file.storageKey }, "a withdrawn document's bytes could not be deleted yet: the reconciler will");
  }
  await notifyProjectChanged(deps.realtime, project.id, project.pocId, project.customerId).catch((err: unknown) => deps.log.error({ err }, 'realtime notification failed'));
  return (await deps.store.files.findWithNames(file.id))!;
}
