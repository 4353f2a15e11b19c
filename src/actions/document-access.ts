import type { Deps } from '../deps.js';
import type { Actor, FileUpload } from '../domain/model.js';
import { maySeeProject, viewerOf } from '../domain/visibility.js';
import { errors } from '../errors.js';

/**
 * DOCUMENT_ACCESS=private: the document at a storage key, when the user may see its project at this
 * moment (the one visibility rule). An unknown key and a project they may not see answer the same
 * 404, so an address cannot be probed.
 */
export async function findVisibleDocument(deps: Pick<Deps, 'store'>, actor: Actor, key: string): Promise<FileUpload> {
  const file = await deps.store.files.findByStorageKey(key);
  // A withdrawn document is gone for everyone, its bytes deleted or about to be.
  if (!file || file.voidedAt !== null) throw errors.notFound();
  const project = await deps.store.projects.findById(file.projectId);
  if (!project || !maySeeProject(viewerOf(actor), project)) throw errors.notFound();
  return file;
}
