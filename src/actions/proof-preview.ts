import type { Deps } from '../deps.js';
import type { Actor, FileUpload } from '../domain/model.js';
import type { Proof, ProofWithNames } from '../domain/proofs.js';
import { proofErrors } from '../domain/proofs.js';
import { maySeeProject } from '../domain/visibility.js';
import { errors } from '../errors.js';
import { type PreviewAnswer, previewOfFile } from './document-preview.js';

export type { PreviewAnswer };

/** A proof as the previews read a document: its bytes' key, address, types and SHA-256 (the cache's names). */
export const proofAsDocument = (p: Proof): FileUpload => ({
  id: p.id,
  projectId: p.projectId,
  // Previews never read the type; the record is not a document of the project's.
  type: 'PO',
  url: p.url,
  filename: p.filename,
  size: p.size,
  contentType: p.contentType,
  storageKey: p.storageKey,
  uploadedById: p.postedById,
  createdAt: p.createdAt,
  sha256: p.sha256,
  detectedType: p.detectedType,
  voidedAt: null,
  voidedById: null,
  voidReason: null,
});

/** A page of a proof as a document's preview answers it (actions/document-preview.ts): the same cache, bounds and ETag. */
export async function previewOfProof(
  deps: Pick<Deps, 'storage' | 'previews'>,
  proof: Proof,
  request: { page: number; width: number; ifNoneMatch?: string },
): Promise<PreviewAnswer> {
  return previewOfFile(deps, proofAsDocument(proof), request);
}

/** GET /api/projects/:id/proofs: every version, newest first, for whoever may see the project (404 otherwise). */
export async function listProofs(deps: Pick<Deps, 'store'>, actor: Actor, projectId: string): Promise<ProofWithNames[]> {
  const project = await deps.store.projects.findById(projectId);
  if (!project || !maySeeProject(actor, project)) throw errors.projectNotFound();
  return deps.store.proofs.list(projectId);
}

/** GET /api/projects/:id/proofs/:proofId/preview: for whoever may see the project. */
export async function projectProofPreview(
  deps: Pick<Deps, 'store' | 'storage' | 'previews'>,
  actor: Actor,
  ids: { projectId: string; proofId: string },
  request: { page: number; width: number; ifNoneMatch?: string },
): Promise<PreviewAnswer> {
  const project = await deps.store.projects.findById(ids.projectId);
  if (!project || !maySeeProject(actor, project)) throw errors.projectNotFound();
  const proof = await deps.store.proofs.findById(ids.proofId);
  if (!proof || proof.projectId !== project.id) throw proofErrors.proofNotFound();
  return previewOfProof(deps, proof, request);
}
