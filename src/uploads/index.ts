import type { Deps } from '../deps.js';
import type { Actor, DocumentType, FileUpload, Project } from '../domain/model.js';
import { notifyProjectChanged } from '../realtime/index.js';
import { admitType } from './admit-type.js';
import { checkUpload } from './check.js';
import type { Inspection } from './inspect.js';
import { type DocumentBytes, type DocumentFile, type PlacedDocument, discardPlacedDocument, placeDocument } from './place.js';
import { recordDocument } from './record.js';

/**
 * Specification 4.1 after the session (check 1): one document upload, whatever it comes from
 * (POST /api/upload's form, read by read-form.ts, in either part order; a finished resumable upload,
 * resumable.ts), each step in its own file of this folder:
 *
 * 1. the form: its fields and its file, as soon as the checks can run (`source.form()`);
 * 2. checks 2–7 (check.ts, the decision in domain/upload-policy.ts);
 * 3. the type rule, UPLOAD_ALLOWED_TYPES (admit-type.ts), on the declared type and the first bytes;
 * 4. step 8, the bytes into storage (place.ts);
 * 5. the rest of the request: one that breaks off now has its bytes removed and records nothing;
 * 6. steps 9 and 10, the record and the activity entry with its emails (record.ts);
 * 7. step 11, the two notifications (realtime).
 *
 * A refusal or failure up to 5 stores nothing; from 6 on, an earlier step is not undone (as specified).
 */
export async function uploadDocument(deps: Deps, actor: Actor, source: UploadSource): Promise<FileUpload> {
  let file: IncomingFile;
  let checked: { project: Project; type: DocumentType };
  let placed: PlacedDocument;
  try {
    const form = await source.form();
    checked = await checkUpload(deps, actor, { hasFile: form.file !== undefined, projectId: form.projectId, fileType: form.fileType });
    file = form.file!; // check 2 has seen it
    const { project, type } = checked;
    placed = await file.read(async (bytes) => {
      admitType(deps.config.uploadAllowedTypes, file.contentType, bytes.detectedType);
      return placeDocument(deps, project.id, type, file, bytes);
    });
    await source.end().catch(async (err: unknown) => {
      await discardPlacedDocument(deps, placed).catch((e: unknown) => source.log.error({ err: e }, 'could not discard upload'));
      throw err;
    });
  } finally {
    await source.close();
  }
  const { project, type } = checked;
  const record = await recordDocument(deps, actor, project, type, placed, { filename: file.filename, contentType: file.contentType, ...file.inspection() });
  await notifyProjectChanged(deps.realtime, project.id, project.pocId, project.customerId);
  return record;
}

/** Where an upload comes from, read as the steps need it. */
export interface UploadSource {
  /**
   * The form's fields and file, as soon as checks 2–7 can run on them: at the file's first byte when
   * projectId and fileType came before it, else once the request has been read.
   */
  form(): Promise<UploadForm>;
  /** Reads what is left of the request once the bytes are stored; fails when it turns out broken. */
  end(): Promise<void>;
  /** Gives back what reading held (a spool file; the unread rest of a body is drained); always called. */
  close(): Promise<void>;
  /** Where failures that do not change the answer are logged (a request's logger: its lines carry the request id). */
  log: { error(obj: object, msg: string): void };
}

/** The form, as the specification reads it: the first projectId, fileType and file part count. */
export interface UploadForm {
  projectId: string | undefined;
  fileType: string | undefined;
  /** Undefined when there is none, or it has no name or no bytes (check 2). */
  file: IncomingFile | undefined;
}

export interface IncomingFile extends DocumentFile {
  /**
   * Hands the bytes (streamed, whole in memory, or a local file) with the type their first bytes show
   * to `consume` (the type rule and step 8); a body past MAX_UPLOAD_BYTES fails it with 413, a broken one with 400.
   */
  read<T>(consume: (bytes: DocumentBytes) => Promise<T>): Promise<T>;
  /** Its size, SHA-256 and recognised type, once read to its end (step 9 records them). */
  inspection(): { size: number } & Inspection;
}
