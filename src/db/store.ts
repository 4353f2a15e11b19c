import { CompiledQuery, sql } from 'kysely';
import type { ActivityAction } from '../domain/activity.js';
import type {
  ActivityEntryWithNames,
  Approval,
  ApprovalStatus,
  FileUpload,
  FileUploadWithNames,
  NewActivityEntry,
  PiStatus,
  Project,
  ProjectStatus,
  ProjectWithNames,
  Role,
  User,
} from '../domain/model.js';
import type { Database, DB } from './index.js';
import { reusable } from './reusable.js';
import { emailOptoutsRepo, outboxRepo, passwordResetsRepo } from './mail.js';
import {
  type Cursor,
  USER_COLUMNS,
  decodeCursor,
  page,
  toActivityWithNames,
  toFileUpload,
  toFileUploadWithNames,
  toProject,
  toProjectWithNames,
  toUser,
} from './rows.js';

/** Whose rows a query may return: everything, or only what belongs to one POC's projects. */
export type Scope = { all: true } | { all: false; pocId: string };

type Page<T> = { items: T[]; nextCursor: string | null };

/** Rows older than the cursor's, in (created_at, id) order. */
const olderThan = (table: 'projects' | 'activity_log' | 'users', c: Cursor) =>
  sql<boolean>`(${sql.ref(`${table}.created_at`)} < ${c.createdAt} or (${sql.ref(`${table}.created_at`)} = ${c.createdAt} and ${sql.ref(`${table}.id`)} < ${c.id}))`;

/** All data access of the service. Each method is one query (or one transaction; projects.update is two statements, run in the caller's). */
export interface Store extends ReturnType<typeof repositories> {
  /** Runs fn in a transaction; the store it gets writes inside that transaction. */
  transaction<T>(fn: (store: Store) => Promise<T>): Promise<T>;
  /**
   * Inside a transaction: runs fn so that its failure undoes only its own writes (a savepoint) and
   * the transaction goes on; the failure is rethrown. A failure of the savepoint itself is a
   * SavepointBroken, which the caller must let fail the transaction.
   */
  savepoint<T>(fn: () => Promise<T>): Promise<T>;
  ping(): Promise<void>;
}

/** A savepoint that could not be set, rolled back to or released: the transaction it is in must fail. */
export class SavepointBroken extends Error {
  constructor(override readonly cause: unknown) {
    super(`the transaction's savepoint failed: ${(cause as Error)?.message ?? String(cause)}`);
  }
}

/** Savepoint statements by nesting depth: the same few texts every time, so SQLite's prepared statements are reused (a fresh name per savepoint filled the statement cache with one-off texts). */
const savepointStatements = (depth: number) => ({
  set: CompiledQuery.raw(`savepoint part_${depth}`),
  rollback: CompiledQuery.raw(`rollback to savepoint part_${depth}`),
  release: CompiledQuery.raw(`release savepoint part_${depth}`),
});
const SAVEPOINTS = Array.from({ length: 4 }, (_, depth) => savepointStatements(depth + 1));

export function createStore(database: Database): Store {
  let depth = 0;
  const own: Pick<Store, 'transaction' | 'savepoint' | 'ping'> = {
    transaction: (fn) => database.db.transaction().execute((trx) => fn(createStore({ ...database, db: trx }))),
    savepoint: async (fn) => {
      if (!database.db.isTransaction) throw new Error('a savepoint needs a transaction');
      const statements = SAVEPOINTS[depth] ?? savepointStatements(depth + 1);
      // The savepoint's own statements failing leave the transaction unusable (PostgreSQL would
      // answer its COMMIT with a silent rollback): that is no failure of fn, and fails the transaction.
      const control = (statement: CompiledQuery) =>
        database.db.executeQuery(statement).catch((err: unknown) => {
          throw new SavepointBroken(err);
        });
      await control(statements.set);
      depth++;
      let result: Awaited<ReturnType<typeof fn>>;
      try {
        result = await fn();
      } catch (err) {
        depth--;
        await control(statements.rollback);
        await control(statements.release);
        throw err;
      }
      depth--;
      await control(statements.release);
      return result;
    },
    ping: async () => {
      await sql`select 1`.execute(database.db);
    },
  };
  return Object.assign(repositories(database), own);
}

/** Each transaction gets a store of its own, and uses two or three of its repositories: they are made on first use. */
function repositories({ db, dialect }: Database) {
  return lazily({
    users: () => usersRepo(db, dialect),
    sessions: () => sessionsRepo(db, dialect),
    projects: () => projectsRepo(db, dialect),
    files: () => filesRepo(db, dialect),
    storageNames: () => storageNamesRepo(db, dialect),
    idempotencyKeys: () => idempotencyKeysRepo(db),
    resumableUploads: () => resumableUploadsRepo(db),
    uploadLocks: () => uploadLocksRepo(db),
    activity: () => activityRepo(db, dialect),
    loginFailures: () => loginFailuresRepo(db),
    secrets: () => secretsRepo(db),
    stats: () => statsRepo(db),
    outbox: () => outboxRepo(db, dialect),
    emailOptouts: () => emailOptoutsRepo(db),
    passwordResets: () => passwordResetsRepo(db),
  });
}

/** Getters that make each value once (never redefined: an object whose properties change kind becomes a slow dictionary). */
function lazily<T extends Record<string, () => object>>(makers: T): { [K in keyof T]: ReturnType<T[K]> } {
  const target = {} as { [K in keyof T]: ReturnType<T[K]> };
  const made: Record<string, object> = {};
  for (const [name, make] of Object.entries(makers)) {
    Object.defineProperty(target, name, { enumerable: true, get: () => (made[name] ??= make()) });
  }
  return target;
}

export interface NewUser {
  name: string;
  email: string;
  passwordHash: string;
  phone: string | null;
  role: Role;
  location: string | null;
  branch: string | null;
}

export type UserChange = Partial<Pick<User, 'name' | 'email' | 'phone' | 'role' | 'location' | 'branch' | 'active'>> & { passwordHash?: string };

function usersRepo(db: DB, dialect: Database['dialect']) {
  return {
    async insert(id: string, u: NewUser, now: string): Promise<User> {
      const row = await db
        .insertInto('users')
        .values({
          id,
          name: u.name,
          email: u.email,
          email_key: u.email.toLowerCase(),
          phone: u.phone,
          role: u.role,
          location: u.location,
          branch: u.branch,
          active: true,
          password_hash: u.passwordHash,
          created_at: now,
          updated_at: now,
        })
        .returning(USER_COLUMNS)
        .executeTakeFirstOrThrow();
      return toUser(row);
    },
    async findById(id: string): Promise<User | undefined> {
      const row = await db.selectFrom('users').select(USER_COLUMNS).where('id', '=', id).executeTakeFirst();
      return row && toUser(row);
    },
    async findByEmailWithHash(email: string): Promise<{ user: User; passwordHash: string } | undefined> {
      const row = await db.selectFrom('users').selectAll().where('email_key', '=', email.toLowerCase()).executeTakeFirst();
      return row && { user: toUser(row), passwordHash: row.password_hash };
    },
    async emailTaken(email: string): Promise<boolean> {
      const row = await db.selectFrom('users').select('id').where('email_key', '=', email.toLowerCase()).executeTakeFirst();
      return row !== undefined;
    },
    /** The team, newest first (ties broken by id). */
    async list(): Promise<User[]> {
      const rows = await db.selectFrom('users').select(USER_COLUMNS).orderBy('created_at', 'desc').orderBy('id', 'desc').execute();
      return rows.map(toUser);
    },
    /** Up to `limit` members in list order, after the given one (keyset on the created_at, id index): the team read in short steps. */
    async listPage(after: Cursor | undefined, limit: number): Promise<User[]> {
      const rows = await db
        .selectFrom('users')
        .select(USER_COLUMNS)
        .$if(after !== undefined, (q) => q.where(olderThan('users', after!)))
        .orderBy('created_at', 'desc')
        .orderBy('id', 'desc')
        .limit(limit)
        .execute();
      return rows.map(toUser);
    },
    /** The team's version (migration 004): it changes in the same transaction as any change the team list shows. */
    async teamVersion(): Promise<number> {
      const row = await db.selectFrom('team_version').select('version').where('id', '=', 1).executeTakeFirstOrThrow();
      return Number(row.version);
    },
    async update(id: string, change: UserChange, now: string): Promise<User | undefined> {
      const row = await db
        .updateTable('users')
        .set({
          name: change.name,
          email: change.email,
          email_key: change.email?.toLowerCase(),
          phone: change.phone,
          role: change.role,
          location: change.location,
          branch: change.branch,
          active: change.active,
          password_hash: change.passwordHash,
          updated_at: now,
        })
        .where('id', '=', id)
        .returning(USER_COLUMNS)
        .executeTakeFirst();
      return row && toUser(row);
    },
    /**
     * With forUpdate, in a transaction on PostgreSQL the active admins' rows stay locked until
     * commit, so two concurrent demotions cannot both see two admins and leave none.
     */
    async countActiveAdmins(opts: { forUpdate?: boolean } = {}): Promise<number> {
      const rows = await db
        .selectFrom('users')
        .select('id')
        .where('role', '=', 'ADMIN')
        .where('active', '=', true)
        .orderBy('id') // one lock order for every transaction
        .$if(Boolean(opts.forUpdate) && dialect === 'postgres', (q) => q.forUpdate())
        .execute();
      return rows.length;
    },
  };
}

/** The queries every upload makes (and a request's session check), compiled once: see reusable.ts. */
const hot = {
  session: reusable((db, tokenHash: string, now: string) =>
    db
      .selectFrom('sessions')
      .innerJoin('users', 'users.id', 'sessions.user_id')
      .select(USER_COLUMNS.map((c) => `users.${c}` as const))
      .select('sessions.expires_at')
      .where('sessions.token_hash', '=', tokenHash)
      .where('sessions.expires_at', '>', now),
  ),
  project: reusable((db, id: string) => db.selectFrom('projects').selectAll().where('id', '=', id)),
  reserveName: reusable((db, key: string, now: string) =>
    db
      .insertInto('storage_names')
      .values({ key, created_at: now })
      .onConflict((oc) => oc.column('key').doNothing()),
  ),
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
  insertActivity: reusable((db, id: string, userId: string, action: string, entityType: string, entityId: string, details: string, createdAt: string) =>
    db
      .insertInto('activity_log')
      .values({
        id,
        seq: sql<number>`(select coalesce(max(seq), 0) + 1 from activity_log)`,
        user_id: userId,
        action,
        entity_type: entityType,
        entity_id: entityId,
        details,
        created_at: createdAt,
      })
      .returning('seq'),
  ),
  changesAfter: reusable((db, seq: number, limit: number) =>
    db
      .selectFrom('activity_log')
      .leftJoin('projects', 'projects.id', 'activity_log.entity_id')
      .select(['activity_log.seq', 'activity_log.entity_id', 'projects.poc_id'])
      .where('activity_log.seq', '>', seq)
      .where('activity_log.entity_type', '=', 'project')
      .orderBy('activity_log.seq')
      .limit(limit),
  ),
};

function sessionsRepo(db: DB, dialect: Database['dialect']) {
  return {
    async create(tokenHash: string, userId: string, now: string, expiresAt: string): Promise<void> {
      await db.insertInto('sessions').values({ token_hash: tokenHash, user_id: userId, created_at: now, expires_at: expiresAt }).execute();
    },
    /** The live session's user (read fresh, so role and active changes apply at once). */
    async find(tokenHash: string, now: string): Promise<{ user: User; expiresAt: string } | undefined> {
      const [row] = (await db.executeQuery(hot.session(db, dialect, tokenHash, now))).rows;
      return row && { user: toUser(row), expiresAt: row.expires_at };
    },
    /** The sessions among these token hashes that still exist, with their user's role and active flag (expired ones included). */
    async findMany(tokenHashes: string[]): Promise<{ tokenHash: string; expiresAt: string; role: Role; active: boolean }[]> {
      if (!tokenHashes.length) return [];
      const rows = await db
        .selectFrom('sessions')
        .innerJoin('users', 'users.id', 'sessions.user_id')
        .select(['sessions.token_hash', 'sessions.expires_at', 'users.role', 'users.active'])
        .where('sessions.token_hash', 'in', tokenHashes)
        .execute();
      return rows.map((r) => ({ tokenHash: r.token_hash, expiresAt: r.expires_at, role: r.role as Role, active: Boolean(r.active) }));
    },
    async extend(tokenHash: string, expiresAt: string): Promise<void> {
      await db.updateTable('sessions').set({ expires_at: expiresAt }).where('token_hash', '=', tokenHash).execute();
    },
    async delete(tokenHash: string): Promise<void> {
      await db.deleteFrom('sessions').where('token_hash', '=', tokenHash).execute();
    },
    async deleteForUser(userId: string): Promise<void> {
      await db.deleteFrom('sessions').where('user_id', '=', userId).execute();
    },
    /** Every session of the user but the one they are using (a password change). */
    async deleteOthersOfUser(userId: string, keepTokenHash: string): Promise<void> {
      await db.deleteFrom('sessions').where('user_id', '=', userId).where('token_hash', '!=', keepTokenHash).execute();
    },
    async deleteExpired(now: string): Promise<void> {
      await db.deleteFrom('sessions').where('expires_at', '<=', now).execute();
    },
  };
}

export interface ProjectFilter {
  status?: ProjectStatus;
  /** PENDING also matches a project without an approval record (no decision yet). */
  approval?: ApprovalStatus;
  pocId?: string;
  q?: string;
  limit: number;
  cursor?: string;
}

export interface ProjectFields {
  name?: string;
  description?: string | null;
  pocId?: string;
  status?: ProjectStatus;
  piStatus?: PiStatus;
  approval?: Approval;
}

function projectsRepo(db: DB, dialect: Database['dialect']) {
  /**
   * Projects with the names of their POC and of their approval's decider: LEFT JOINs on the users'
   * primary key, so the rows and their order are the projects' own (and their indexes serve the
   * filters and the order). Only the names are read from users.
   */
  const withNames = () =>
    db
      .selectFrom('projects')
      .leftJoin('users as poc', 'poc.id', 'projects.poc_id')
      .leftJoin('users as decider', 'decider.id', 'projects.approval_decided_by_id')
      .selectAll('projects')
      .select(['poc.name as poc_name', 'decider.name as approval_decided_by_name']);

  /** One project with the names, as answers show it. */
  const findWithNames = async (id: string): Promise<ProjectWithNames | undefined> => {
    const row = await withNames().where('projects.id', '=', id).executeTakeFirst();
    return row && toProjectWithNames(row);
  };

  return {
    async insert(p: Project): Promise<void> {
      await db
        .insertInto('projects')
        .values({
          id: p.id,
          name: p.name,
          description: p.description,
          poc_id: p.pocId,
          status: p.status,
          pi_status: p.piStatus,
          approval_status: p.approval?.status ?? null,
          approval_note: p.approval?.note ?? null,
          approval_decided_by_id: p.approval?.decidedById ?? null,
          approval_decided_at: p.approval?.decidedAt ?? null,
          created_at: p.createdAt,
          updated_at: p.updatedAt,
        })
        .execute();
    },
    /** One project as the rules see it (no names: the upload's checks and the lifecycle need none); in a transaction on PostgreSQL its row stays locked until commit. */
    async findById(id: string, opts: { forUpdate?: boolean } = {}): Promise<Project | undefined> {
      if (!opts.forUpdate) {
        const [row] = (await db.executeQuery(hot.project(db, dialect, id))).rows;
        return row && toProject(row);
      }
      const row = await db
        .selectFrom('projects')
        .selectAll()
        .where('id', '=', id)
        .$if(Boolean(opts.forUpdate) && dialect === 'postgres', (q) => q.forUpdate())
        .executeTakeFirst();
      return row && toProject(row);
    },
    findWithNames,
    async list(scope: Scope, f: ProjectFilter): Promise<Page<ProjectWithNames>> {
      const cursor = decodeCursor(f.cursor);
      const rows = await withNames()
        .$if(!scope.all, (q) => q.where('projects.poc_id', '=', (scope as { pocId: string }).pocId))
        .$if(f.pocId !== undefined, (q) => q.where('projects.poc_id', '=', f.pocId!))
        .$if(f.status !== undefined, (q) => q.where('projects.status', '=', f.status!))
        .$if(f.approval === 'PENDING', (q) => q.where((eb) => eb.or([eb('projects.approval_status', 'is', null), eb('projects.approval_status', '=', 'PENDING')])))
        .$if(f.approval !== undefined && f.approval !== 'PENDING', (q) => q.where('projects.approval_status', '=', f.approval!))
        // SQLite's LIKE has no escape character unless one is named; PostgreSQL's default is the same backslash.
        .$if(Boolean(f.q), (q) => q.where(sql<boolean>`lower(${sql.ref('projects.name')}) like ${`%${escapeLike(f.q!.toLowerCase())}%`} escape '\\'`))
        .$if(cursor !== undefined, (q) => q.where(olderThan('projects', cursor!)))
        .orderBy('projects.created_at', 'desc')
        .orderBy('projects.id', 'desc')
        .limit(f.limit + 1)
        .execute();
      return page(rows.map(toProjectWithNames), f.limit);
    },
    /** Two statements (the change, then the project as findWithNames reads it): callers run it in their transaction. */
    async update(id: string, f: ProjectFields, now: string): Promise<ProjectWithNames | undefined> {
      const result = await db
        .updateTable('projects')
        .set({
          name: f.name,
          description: f.description,
          poc_id: f.pocId,
          status: f.status,
          pi_status: f.piStatus,
          ...(f.approval && {
            approval_status: f.approval.status,
            approval_note: f.approval.note,
            approval_decided_by_id: f.approval.decidedById,
            approval_decided_at: f.approval.decidedAt,
          }),
          updated_at: now,
        })
        .where('id', '=', id)
        .executeTakeFirst();
      return Number(result.numUpdatedRows) ? findWithNames(id) : undefined;
    },
  };
}

const escapeLike = (s: string) => s.replace(/[\\%_]/g, (c) => `\\${c}`);

function filesRepo(db: DB, dialect: Database['dialect']) {
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

/** One user's Idempotency-Key on POST /api/upload: the upload it made, or null while its first request runs. */
export interface IdempotencyClaim {
  fileUploadId: string | null;
  createdAt: string;
}

function idempotencyKeysRepo(db: DB) {
  return {
    /**
     * Claims (user, key) for a new request; false when a live claim holds it. A claim made before
     * `expiredBefore` (24 h) no longer counts, nor does one still unfinished from before
     * `abandonedBefore` (its request died with its process); either is replaced.
     */
    async claim(userId: string, key: string, now: string, expiredBefore: string, abandonedBefore: string): Promise<boolean> {
      // Every user's expired keys go too (an index range on created_at): the table holds a day of keys.
      await db.deleteFrom('idempotency_keys').where('created_at', '<', expiredBefore).execute();
      await db
        .deleteFrom('idempotency_keys')
        .where('user_id', '=', userId)
        .where('key', '=', key)
        .where('file_upload_id', 'is', null)
        .where('created_at', '<', abandonedBefore)
        .execute();
      const inserted = await db
        .insertInto('idempotency_keys')
        .values({ user_id: userId, key, file_upload_id: null, created_at: now })
        .onConflict((oc) => oc.columns(['user_id', 'key']).doNothing())
        .executeTakeFirst();
      return Number(inserted.numInsertedOrUpdatedRows ?? 0) === 1;
    },
    async find(userId: string, key: string): Promise<IdempotencyClaim | undefined> {
      const row = await db.selectFrom('idempotency_keys').select(['file_upload_id', 'created_at']).where('user_id', '=', userId).where('key', '=', key).executeTakeFirst();
      return row && { fileUploadId: row.file_upload_id, createdAt: row.created_at };
    },
    async complete(userId: string, key: string, fileUploadId: string): Promise<void> {
      await db.updateTable('idempotency_keys').set({ file_upload_id: fileUploadId }).where('user_id', '=', userId).where('key', '=', key).where('file_upload_id', 'is', null).execute();
    },
    /**
     * The upload an unfinished claim's request recorded without marking the claim with it: this
     * user's record of the same project, type, name and bytes, made since the claim and named by
     * no key (the first such). None while the request still runs.
     */
    async recordedUnmarked(userId: string, claimedAt: string, upload: { projectId: string; type: string; filename: string; sha256: string }): Promise<FileUpload | undefined> {
      const row = await db
        .selectFrom('file_uploads')
        .selectAll()
        .where('project_id', '=', upload.projectId)
        .where('sha256', '=', upload.sha256)
        .where('uploaded_by_id', '=', userId)
        .where('type', '=', upload.type)
        .where('filename', '=', upload.filename)
        .where('created_at', '>=', claimedAt)
        .where((eb) => eb.not(eb.exists(eb.selectFrom('idempotency_keys').select('key').whereRef('idempotency_keys.file_upload_id', '=', 'file_uploads.id'))))
        .orderBy('created_at')
        .orderBy('id')
        .limit(1)
        .executeTakeFirst();
      return row && toFileUpload(row);
    },
    /** Gives an unfinished claim up (its request failed), so a retry runs afresh. */
    async release(userId: string, key: string): Promise<void> {
      await db.deleteFrom('idempotency_keys').where('user_id', '=', userId).where('key', '=', key).where('file_upload_id', 'is', null).execute();
    },
  };
}

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

function resumableUploadsRepo(db: DB) {
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

/** Leases on tus uploads (uploads/lease-locker.ts): times in milliseconds since the epoch. */
function uploadLocksRepo(db: DB) {
  return {
    /** Takes the lease when it is free or expired; true when `holder` now holds it. */
    async acquire(id: string, holder: string, now: number, ttlMs: number): Promise<boolean> {
      const r = await db
        .insertInto('upload_locks')
        .values({ id, holder, expires_at: now + ttlMs, release_requested: 0 })
        .onConflict((oc) =>
          oc
            .column('id')
            .doUpdateSet({ holder, expires_at: now + ttlMs, release_requested: 0 })
            .where('upload_locks.expires_at', '<', now),
        )
        .executeTakeFirst();
      return Number(r.numInsertedOrUpdatedRows ?? 0) === 1;
    },
    /** Extends the holder's lease; null when it is no longer theirs, else whether a newer request asked for it. */
    async renew(id: string, holder: string, now: number, ttlMs: number): Promise<{ releaseRequested: boolean } | null> {
      const r = await db
        .updateTable('upload_locks')
        .set({ expires_at: now + ttlMs })
        .where('id', '=', id)
        .where('holder', '=', holder)
        .returning('release_requested')
        .executeTakeFirst();
      return r ? { releaseRequested: Number(r.release_requested) === 1 } : null;
    },
    /** Asks whoever holds the lease (not `asker`) to let go. */
    async requestRelease(id: string, asker: string): Promise<void> {
      await db.updateTable('upload_locks').set({ release_requested: 1 }).where('id', '=', id).where('holder', '!=', asker).execute();
    },
    /** Leases that ran out and were never released (their instance stopped). */
    async deleteExpired(now: number): Promise<void> {
      await db.deleteFrom('upload_locks').where('expires_at', '<', now).execute();
    },
    async release(id: string, holder: string): Promise<void> {
      await db.deleteFrom('upload_locks').where('id', '=', id).where('holder', '=', holder).execute();
    },
  };
}

function storageNamesRepo(db: DB, dialect: Database['dialect']) {
  return {
    /** Claims a storage key; false when another upload holds it already. */
    async reserve(key: string, now: string): Promise<boolean> {
      const inserted = await db.executeQuery(hot.reserveName(db, dialect, key, now));
      return Number(inserted.numAffectedRows ?? 0) === 1;
    },
    async release(key: string): Promise<void> {
      await db.deleteFrom('storage_names').where('key', '=', key).execute();
    },
    /** Reservations made before `before` that never got a record (an upload that crashed or failed without cleaning up). */
    async unrecorded(before: string): Promise<string[]> {
      const rows = await db
        .selectFrom('storage_names')
        .leftJoin('file_uploads', 'file_uploads.storage_key', 'storage_names.key')
        .select('storage_names.key')
        .where('storage_names.created_at', '<', before)
        .where('file_uploads.id', 'is', null)
        .orderBy('storage_names.key')
        .execute();
      return rows.map((r) => r.key);
    },
  };
}

export interface ActivityFilter {
  entityType?: string;
  entityId?: string;
  /** null: an action the service does not write, which matches no entry. */
  action?: ActivityAction | null;
  userId?: string;
  limit: number;
  cursor?: string;
}

/** One project change in the event log: its position and the project's current POC (null when the project is gone). */
export interface LoggedChange {
  seq: number;
  projectId: string;
  pocId: string | null;
}

function activityRepo(db: DB, dialect: Database['dialect']) {
  /** The changes after `seq` in order, optionally only those of one POC's projects. */
  const changesAfter = async (seq: number, limit: number, pocId?: string): Promise<LoggedChange[]> => {
    // Every instance's stream hub reads this after every change: the one without a POC is compiled once.
    if (pocId === undefined) {
      const { rows } = await db.executeQuery(hot.changesAfter(db, dialect, seq, limit));
      return rows.map((r): LoggedChange => ({ seq: Number(r.seq), projectId: r.entity_id, pocId: r.poc_id }));
    }
    return db
      .selectFrom('activity_log')
      .leftJoin('projects', 'projects.id', 'activity_log.entity_id')
      .select(['activity_log.seq', 'activity_log.entity_id', 'projects.poc_id'])
      .where('activity_log.seq', '>', seq)
      .where('activity_log.entity_type', '=', 'project')
      .$if(pocId !== undefined, (q) => q.where('projects.poc_id', '=', pocId!))
      .orderBy('activity_log.seq')
      .limit(limit)
      .execute()
      .then((rows) => rows.map((r): LoggedChange => ({ seq: Number(r.seq), projectId: r.entity_id, pocId: r.poc_id })));
  };

  return {
    /**
     * Writes one entry and returns its position in the event log. The position is max + 1 under
     * a lock held until commit (PostgreSQL: a transaction-level advisory lock; SQLite has one
     * writer), so positions are dense and committed in order: a reader who sees N has seen all before it.
     */
    async insert(e: NewActivityEntry): Promise<number> {
      const write = async (trx: DB) => {
        if (dialect === 'postgres') await sql`select pg_advisory_xact_lock(hashtext('activity_log:' || current_schema()))`.execute(trx);
        const [row] = (await trx.executeQuery(hot.insertActivity(trx, dialect, e.id, e.userId, e.action, e.entityType, e.entityId, JSON.stringify(e.details), e.createdAt))).rows;
        if (!row) throw new Error('the activity entry was not written');
        return Number(row.seq);
      };
      // The advisory lock lasts as long as its transaction: outside one, make one.
      return dialect === 'postgres' && !db.isTransaction ? db.transaction().execute(write) : write(db);
    },
    /** The newest position (0 while the log is empty). */
    async latestSeq(): Promise<number> {
      const row = await db.selectFrom('activity_log').select((eb) => eb.fn.max('seq').as('seq')).executeTakeFirst();
      return Number(row?.seq ?? 0);
    },
    /** The newest position up to `atMost` of a change to one of this POC's projects (0 when none). */
    async latestSeqFor(pocId: string, atMost: number): Promise<number> {
      const row = await db
        .selectFrom('activity_log')
        .innerJoin('projects', 'projects.id', 'activity_log.entity_id')
        .select((eb) => eb.fn.max('activity_log.seq').as('seq'))
        .where('activity_log.entity_type', '=', 'project')
        .where('projects.poc_id', '=', pocId)
        .where('activity_log.seq', '<=', atMost)
        .executeTakeFirst();
      return Number(row?.seq ?? 0);
    },
    /** When the entry at `seq` was written, or undefined for a position the log does not hold. */
    async seqWrittenAt(seq: number): Promise<string | undefined> {
      const row = await db.selectFrom('activity_log').select('created_at').where('seq', '=', seq).executeTakeFirst();
      return row?.created_at;
    },
    changesAfter,
    /** Newest first, each with the acting user's name (a LEFT JOIN on users: the name only). A POC sees only entries about the projects they own. */
    async list(scope: Scope, f: ActivityFilter): Promise<Page<ActivityEntryWithNames>> {
      const cursor = decodeCursor(f.cursor);
      const rows = await db
        .selectFrom('activity_log')
        .leftJoin('users as actor', 'actor.id', 'activity_log.user_id')
        .selectAll('activity_log')
        .select('actor.name as user_name')
        .$if(!scope.all, (q) =>
          q
            .where('activity_log.entity_type', '=', 'project')
            .where('activity_log.entity_id', 'in', (sub) =>
              sub.selectFrom('projects').select('projects.id').where('projects.poc_id', '=', (scope as { pocId: string }).pocId),
            ),
        )
        .$if(f.entityType !== undefined, (q) => q.where('activity_log.entity_type', '=', f.entityType!))
        .$if(f.entityId !== undefined, (q) => q.where('activity_log.entity_id', '=', f.entityId!))
        .$if(f.action !== undefined && f.action !== null, (q) => q.where('activity_log.action', '=', f.action!))
        .$if(f.action === null, (q) => q.where(sql<boolean>`1 = 0`))
        .$if(f.userId !== undefined, (q) => q.where('activity_log.user_id', '=', f.userId!))
        .$if(cursor !== undefined, (q) => q.where(olderThan('activity_log', cursor!)))
        .orderBy('activity_log.created_at', 'desc')
        .orderBy('activity_log.id', 'desc')
        .limit(f.limit + 1)
        .execute();
      return page(rows.map(toActivityWithNames), f.limit);
    },
  };
}

function loginFailuresRepo(db: DB) {
  return {
    /**
     * Counts one attempt against each key, starting a new window where the old one has ended, and
     * returns each key's count after it: one statement per key, atomic in both databases, so
     * simultaneous attempts each see a different count.
     */
    async count(keys: string[], now: string, windowStart: string): Promise<{ key: string; failures: number; windowStartedAt: string }[]> {
      const counted = [];
      for (const key of keys) {
        const row = await db
          .insertInto('login_failures')
          .values({ key, failures: 1, window_started_at: now })
          .onConflict((oc) =>
            oc.column('key').doUpdateSet((eb) => ({
              failures: sql<number>`case when ${eb.ref('login_failures.window_started_at')} > ${windowStart} then ${eb.ref('login_failures.failures')} + 1 else 1 end`,
              window_started_at: sql<string>`case when ${eb.ref('login_failures.window_started_at')} > ${windowStart} then ${eb.ref('login_failures.window_started_at')} else ${eb.ref('excluded.window_started_at')} end`,
            })),
          )
          .returning(['failures', 'window_started_at'])
          .executeTakeFirstOrThrow();
        counted.push({ key, failures: Number(row.failures), windowStartedAt: row.window_started_at });
      }
      return counted;
    },
    /** Takes back one counted attempt (it turned out not to be a failure). */
    async uncount(key: string): Promise<void> {
      await db
        .updateTable('login_failures')
        .set((eb) => ({ failures: eb('failures', '-', 1) }))
        .where('key', '=', key)
        .where('failures', '>', 0)
        .execute();
    },
    async clear(key: string): Promise<void> {
      await db.deleteFrom('login_failures').where('key', '=', key).execute();
    },
    /**
     * Takes one of the key's places for an attempt under way, only while the failures in the
     * window and the places taken are fewer than `max`: one conditional update, atomic on both
     * databases (PostgreSQL checks the condition again on the row it waited for). Places taken
     * before `staleBefore` (ms) count no more. True when the place was taken.
     */
    async reserve(key: string, max: number, at: { now: string; nowMs: number; windowStart: string; staleBefore: number }): Promise<boolean> {
      await db
        .insertInto('login_failures')
        .values({ key, failures: 0, window_started_at: at.now })
        .onConflict((oc) => oc.column('key').doNothing())
        .execute();
      const failures = sql<number>`(case when window_started_at > ${at.windowStart} then failures else 0 end)`;
      const pending = sql<number>`(case when pending_at > ${at.staleBefore} then pending else 0 end)`;
      const row = await db
        .updateTable('login_failures')
        .set({ pending: sql<number>`${pending} + 1`, pending_at: at.nowMs })
        .where('key', '=', key)
        .where(sql<number>`${failures} + ${pending}`, '<', max)
        .returning('key')
        .executeTakeFirst();
      return row !== undefined;
    },
    /** The key's failures in the window (and when it ends) and its places taken, for an attempt that found no place. */
    async state(key: string, at: { windowStart: string; staleBefore: number }): Promise<{ failures: number; windowStartedAt: string; pending: number }> {
      const row = await db.selectFrom('login_failures').select(['failures', 'window_started_at', 'pending', 'pending_at']).where('key', '=', key).executeTakeFirst();
      if (!row) return { failures: 0, windowStartedAt: at.windowStart, pending: 0 };
      const inWindow = Date.parse(row.window_started_at) > Date.parse(at.windowStart);
      return { failures: inWindow ? Number(row.failures) : 0, windowStartedAt: row.window_started_at, pending: Number(row.pending_at) > at.staleBefore ? Number(row.pending) : 0 };
    },
    /**
     * Gives the place back with the attempt's outcome: a failure is counted (a new window starts
     * with the first failure after the last one ended), `clear` forgets the failures (the right
     * password), `neither` only gives the place back (the attempt could not be judged).
     */
    async settle(key: string, outcome: 'failure' | 'clear' | 'neither', at: { now: string; windowStart: string }): Promise<void> {
      const continues = sql<boolean>`window_started_at > ${at.windowStart} and failures > 0`;
      await db
        .updateTable('login_failures')
        .set({
          pending: sql<number>`case when pending > 0 then pending - 1 else 0 end`,
          ...(outcome === 'failure'
            ? {
                failures: sql<number>`case when ${continues} then failures + 1 else 1 end`,
                window_started_at: sql<string>`case when ${continues} then window_started_at else ${at.now} end`,
              }
            : outcome === 'clear'
              ? { failures: 0 }
              : {}),
        })
        .where('key', '=', key)
        .execute();
    },
  };
}

function secretsRepo(db: DB) {
  return {
    /** The stored value of a secret, made by `make` and stored the first time: of instances asking at once, the first write wins for all. */
    async getOrCreate(name: string, make: () => string): Promise<string> {
      await db
        .insertInto('server_secrets')
        .values({ name, value: make() })
        .onConflict((oc) => oc.column('name').doNothing())
        .execute();
      const row = await db.selectFrom('server_secrets').select('value').where('name', '=', name).executeTakeFirstOrThrow();
      return row.value;
    },
  };
}

function statsRepo(db: DB) {
  return {
    async projectsByStatus(scope: Scope): Promise<Record<string, number>> {
      const rows = await db
        .selectFrom('projects')
        .select(['status', (eb) => eb.fn.countAll<number>().as('n')])
        .$if(!scope.all, (q) => q.where('poc_id', '=', (scope as { pocId: string }).pocId))
        .groupBy('status')
        .execute();
      return Object.fromEntries(rows.map((r) => [r.status, Number(r.n)]));
    },
    /** Requests an admin has rejected and the owner has not yet sent back (status REQUESTED, approval REJECTED). */
    async rejectedRequests(scope: Scope): Promise<number> {
      const row = await db
        .selectFrom('projects')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .where('status', '=', 'REQUESTED')
        .where('approval_status', '=', 'REJECTED')
        .$if(!scope.all, (q) => q.where('poc_id', '=', (scope as { pocId: string }).pocId))
        .executeTakeFirstOrThrow();
      return Number(row.n);
    },
    async documentsByType(scope: Scope): Promise<Record<string, number>> {
      const rows = await db
        .selectFrom('file_uploads')
        .innerJoin('projects', 'projects.id', 'file_uploads.project_id')
        .select(['file_uploads.type', (eb) => eb.fn.countAll<number>().as('n')])
        .$if(!scope.all, (q) => q.where('projects.poc_id', '=', (scope as { pocId: string }).pocId))
        .groupBy('file_uploads.type')
        .execute();
      return Object.fromEntries(rows.map((r) => [r.type, Number(r.n)]));
    },
    async team(): Promise<{ role: string; active: boolean; n: number }[]> {
      const rows = await db
        .selectFrom('users')
        .select(['role', 'active', (eb) => eb.fn.countAll<number>().as('n')])
        .groupBy(['role', 'active'])
        .execute();
      return rows.map((r) => ({ role: r.role, active: Boolean(r.active), n: Number(r.n) }));
    },
  };
}
