import { type AppError, errors } from '../errors.js';
import type { FileUpload, User } from './model.js';

/** How long after an upload its uploader may still withdraw the document alone (an ADMIN may at any time). */
export const UPLOADER_VOID_WINDOW_MS = 24 * 60 * 60 * 1000;

/**
 * Who may withdraw a document (interface.md, "Withdrawing a wrong document"), for a caller who may
 * see its project: an ADMIN at any time; its uploader within 24 hours of the upload (inclusive);
 * anyone else never (403). A document already withdrawn is a 409 for those who may withdraw it.
 * null: the caller may withdraw it now. The web app asks the same question before offering it.
 */
export function decideVoid(actor: Pick<User, 'id' | 'role'>, file: Pick<FileUpload, 'uploadedById' | 'createdAt' | 'voidedAt'>, now: Date): AppError | null {
  if (actor.role !== 'ADMIN') {
    if (file.uploadedById !== actor.id) return errors.voidNotAllowed();
    if (now.getTime() - Date.parse(file.createdAt) > UPLOADER_VOID_WINDOW_MS) return errors.voidWindowPassed();
  }
  if (file.voidedAt !== null) return errors.alreadyVoided();
  return null;
}
