import type { Deps } from '../deps.js';
import type { Actor, FileUpload } from '../domain/model.js';
import { maySeeProject, viewerOf } from '../domain/visibility.js';
import { errors } from '../errors.js';
import { proofAsDocument } from './proof-preview.js';

/**
 * DOCUMENT_ACCESS=private: the document at a storage key, when the user may see its project at this
 * moment (the one visibility rule). An unknown key and a project they may not see answer the same
 * 404, so an address cannot be probed.
 */
export async function findVisibleDocument(deps: Pick<Deps, 'store'>, actor: Actor, key: string): Promise<FileUpload> {
  // A proof's bytes are stored like a document's, and answered to the same people (interface.md, Proofs).
  const file = (await deps.store.files.findByStorageKey(key)) ?? (await storedProof(deps, key));
  // A withdrawn document is gone for everyone, its bytes deleted or about to be.
  if (!file || file.voidedAt !== null) throw errors.notFound();
  const project = await deps.store.projects.findById(file.projectId);
  if (!project || !maySeeProject(viewerOf(actor), project)) throw errors.notFound();
  return file;
}

/** The proof stored at a key, as a document is served. */
export async function storedProof(deps: Pick<Deps, 'store'>, key: string): Promise<FileUpload | undefined> {
  const proof = await deps.store.proofs.findByStorageKey(key);
  return proof && proofAsDocument(proof);
}
