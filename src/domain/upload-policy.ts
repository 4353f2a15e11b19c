import { AppError, errors } from '../errors.js';
import { type Actor, type DocumentType, type Project, type ProjectStatus, DOCUMENT_TYPES, isOneOf } from './model.js';

/** What the upload form carried, after parsing: a field that was absent, empty or blank is undefined. */
export interface UploadFields {
  hasFile: boolean;
  projectId: string | undefined;
  fileType: string | undefined;
}

/** Specification 4.1 checks 2 and 3: the form itself. Returns the valid document type or the refusal. */
export function checkUploadFields(fields: UploadFields): { fileType: DocumentType; projectId: string } | AppError {
  if (!fields.hasFile || !fields.projectId || !fields.fileType) return errors.uploadFieldsRequired();
  if (!isOneOf(DOCUMENT_TYPES, fields.fileType)) return errors.invalidFileType();
  return { fileType: fields.fileType, projectId: fields.projectId };
}

/** Specification part 3: approved by an admin, or already past the request stage. */
export const isAdminApproved = (project: Pick<Project, 'status' | 'approval'>): boolean =>
  project.approval?.status === 'APPROVED' || (project.status !== 'REQUESTED' && project.status !== 'CANCELLED');

const STATUS_RULES: Record<DocumentType, { allowed: readonly ProjectStatus[]; refusal: () => AppError }> = {
  PO: { allowed: ['APPROVED', 'PRINTING', 'DISPATCHED', 'DELIVERED'], refusal: errors.poBeforeApproval },
  CHALLAN: { allowed: ['DISPATCHED', 'DELIVERED'], refusal: errors.challanBeforeDispatch },
  INVOICE: { allowed: ['DISPATCHED', 'DELIVERED'], refusal: errors.invoiceBeforeDispatch },
};

/**
 * Specification 4.1 checks 4 to 7, in order: may this actor upload this type of document to this
 * project now? Returns the first failing check's error, or null when the upload may go ahead.
 */
export function uploadRefusal(
  actor: Actor,
  project: Pick<Project, 'pocId' | 'status' | 'piStatus' | 'approval'> | undefined,
  fileType: DocumentType,
): AppError | null {
  if (!project) return errors.projectNotFound();
  const isAdmin = actor.role === 'ADMIN';
  const isOwner = project.pocId === actor.id;
  if (!isAdmin && !isOwner) return errors.notYourProject();
  if (!isAdmin && !(isOwner && isAdminApproved(project) && project.piStatus === 'VERIFIED')) {
    return errors.notApprovedOrPiNotVerified();
  }
  const rule = STATUS_RULES[fileType];
  if (!rule.allowed.includes(project.status)) return rule.refusal();
  return null;
}
