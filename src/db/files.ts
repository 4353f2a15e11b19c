import type { FileUpload, FileUploadWithNames } from '../domain/model.js';
import type { Database, DB } from './index.js';
import { type QueryCreator, type SqlBool, sql } from 'kysely';
import type { Tables } from './schema.js';
import { reusable } from './reusable.js';
import { toFileUpload, toFileUploadWithNames } from './rows.js';

/** The values of a new record, in the order fileInsert takes them. */
export type NewFileValues = readonly [
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
];

/** The values of a new record (never voided yet), as fileInsert takes them. */
export const newFileValues = (f: Omit<FileUpload, 'voidedAt' | 'voidedById' | 'voidReason'>): NewFileValues =>
  [f.id, f.projectId, f.type, f.url, f.filename, f.size, f.contentType, f.storageKey, f.uploadedById, f.createdAt, f.sha256, f.detectedType] as const;

/** The insert of a new record (also a part of the upload's one statement on PostgreSQL: db/activity.ts). */
export const fileInsert = (db: QueryCreator<Tables>, ...[id, projectId, type, url, filename, size, contentType, storageKey, uploadedById, createdAt, sha256, detectedType]: NewFileValues) =>
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
  });

/** The record every upload writes, compiled once: see reusable.ts. */
const hot = {
  insertFile: reusable((db, ...values: [...NewFileValues]) => fileInsert(db, ...values)),
};

/** Voided records whose bytes are still to be deleted: the partial index's predicate (migration 017), word for word. */
const PENDING_DELETION = sql<SqlBool>`voided_at is not null and bytes_deleted_at is null`;

/** The FileUpload records (specification 4.1 step 9). */
export function filesRepo(db: DB, dialect: Database['dialect']) {
  /** Records with their uploader's and voider's names (LEFT JOINs on users: the names only). */
  const withNames = () =>
    db
      .selectFrom('file_uploads')
      .leftJoin('users as uploader', 'uploader.id', 'file_uploads.uploaded_by_id')
      .leftJoin('users as voider', 'voider.id', 'file_uploads.voided_by_id')
      .selectAll('file_uploads')
      .select(['uploader.name as uploaded_by_name', 'voider.name as voided_by_name']);
  return {
    /** A new record: never voided yet. */
    async insert(f: Omit<FileUpload, 'voidedAt' | 'voidedById' | 'voidReason'>): Promise<void> {
      await db.executeQuery(hot.insertFile(db, dialect, ...newFileValues(f)));
    },
    /** Newest first, each with its uploader's and voider's names. */
    async listForProject(projectId: string): Promise<FileUploadWithNames[]> {
      const rows = await withNames()
        .where('file_uploads.project_id', '=', projectId)
        .orderBy('file_uploads.created_at', 'desc')
        .orderBy('file_uploads.id', 'desc')
        .execute();
      return rows.map(toFileUploadWithNames);
    },
    /** One record with its uploader's and voider's names. */
    async findWithNames(id: string): Promise<FileUploadWithNames | undefined> {
      const row = await withNames().where('file_uploads.id', '=', id).executeTakeFirst();
      return row && toFileUploadWithNames(row);
    },
    /**
     * Marks a document voided unless it is already: true when this call voided it (a second void,
     * even a concurrent one, finds voided_at set and changes nothing).
     */
    async markVoided(id: string, v: { voidedAt: string; voidedById: string; voidReason: string }): Promise<boolean> {
      const result = await db
        .updateTable('file_uploads')
        .set({ voided_at: v.voidedAt, voided_by_id: v.voidedById, void_reason: v.voidReason })
        .where('id', '=', id)
        .where('voided_at', 'is', null)
        .executeTakeFirst();
      return Number(result.numUpdatedRows) === 1;
    },
    /** A voided document's bytes are gone from storage. */
    async markBytesDeleted(id: string, at: string): Promise<void> {
      await db.updateTable('file_uploads').set({ bytes_deleted_at: at }).where('id', '=', id).where('voided_at', 'is not', null).execute();
    },
    /** Voided records whose bytes are still to be deleted (the reconciler's retry), a page at a time in id order. */
    async pendingDeletions(afterId: string | null, limit: number): Promise<FileUpload[]> {
      const rows = await db
        .selectFrom('file_uploads')
        .selectAll()
        .where(PENDING_DELETION)
        .$if(afterId !== null, (q) => q.where('id', '>', afterId!))
        .orderBy('id')
        .limit(limit)
        .execute();
      return rows.map(toFileUpload);
    },
    /** Which of these storage keys have a record, and which of those are voided (the reconciler's questions about a page of listed objects). */
    async recordedKeys(keys: string[]): Promise<{ recorded: Set<string>; voided: Map<string, FileUpload> }> {
      const recorded = new Set<string>();
      const voided = new Map<string, FileUpload>();
      if (!keys.length) return { recorded, voided };
      const rows = await db.selectFrom('file_uploads').selectAll().where('storage_key', 'in', keys).execute();
      for (const r of rows) {
        recorded.add(r.storage_key);
        if (r.voided_at !== null) voided.set(r.storage_key, toFileUpload(r));
      }
      // A proof's bytes are recorded too (migration 024): never an orphan.
      const proofs = await db.selectFrom('proofs').select('storage_key').where('storage_key', 'in', keys).execute();
      for (const r of proofs) recorded.add(r.storage_key);
      return { recorded, voided };
    },
    /** Standing (not voided) records created before `before`, a page at a time in id order (after `afterId`): what the reconciler checks against the store. */
    async keysPage(before: string, afterId: string | null, limit: number): Promise<{ id: string; projectId: string; storageKey: string }[]> {
      const rows = await db
        .selectFrom('file_uploads')
        .select(['id', 'project_id', 'storage_key'])
        .where('created_at', '<', before)
        // A voided document's bytes are meant to be gone: never "missing".
        .where('voided_at', 'is', null)
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
