import { sql } from 'kysely';
import type { ActivityEntry, ActivityEntryWithNames } from '../domain/model.js';
import type { Database, DB } from './index.js';
import { reusable } from './reusable.js';
import { type Page, decodeCursor, olderThan, page, toActivityWithNames } from './rows.js';
import type { Scope } from './visibility.js';

/** The project changes after `seq` in log order, each with its project's current POC (a LEFT JOIN: null when the project is gone). */
const changesAfterQuery = (db: DB, seq: number, limit: number) =>
  db
    .selectFrom('activity_log')
    .leftJoin('projects', 'projects.id', 'activity_log.entity_id')
    .select(['activity_log.seq', 'activity_log.entity_id', 'projects.poc_id'])
    .where('activity_log.seq', '>', seq)
    .where('activity_log.entity_type', '=', 'project')
    .orderBy('activity_log.seq')
    .limit(limit);

/** The entry every change writes, and the log read every change causes, compiled once: see reusable.ts. */
const hot = {
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
  changesAfter: reusable((db, seq: number, limit: number) => changesAfterQuery(db, seq, limit)),
};

export interface ActivityFilter {
  entityType?: string;
  entityId?: string;
  action?: string;
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

export function activityRepo(db: DB, dialect: Database['dialect']) {
  /** The changes after `seq` in order, optionally only those of one POC's projects. */
  const changesAfter = async (seq: number, limit: number, pocId?: string): Promise<LoggedChange[]> => {
    // Every instance's stream hub reads this after every change: the one without a POC is compiled once.
    const rows =
      pocId === undefined
        ? (await db.executeQuery(hot.changesAfter(db, dialect, seq, limit))).rows
        : await changesAfterQuery(db, seq, limit).where('projects.poc_id', '=', pocId).execute();
    return rows.map((r): LoggedChange => ({ seq: Number(r.seq), projectId: r.entity_id, pocId: r.poc_id }));
  };

  return {
    /**
     * Writes one entry and returns its position in the event log. The position is max + 1 under
     * a lock held until commit (PostgreSQL: a transaction-level advisory lock; SQLite has one
     * writer), so positions are dense and committed in order: a reader who sees N has seen all before it.
     */
    async insert(e: ActivityEntry): Promise<number> {
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
        .$if(f.action !== undefined, (q) => q.where('activity_log.action', '=', f.action!))
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
