import { AppError, errors } from '../errors.js';
import { type Actor, type DocumentType, type Project, type ProjectStatus, DOCUMENT_TYPES, isOneOf } from './model.js';

/** What an upload asks for, as read from its form (or a resumable upload's metadata). */
export interface UploadRequest {
  hasFile: boolean;
  projectId: string | undefined;
  fileType: string | undefined;
}

/** What checks 4–7 read of a project. */
export type UploadProject = Pick<Project, 'pocId' | 'status' | 'piStatus' | 'approval'>;

/** Check 2's sense of a field: absent, empty or blank is missing. */
export const given = (value: string | undefined): value is string => value !== undefined && value.trim() !== '';

/** Specification part 3: approved by an admin, or already past the request stage. */
const isAdminApproved = (project: Pick<Project, 'status' | 'approval'>): boolean =>
  project.approval?.status === 'APPROVED' || (project.status !== 'REQUESTED' && project.status !== 'CANCELLED');

const STATUS_RULES: Record<DocumentType, { allowed: readonly ProjectStatus[]; refusal: () => AppError }> = {
  PO: { allowed: ['APPROVED', 'PRINTING', 'DISPATCHED', 'DELIVERED'], refusal: errors.poBeforeApproval },
  CHALLAN: { allowed: ['DISPATCHED', 'DELIVERED'], refusal: errors.challanBeforeDispatch },
  INVOICE: { allowed: ['DISPATCHED', 'DELIVERED'], refusal: errors.invoiceBeforeDispatch },
};

/**
 * Specification 4.1 checks 2 to 7, in order: may this actor upload this document to this project
 * now? Returns the first failing check's error, or the project and the document type. The project is
 * asked of `findProject` (the store, or a table in a test) only once checks 2 and 3 pass, so a form
 * they refuse costs no query and its answer never depends on the database.
 */
export async function decideUpload<P extends UploadProject>(
  actor: Actor,
  request: UploadRequest,
  findProject: (id: string) => Promise<P | undefined>,
): Promise<{ project: P; type: DocumentType } | AppError> {
  if (!request.hasFile || !given(request.projectId) || !given(request.fileType)) return errors.uploadFieldsRequired();
  if (!isOneOf(DOCUMENT_TYPES, request.fileType)) return errors.invalidFileType();
  const project = await findProject(request.projectId);
  if (!project) return errors.projectNotFound();
  const isAdmin = actor.role === 'ADMIN';
  const isOwner = project.pocId === actor.id;
  if (!isAdmin && !isOwner) return errors.notYourProject();
  if (!isAdmin && !(isOwner && isAdminApproved(project) && project.piStatus === 'VERIFIED')) {
    return errors.notApprovedOrPiNotVerified();
  }
  const rule = STATUS_RULES[request.fileType];
  if (!rule.allowed.includes(project.status)) return rule.refusal();
  return { project, type: request.fileType };
}
