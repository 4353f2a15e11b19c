import { type BufferedDocument, type IncomingDocument, type LocalDocument, type PlacedDocument, placeDocument } from '../actions/upload-document.js';
import type { Deps } from '../deps.js';
import type { DocumentType } from '../domain/model.js';
import { admitType } from './admit-type.js';

/**
 * What every way of uploading does once the specification's checks 1–7 have passed and the first
 * bytes are known (POST /api/upload in either part order, and a finished resumable upload): refuse a
 * type outside UPLOAD_ALLOWED_TYPES (415, nothing stored), then step 8.
 */
export async function admitAndPlace(
  deps: Pick<Deps, 'store' | 'storage' | 'config'>,
  projectId: string,
  type: DocumentType,
  doc: (IncomingDocument | LocalDocument | BufferedDocument) & { detectedType: string | null },
): Promise<PlacedDocument> {
  admitType(deps.config.uploadAllowedTypes, doc.contentType, doc.detectedType);
  return placeDocument(deps, projectId, type, doc);
}
