import type { Deps } from '../deps.js';
import type { Actor, FileUpload } from '../domain/model.js';
import { etagMatches, previewEtag, previewKey, previewKindOf } from '../domain/previews.js';
import { maySeeProject } from '../domain/visibility.js';
import { errors } from '../errors.js';
import { ObjectMissingError } from '../storage/types.js';

export type PreviewAnswer =
  | { notModified: false; image: Buffer; contentType: string; etag: string; pages: number | null }
  | { notModified: true; etag: string; pages: number | null };

/**
 * GET /api/projects/:id/files/:fileId/preview: a picture of one page of a project's document, for
 * whoever may see the project (anyone else: the project is not found). A document without a
 * preview (its type, voided, a page past the end, unreadable within the bounds) is `No preview for this document`.
 */
export async function documentPreview(
  deps: Pick<Deps, 'store' | 'storage' | 'previews'>,
  actor: Actor,
  request: { projectId: string; fileId: string; page: number; width: number; ifNoneMatch?: string },
): Promise<PreviewAnswer> {
  const project = await deps.store.projects.findWithNames(request.projectId);
  if (!project || !maySeeProject(actor, project)) throw errors.projectNotFound();
  const file = await deps.store.files.findById(request.fileId);
  if (!file || file.projectId !== project.id) throw errors.documentNotFound();
  return previewOfFile(deps, file, request, actor.id);
}

/**
 * A page of a stored file (a document, or a proof read as one) through the previews' cache, bounds
 * and ETag; `requesterId` is whose turn it takes in the fair queue (none for an approval link's visitor).
 */
export async function previewOfFile(
  deps: Pick<Deps, 'storage' | 'previews'>,
  file: FileUpload,
  request: { page: number; width: number; ifNoneMatch?: string },
  requesterId?: string,
): Promise<PreviewAnswer> {
  const kind = previewKindOf(file);
  if (!kind) throw errors.noPreview();
  const etag = previewEtag(previewKey(file, request.page, request.width));
  let preview;
  try {
    preview = await deps.previews.of(deps.storage, file, kind, request.page, request.width, requesterId);
  } catch (err) {
    // A record whose bytes the store no longer holds cannot be shown.
    if (err instanceof ObjectMissingError) throw errors.noPreview();
    throw err;
  }
  if ('none' in preview) throw errors.noPreview();
  if (etagMatches(request.ifNoneMatch, etag)) return { notModified: true, etag, pages: preview.pages };
  return { notModified: false, image: preview.image, contentType: preview.contentType, etag, pages: preview.pages };
}
