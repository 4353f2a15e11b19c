import { sql } from 'kysely';
import type { Approval, ApprovalStatus, PiStatus, Project, ProjectStatus, ProjectWithNames } from '../domain/model.js';
import type { Database, DB } from './index.js';
import { reusable } from './reusable.js';
import { type Page, decodeCursor, olderThan, page, toProject, toProjectWithNames } from './rows.js';
import { type Scope, visibleTo } from './visibility.js';

/** The project every upload reads, compiled once: see reusable.ts. */
const hot = {
  project: reusable((db, id: string) => db.selectFrom('projects').selectAll().where('id', '=', id)),
};

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

/** Projects, with the names of their POC and approval decider where answers show them. */
export function projectsRepo(db: DB, dialect: Database['dialect']) {
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
        .where(visibleTo(scope))
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
