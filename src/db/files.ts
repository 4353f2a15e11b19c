import type { FileUpload, FileUploadWithNames } from '../domain/model.js';
import type { Database, DB } from './index.js';
import { reusable } from './reusable.js';
import { toFileUpload, toFileUploadWithNames } from './rows.js';

/** The record every upload writes, compiled once: see reusable.ts. */
const hot = {
  insertFile: reusable(
    (
      db,
      id: string,
      projectId: string,
      type: string,
      url: string,
      filename: string,
      size: number,
      contentType: string,
      storageKey: string,
      uploadedById: string,
      createdAt: string,
      sha256: string | null,
      detectedType: string | null,
    ) =>
      db.insertInto('file_uploads').values({
        id,
        project_id: projectId,
        type,
        url,
        filename,
        size,
        content_type: contentType,
        storage_key: storageKey,
        uploaded_by_id: uploadedById,
        created_at: createdAt,
        sha256,
        detected_type: detectedType,
      }),
  ),
};

/** The FileUpload records (specification 4.1 step 9). */
export function filesRepo(db: DB, dialect: Database['dialect']) {
  return {
    async insert(f: FileUpload): Promise<void> {
      const values = [f.id, f.projectId, f.type, f.url, f.filename, f.size, f.contentType, f.storageKey, f.uploadedById, f.createdAt, f.sha256, f.detectedType] as const;
      await db.executeQuery(hot.insertFile(db, dialect, ...values));
    },
    /** Newest first, each with its uploader's name (a LEFT JOIN on users: the name only). */
    async listForProject(projectId: string): Promise<FileUploadWithNames[]> {
      const rows = await db
        .selectFrom('file_uploads')
        .leftJoin('users as uploader', 'uploader.id', 'file_uploads.uploaded_by_id')
        .selectAll('file_uploads')
        .select('uploader.name as uploaded_by_name')
        .where('file_uploads.project_id', '=', projectId)
        .orderBy('file_uploads.created_at', 'desc')
        .orderBy('file_uploads.id', 'desc')
        .execute();
      return rows.map(toFileUploadWithNames);
    },
    /** Which of these storage keys have a record (the reconciler's question about a page of listed objects). */
    async recordedKeys(keys: string[]): Promise<Set<string>> {
      if (!keys.length) return new Set();
      const rows = await db.selectFrom('file_uploads').select('storage_key').where('storage_key', 'in', keys).execute();
      return new Set(rows.map((r) => r.storage_key));
    },
    /** Records created before `before`, a page at a time in id order (after `afterId`): what the reconciler checks against the store. */
    async keysPage(before: string, afterId: string | null, limit: number): Promise<{ id: string; projectId: string; storageKey: string }[]> {
      const rows = await db
        .selectFrom('file_uploads')
        .select(['id', 'project_id', 'storage_key'])
        .where('created_at', '<', before)
        .$if(afterId !== null, (q) => q.where('id', '>', afterId!))
        .orderBy('id')
        .limit(limit)
        .execute();
      return rows.map((r) => ({ id: r.id, projectId: r.project_id, storageKey: r.storage_key }));
    },
    async findById(id: string): Promise<FileUpload | undefined> {
      const row = await db.selectFrom('file_uploads').selectAll().where('id', '=', id).executeTakeFirst();
      return row && toFileUpload(row);
    },
    async findByStorageKey(key: string): Promise<FileUpload | undefined> {
      const row = await db.selectFrom('file_uploads').selectAll().where('storage_key', '=', key).executeTakeFirst();
      return row && toFileUpload(row);
    },
  };
}
