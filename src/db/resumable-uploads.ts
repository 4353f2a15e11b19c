import type { DB } from './index.js';

/** A tus upload as created (checks 1–7 passed) and, once finished, its outcome. */
export interface ResumableUpload {
  id: string;
  userId: string;
  projectId: string;
  fileType: string;
  filename: string;
  contentType: string;
  finishing: boolean;
  fileUploadId: string | null;
  error: { status: number; message: string } | null;
}

/** tus uploads (uploads/resumable.ts): as created, and their outcome once finished. */
export function resumableUploadsRepo(db: DB) {
  return {
    async insert(u: Omit<ResumableUpload, 'finishing' | 'fileUploadId' | 'error'>, now: string): Promise<void> {
      await db
        .insertInto('resumable_uploads')
        .values({ id: u.id, user_id: u.userId, project_id: u.projectId, file_type: u.fileType, filename: u.filename, content_type: u.contentType, created_at: now })
        .execute();
    },
    async find(id: string): Promise<ResumableUpload | undefined> {
      const r = await db.selectFrom('resumable_uploads').selectAll().where('id', '=', id).executeTakeFirst();
      return (
        r && {
          id: r.id,
          userId: r.user_id,
          projectId: r.project_id,
          fileType: r.file_type,
          filename: r.filename,
          contentType: r.content_type,
          finishing: r.finishing_at !== null,
          fileUploadId: r.file_upload_id,
          error: r.error_status !== null ? { status: Number(r.error_status), message: r.error_message ?? '' } : null,
        }
      );
    },
    /** True for the one caller that may run the completion. */
    async claimFinish(id: string, now: string): Promise<boolean> {
      const r = await db.updateTable('resumable_uploads').set({ finishing_at: now }).where('id', '=', id).where('finishing_at', 'is', null).executeTakeFirst();
      return Number(r.numUpdatedRows) === 1;
    },
    /** Forgets an upload (terminated by its client). */
    async remove(id: string): Promise<void> {
      await db.deleteFrom('resumable_uploads').where('id', '=', id).execute();
    },
    /** Forgets uploads created before `before` that never finished (their bytes expired). */
    async deleteUnfinished(before: string): Promise<void> {
      await db.deleteFrom('resumable_uploads').where('created_at', '<', before).where('finishing_at', 'is', null).execute();
    },
    async finished(id: string, outcome: { fileUploadId: string } | { status: number; message: string }): Promise<void> {
      await db
        .updateTable('resumable_uploads')
        .set('fileUploadId' in outcome ? { file_upload_id: outcome.fileUploadId } : { error_status: outcome.status, error_message: outcome.message })
        .where('id', '=', id)
        .execute();
    },
  };
}
