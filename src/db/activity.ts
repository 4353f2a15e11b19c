import { type QueryCreator, sql } from 'kysely';
import type { Tables } from './schema.js';
import type { ActivityAction } from '../domain/activity.js';
import type { ActivityEntryWithNames, FileUpload, NewActivityEntry } from '../domain/model.js';
import { type NewFileValues, fileInsert, filesRepo, newFileValues } from './files.js';
import type { ProjectScope } from '../domain/visibility.js';
import type { Database, DB } from './index.js';
import { reusable } from './reusable.js';
import { type Page, decodeSeqCursor, encodeSeqCursor, toActivityWithNames } from './rows.js';
import { PROJECT_SCOPE_COLUMNS, type Scope, internalEntriesShownTo, toProjectScope, visibleEntries, visibleTo } from './visibility.js';

/** The project changes after `seq` in log order, each with what the visibility rule reads of its project now (a LEFT JOIN: null when the project is gone). */
const changesAfterQuery = (db: DB, seq: number, limit: number) =>
  db
    .selectFrom('activity_log')
    .leftJoin('projects', 'projects.id', 'activity_log.entity_id')
    .select(['activity_log.seq', 'activity_log.entity_id', 'activity_log.internal', ...PROJECT_SCOPE_COLUMNS])
    .where('activity_log.seq', '>', seq)
    .where('activity_log.entity_type', '=', 'project')
    .orderBy('activity_log.seq')
    .limit(limit);

/** An entry's values, in the order activityInsert takes them; internal as 0/1: compiled queries bind no booleans (reusable.ts). */
type EntryValues = [id: string, userId: string | null, action: string, entityType: string, entityId: string, details: string, createdAt: string, internal: 0 | 1];

const entryValues = (e: NewActivityEntry): EntryValues => [e.id, e.userId, e.action, e.entityType, e.entityId, JSON.stringify(e.details), e.createdAt, e.internal ? 1 : 0];

/** The insert of an entry at the next position (the caller holds the event log's lock), answering that position. */
const activityInsert = (db: QueryCreator<Tables>, ...[id, userId, action, entityType, entityId, details, createdAt, internal]: EntryValues) =>
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
      // PostgreSQL reads '1' as true for a boolean column.
      internal,
    })
    .returning('seq');

/** The entry every change writes, and the log read every change causes, compiled once: see reusable.ts. */
const hot = {
  insertActivity: reusable((db, ...values: EntryValues) => activityInsert(db, ...values)),
  /** PostgreSQL: an upload's record and its entry in one statement (a data-modifying WITH), one round trip instead of two. */
  insertFileAndActivity: reusable((db, ...values: [...EntryValues, ...NewFileValues]) =>
    activityInsert(
      // The WITH's own table is never read: the statement is typed as the tables it writes.
      db.with('recorded', (d) => fileInsert(d, ...(values.slice(8) as unknown as NewFileValues)).returning('id')) as unknown as QueryCreator<Tables>,
      ...(values.slice(0, 8) as EntryValues),
    ),
  ),
  changesAfter: reusable((db, seq: number, limit: number) => changesAfterQuery(db, seq, limit)),
};

export interface ActivityFilter {
  entityType?: string;
  entityId?: string;
  /** null: an action the service does not write, which matches no entry. */
  action?: ActivityAction | null;
  userId?: string;
  limit: number;
  cursor?: string;
}

/** One project change in the event log: its position, and the project as the visibility rule reads it now (null when the project is gone). */
export interface LoggedChange {
  seq: number;
  projectId: string;
  project: ProjectScope | null;
  /** An internal note's: never sent to a CLIENT (domain/visibility.ts, maySeeEntry). */
  internal: boolean;
}

/** PostgreSQL: takes the event log's lock (see insert) until the end of the transaction `trx`. */
export async function lockEventLog(trx: DB): Promise<void> {
  await sql`select pg_advisory_xact_lock(hashtext('activity_log:' || current_schema()))`.execute(trx);
}

/**
 * The activity log (migration 002: `seq` orders it), which is also the realtime event log.
 * `locked`: the transaction `db` holds the event log's lock already (a group commit's batch took it first).
 */
export function activityRepo(db: DB, dialect: Database['dialect'], { locked = false }: { locked?: boolean } = {}) {
  /** The changes after `seq` in order: all of them, or those the scope may see now. */
  const changesAfter = async (seq: number, limit: number, scope?: Scope): Promise<LoggedChange[]> => {
    // Every instance's stream hub reads this after every change: the one without a scope is compiled once.
    const rows =
      scope === undefined
        ? (await db.executeQuery(hot.changesAfter(db, dialect, seq, limit))).rows
        : await changesAfterQuery(db, seq, limit).where(visibleTo(scope)).where(internalEntriesShownTo(scope)).execute();
    return rows.map((r): LoggedChange => ({ seq: Number(r.seq), projectId: r.entity_id, project: toProjectScope(r), internal: Boolean(r.internal) }));
  };

  return {
    /**
     * Writes one entry and returns its position in the event log. The position is max + 1 under
     * a lock held until commit (PostgreSQL: a transaction-level advisory lock; SQLite has one
     * writer), so positions are dense and committed in order: a reader who sees N has seen all before it.
     * `file`: an upload's record, written with the entry (PostgreSQL: in the same statement, one round
     * trip); should either fail the call fails, and the caller's savepoint or transaction undoes both.
     */
    async insert(e: NewActivityEntry, { file }: { file?: Omit<FileUpload, 'voidedAt' | 'voidedById' | 'voidReason'> } = {}): Promise<number> {
      const write = async (trx: DB) => {
        if (dialect === 'postgres' && !locked) await lockEventLog(trx);
        // SQLite runs statements in-process: the record is its own statement, before the entry (one failing undoes the other with the caller's savepoint or transaction).
        if (file && dialect === 'sqlite') await filesRepo(trx, dialect).insert(file);
        const query = file && dialect === 'postgres' ? hot.insertFileAndActivity(trx, dialect, ...entryValues(e), ...newFileValues(file)) : hot.insertActivity(trx, dialect, ...entryValues(e));
        const [row] = (await trx.executeQuery(query)).rows;
        if (!row) throw new Error('the activity entry was not written');
        return Number(row.seq);
      };
      // The advisory lock lasts as long as its transaction, and the record goes with its entry: outside one, make one.
      return (dialect === 'postgres' || file) && !db.isTransaction ? db.transaction().execute(write) : write(db);
    },
    /** The newest position (0 while the log is empty). */
    async latestSeq(): Promise<number> {
      const row = await db.selectFrom('activity_log').select((eb) => eb.fn.max('seq').as('seq')).executeTakeFirst();
      return Number(row?.seq ?? 0);
    },
    /** The newest position up to `atMost` of a change the scope may see (0 when none): a project it may see, internal notes only when it sees them. */
    async latestSeqFor(scope: Scope, atMost: number): Promise<number> {
      const row = await db
        .selectFrom('activity_log')
        .innerJoin('projects', 'projects.id', 'activity_log.entity_id')
        .select((eb) => eb.fn.max('activity_log.seq').as('seq'))
        .where('activity_log.entity_type', '=', 'project')
        .where(visibleTo(scope))
        .where(internalEntriesShownTo(scope))
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
    /**
     * Newest first in the event log's order (`seq`: commit order, the same on every instance, where
     * `created_at` is each instance's clock before its commit), each with the acting user's name (a
     * LEFT JOIN on users: the name only); only the entries the scope may see.
     */
    async list(scope: Scope, f: ActivityFilter): Promise<Page<ActivityEntryWithNames>> {
      const cursor = decodeSeqCursor(f.cursor);
      const rows = await db
        .selectFrom('activity_log')
        .leftJoin('users as actor', 'actor.id', 'activity_log.user_id')
        .selectAll('activity_log')
        .select('actor.name as user_name')
        .where(visibleEntries(scope))
        .$if(f.entityType !== undefined, (q) => q.where('activity_log.entity_type', '=', f.entityType!))
        .$if(f.entityId !== undefined, (q) => q.where('activity_log.entity_id', '=', f.entityId!))
        .$if(f.action !== undefined && f.action !== null, (q) => q.where('activity_log.action', '=', f.action!))
        .$if(f.action === null, (q) => q.where(sql<boolean>`1 = 0`))
        .$if(f.userId !== undefined, (q) => q.where('activity_log.user_id', '=', f.userId!))
        .$if(cursor !== undefined && 'seq' in cursor, (q) => q.where('activity_log.seq', '<', (cursor as { seq: number }).seq))
        .$if(cursor !== undefined && 'id' in cursor, (q) =>
          q.where('activity_log.seq', '<', (eb) => eb.selectFrom('activity_log as at').select('at.seq').where('at.id', '=', (cursor as { id: string }).id)),
        )
        .orderBy('activity_log.seq', 'desc')
        .limit(f.limit + 1)
        .execute();
      const last = rows.length > f.limit ? rows[f.limit - 1] : undefined;
      return { items: rows.slice(0, f.limit).map(toActivityWithNames), nextCursor: last ? encodeSeqCursor(Number(last.seq)) : null };
    },
  };
}
