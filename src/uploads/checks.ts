import { authorizeUpload } from '../actions/upload-document.js';
import type { Deps } from '../deps.js';
import type { Actor, DocumentType, Project } from '../domain/model.js';
import { checkUploadFields } from '../domain/upload-policy.js';
import { AppError } from '../errors.js';

const present = (v: string | undefined): v is string => v !== undefined && v.trim() !== '';

/**
 * Specification 4.1 checks 2–7 in order, for every way of uploading (a multipart form, a tus
 * creation's metadata): a field absent, empty or blank is missing. Throws the first refusal.
 */
export async function checkUpload(
  deps: Pick<Deps, 'store'>,
  actor: Actor,
  request: { hasFile: boolean; projectId: string | undefined; fileType: string | undefined },
): Promise<{ project: Project; type: DocumentType }> {
  const checked = checkUploadFields({
    hasFile: request.hasFile,
    projectId: present(request.projectId) ? request.projectId : undefined,
    fileType: present(request.fileType) ? request.fileType : undefined,
  });
  if (checked instanceof AppError) throw checked;
  const project = await authorizeUpload(deps, actor, checked.projectId, checked.fileType);
  return { project, type: checked.fileType };
}
