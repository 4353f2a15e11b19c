import type { Deps } from '../deps.js';
import { nowIso } from '../deps.js';
import type { DocumentAccess } from '../domain/documents.js';
import type { Actor, Project } from '../domain/model.js';
import { type Proof, type ProofWithNames, decidePost, postNote, proofErrors, statusAfterNewVersion } from '../domain/proofs.js';
import { AppError } from '../errors.js';
import { newId } from '../ids.js';
import { queueProjectEmails } from '../mail/outbox.js';
import { presentProof } from '../presenters/proofs.js';
import { notifyProjectChanged } from '../realtime/index.js';
import { objectKey } from '../storage/types.js';
import { admitType } from '../uploads/admit-type.js';
import type { IncomingFile } from '../uploads/index.js';
import { type PlacedDocument, discardPlacedDocument, placeDocument } from '../uploads/place.js';
import type { ProofSource } from '../uploads/proof-form.js';
import { recordProjectActivity } from './record-activity.js';

/**
 * POST /api/projects/:id/proofs: a new version of the artwork, stored as an upload stores a document
 * (uploads/: the type rule, the bytes streamed into storage under a reserved name with their SHA-256
 * and recognised type, MAX_UPLOAD_BYTES), in folder print-orders/<id>/proof.
 *
 * 1. who may post, before a byte is read (the project is in the address);
 * 2. the form: the file streams into storage as it arrives, the note is read wherever it comes;
 * 3. the record, under the project's lock: the next version number, the pending one before it
 *    superseded, PROOF_POSTED with its emails and webhook event, in one transaction. A post refused
 *    or failed up to here removes its bytes and takes no number.
 * 4. the two notifications.
 */
export async function postProof(
  deps: Pick<Deps, 'store' | 'storage' | 'config' | 'realtime' | 'log'>,
  actor: Actor & { name?: string },
  projectId: string,
  source: ProofSource,
  access: DocumentAccess,
): Promise<ProofWithNames> {
  let form;
  try {
    const refusal = decidePost(actor, (await deps.store.projects.findById(projectId)) ?? null);
    if (refusal) throw refusal;
    form = await source.read(
      (file: IncomingFile) =>
        file.read(async (bytes) => {
          admitType(deps.config.uploadAllowedTypes, file.contentType, bytes.detectedType);
          return placeDocument(deps, projectId, 'PROOF', file, bytes);
        }),
      (placed: PlacedDocument) => discardPlacedDocument(deps, placed),
    );
  } finally {
    source.close();
  }
  const { file, placed } = form;
  if (!file || !placed) throw proofErrors.fileRequired();
  const discard = (err: unknown) =>
    discardPlacedDocument(deps, placed)
      .catch((e: unknown) => deps.log.error({ err: e }, 'could not discard a refused proof'))
      .then(() => {
        throw err;
      });
  const note = postNote(form.note);
  if (note instanceof AppError) return discard(note);
  const inspection = file.inspection();
  const now = nowIso();
  let project: Project;
  let proof: ProofWithNames;
  try {
    ({ project, proof } = await deps.store.transaction(async (store) => {
      const project = await store.projects.findById(projectId, { forUpdate: true });
      // Read again under the lock: the project may have been dispatched while the bytes came.
      const refusal = decidePost(actor, project ?? null);
      if (refusal) throw refusal;
      const latest = await store.proofs.latest(projectId, { forUpdate: true });
      if (latest && statusAfterNewVersion(latest.status) !== latest.status) await store.proofs.setStatus(latest.id, statusAfterNewVersion(latest.status));
      const record: Proof = {
        id: newId(),
        projectId,
        version: (latest?.version ?? 0) + 1,
        filename: file.filename,
        size: inspection.size,
        contentType: file.contentType,
        detectedType: inspection.detectedType,
        sha256: inspection.sha256,
        storageKey: objectKey(placed.location),
        url: placed.url,
        note,
        status: 'pending',
        postedById: actor.id,
        createdAt: now,
        response: null,
      };
      await store.proofs.insert(record);
      const proof: ProofWithNames = { ...record, postedByName: actor.name ?? (await store.users.findById(actor.id))?.name ?? null };
      const details = { proofId: record.id, version: record.version, filename: record.filename };
      await recordProjectActivity(store, actor, projectId, 'PROOF_POSTED', details, now, { concerned: { data: { proof: presentProof(proof, access) } } });
      await queueProjectEmails(store, deps.config.mail.batchSeconds, { actor, project: project!, action: 'PROOF_POSTED', details, at: now });
      return { project: project!, proof };
    }));
  } catch (err) {
    return discard(err);
  }
  await notifyProjectChanged(deps.realtime, project.id, project.pocId, project.customerId).catch((err: unknown) => deps.log.error({ err }, 'realtime notification failed'));
  return proof;
}
