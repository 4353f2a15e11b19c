import type { Deps } from '../deps.js';
import type { Actor, DocumentType, Project } from '../domain/model.js';
import { type UploadRequest, decideUpload } from '../domain/upload-policy.js';
import { AppError } from '../errors.js';

/**
 * Specification 4.1 checks 2–7 (domain/upload-policy.ts) against the stored project, for every way
 * of uploading (a multipart form, a tus creation's metadata, a finished resumable upload). Throws
 * the first refusal.
 */
export async function checkUpload(deps: Pick<Deps, 'store'>, actor: Actor, request: UploadRequest): Promise<{ project: Project; type: DocumentType }> {
  const decision = await decideUpload(actor, request, (id) => deps.store.projects.findById(id));
  if (decision instanceof AppError) throw decision;
  return decision;
}
