import { type Expression, type ExpressionBuilder, type SqlBool, sql } from 'kysely';
import type { Approval, ApprovalStatus, Hold, JobDetails, Payment, Pi, PiStatus, Project, ProjectStatus, ProjectWithNames } from '../domain/model.js';
import type { Database, DB } from './index.js';
import { invoicesRepo } from './invoices.js';
import { paymentsRepo } from './payments.js';
import { proofsRepo } from './proofs.js';
import { projectItemsRepo } from './project-items.js';
import { CSV_ROW, type CsvSelection, type ListQuery, type ListRows, type ListTables, csvRowsOf } from './projects-csv.js';
import { reusable } from './reusable.js';
import { type Page, type ProjectRowWithNames, decodeCursor, decodeDueCursor, decodePriorityCursor, encodeCursor, encodeDueCursor, encodePriorityCursor, olderThan, toProject, toProjectWithNames } from './rows.js';
import { type Scope, visibleTo } from './visibility.js';

/** A project with the names it shows (its POC's, its approver's, its customer's, its PI's submitter's). */
const withNamesOf = (db: DB) =>
  db
    .selectFrom('projects')
    .leftJoin('users as poc', 'poc.id', 'projects.poc_id')
    .leftJoin('users as decider', 'decider.id', 'projects.approval_decided_by_id')
    .leftJoin('customers as customer', 'customer.id', 'projects.customer_id')
    .leftJoin('users as pi_submitter', 'pi_submitter.id', 'projects.pi_submitted_by_id')
    .leftJoin('users as holder', 'holder.id', 'projects.hold_by_id')
    .leftJoin('projects as original', 'original.id', 'projects.repeat_of_id')
    .selectAll('projects')
    .select([
      'poc.name as poc_name',
      'decider.name as approval_decided_by_name',
      'customer.name as customer_name',
      'pi_submitter.name as pi_submitted_by_name',
      'holder.name as hold_by_name',
      'original.name as repeat_of_name',
      'original.number as repeat_of_number',
    ])
    // Money documents (migration 026): what the totals need (the two states); the latest tax invoice is read per page (invoices.latestFor).
    .select((eb) => ['customer.state_code as customer_state_code', eb.selectFrom('shop_settings').select('shop_settings.gstin').where('shop_settings.id', '=', 'shop').as('shop_gstin')]);

/** The project every upload reads, and the one with its names every change's webhook event and every project page reads: compiled once (reusable.ts). */
const hot = {
  project: reusable((db, id: string) => db.selectFrom('projects').selectAll().where('id', '=', id)),
  withNames: reusable((db, id: string) => withNamesOf(db).where('projects.id', '=', id)),
};

/**
 * How a list is ordered: newest first; earliest due date first with the projects without one last;
 * or by priority (held last, then rush first, then earliest due date with none last, then newest).
 */
export type ProjectSort = 'newest' | 'due' | 'priority';

export interface ProjectFilter {
  status?: ProjectStatus;
  /** PENDING also matches a project without an approval record (no decision yet). */
  approval?: ApprovalStatus;
  pocId?: string;
  customerId?: string;
  piStatus?: PiStatus;
  /** Open projects (not DELIVERED or CANCELLED) whose due date is in this range (domain/due.ts, dueRange): `before` exclusive, `from` and `through` inclusive. */
  dueRange?: { before?: string; from?: string; through?: string };
  /** Due dates from and through (YYYY-MM-DD, inclusive), whatever the status (domain/due.ts checks them). */
  dueFrom?: string;
  dueTo?: string;
  held?: boolean;
  rush?: boolean;
  q?: string;
  sort?: ProjectSort;
  limit: number;
  cursor?: string;
}

export interface ProjectFields extends Partial<JobDetails> {
  name?: string;
  description?: string | null;
  pocId?: string;
  customerId?: string | null;
  status?: ProjectStatus;
  piStatus?: PiStatus;
  approval?: Approval;
  /** The PI's figures as submitted (submit-pi), replacing earlier ones. */
  pi?: Pi;
  rush?: boolean;
  /** A hold put on (its reason, since when, by whom) or taken off (null). */
  hold?: Hold | null;
}

/**
 * Open projects with a due date, written exactly as the partial indexes of migration 013 state it
 * (literals, not parameters): SQLite uses a partial index only for a query whose WHERE names its
 * condition term for term.
 */
export const OPEN_WITH_DUE_DATE = sql<SqlBool>`${sql.ref('projects.status')} not in ('DELIVERED', 'CANCELLED') and ${sql.ref('projects.due_date')} is not null`;

/** The order of sort=priority's segments: not held before held, rush before not, dated before undated. */
const PRIORITY_SEGMENTS = [false, true].flatMap((held) => [true, false].flatMap((rush) => [true, false].map((dated) => ({ held, rush, dated }))));

/**
 * What `q` looks in, each lower-cased and matched as "contains": the project's name, the customer's
 * reference, the POC's name and the customer's name.
 */
const SEARCHED = ['projects.name', 'projects.reference', 'poc.name', 'customer.name'] as const;

/** The list's filters but for who may see (visibleTo) and its order and cursor, as one condition. */
function listFilters(f: ProjectFilter, dialect: Database['dialect'], narrow: boolean) {
  return (eb: ExpressionBuilder<ListTables, 'projects' | 'poc' | 'customer'>): Expression<SqlBool> => {
    const terms: Expression<SqlBool>[] = [];
    if (f.pocId !== undefined) terms.push(eb('projects.poc_id', '=', f.pocId));
    if (f.customerId !== undefined) terms.push(eb('projects.customer_id', '=', f.customerId));
    if (f.status !== undefined) terms.push(eb('projects.status', '=', f.status));
    if (f.piStatus !== undefined) terms.push(eb('projects.pi_status', '=', f.piStatus));
    if (f.approval === 'PENDING') terms.push(eb.or([eb('projects.approval_status', 'is', null), eb('projects.approval_status', '=', 'PENDING')]));
    else if (f.approval !== undefined) terms.push(eb('projects.approval_status', '=', f.approval));
    if (f.held !== undefined) terms.push(eb('projects.held', '=', f.held));
    if (f.rush !== undefined) terms.push(eb('projects.rush', '=', f.rush));
    if (f.dueFrom !== undefined) terms.push(eb('projects.due_date', '>=', f.dueFrom));
    if (f.dueTo !== undefined) terms.push(eb('projects.due_date', '<=', f.dueTo));
    if (f.dueRange) {
      const { before, from, through } = f.dueRange;
      terms.push(OPEN_WITH_DUE_DATE);
      if (before !== undefined) terms.push(eb('projects.due_date', '<', before));
      if (from !== undefined) terms.push(eb('projects.due_date', '>=', from));
      if (through !== undefined) terms.push(eb('projects.due_date', '<=', through));
    }
    if (f.q) {
      const { lowered: q, pattern } = searchPattern(f.q);
      const text: Expression<SqlBool>[] = [];
      // A narrow q is answered from its candidates; a wide one (or one too short for a trigram) by walking the list's order, where matches are dense and a page fills early.
      if (narrow) text.push(sql<SqlBool>`${sql.ref('projects.id')} in (${searchCandidates(dialect, q, pattern)})`);
      // The exact test: what q matches is the same whichever index proposed the candidates.
      text.push(eb.or(SEARCHED.map((column) => sql<SqlBool>`lower(${sql.ref(column)}) like ${pattern} escape '\\'`)));
      // "job 1042": q=1042 or q=#1042 also finds that job number, exactly (its unique index).
      const number = jobNumberOf(f.q);
      terms.push(number === null ? eb.and(text) : eb.or([eb('projects.number', '=', number), eb.and(text)]));
    }
    return eb.and(terms);
  };
}

/** The job number q names (`1042` or `#1042`), or null. */
export function jobNumberOf(q: string): number | null {
  const m = /^\s*#?(\d{1,9})\s*$/.exec(q);
  return m ? Number(m[1]) : null;
}

/** The length from which the trigram indexes (migration 021) find a substring. */
const TRIGRAM = 3;

/**
 * Up to how many candidates a search reads them and sorts them. Past it, matches are at least
 * NARROW in the table, so walking the list's order with the exact test fills a page after about
 * limit × projects / NARROW rows; below it, reading the candidates costs at most NARROW lookups.
 */
const NARROW = 2000;

const searchPattern = (q: string) => {
  const lowered = q.toLowerCase();
  // SQLite's LIKE has no escape character unless one is named; PostgreSQL's default is the same backslash.
  return { lowered, pattern: `%${escapeLike(lowered)}%` };
};

/**
 * The ids of the projects q may match, read from the indexes of migration 021: a superset of the
 * exact matches (the trigram indexes fold case at least as widely as lower() does). One branch per
 * place q looks in, so each uses its own index; customers and users are found by name, then their
 * projects by (customer_id, …) and (poc_id, …).
 */
function searchCandidates(dialect: Database['dialect'], q: string, pattern: string) {
  const like = (column: string) => sql`lower(${sql.ref(column)}) like ${pattern} escape '\\'`;
  const byName =
    dialect === 'sqlite'
      ? sql`select k.project_id from projects_search join project_search_keys k on k.key = projects_search.rowid where projects_search match ${`"${q.replace(/"/g, '""')}"`}`
      : sql`select s.id from projects s where ${like('s.name')} union all select s.id from projects s where ${like('s.reference')}`;
  return sql`${byName}
    union all select c.id from projects c where c.customer_id in (select customers.id from customers where ${like('customers.name')})
    union all select u.id from projects u where u.poc_id in (select users.id from users where ${like('users.name')})`;
}

/** Projects, with the names of their POC and approval decider where answers show them. */
export function projectsRepo(db: DB, dialect: Database['dialect'], arrays?: Database['arrays']) {
  /**
   * Projects with the names of their POC, of their approval's decider and of their customer: LEFT
   * JOINs on primary keys, so the rows and their order are the projects' own (and their indexes
   * serve the filters and the order). Only the names are read from users and customers.
   */
  const withNames = () => withNamesOf(db);

  /** Whether q is a narrow search (see NARROW): at most NARROW candidates, counted from the indexes with a bound. */
  const isNarrow = async (q: string | undefined): Promise<boolean> => {
    if (!q || [...q].length < TRIGRAM) return false;
    const { lowered, pattern } = searchPattern(q);
    const { rows } = await sql<{ n: number | string }>`select count(*) as n from (${searchCandidates(dialect, lowered, pattern)} limit ${NARROW + 1}) candidates`.execute(db);
    return Number(rows[0]?.n ?? 0) <= NARROW;
  };

  const items = projectItemsRepo(db, dialect);
  const payments = paymentsRepo(db, dialect);
  const proofs = proofsRepo(db, dialect);
  const invoices = invoicesRepo(db, dialect);

  /** Rows as answers show them: each with its lines, the sum of its payments, its latest proof and its latest invoice, read in four more queries for them all. */
  const withItems = async (rows: ProjectRowWithNames[]): Promise<ProjectWithNames[]> => {
    const ids = rows.map((r) => r.id);
    const [lines, paid, latestProofs, latestInvoices] = await Promise.all([items.forProjects(ids), payments.paidFor(ids), proofs.latestFor(ids), invoices.latestFor(ids)]);
    return rows.map((r) =>
      toProjectWithNames(r, { items: lines.get(r.id) ?? [], paid: paid.get(r.id) ?? 0, proof: latestProofs.get(r.id) ?? null, invoice: latestInvoices.get(r.id) ?? null }),
    );
  };

  /** One project with the names and its lines, as answers show it. */
  const findWithNames = async (id: string): Promise<ProjectWithNames | undefined> => {
    const row = (await db.executeQuery(hot.withNames(db, dialect, id))).rows[0];
    if (!row) return undefined;
    const [lines, paid, latestProof, latestInvoice] = await Promise.all([items.of(id), payments.paidOf(id), proofs.latestFor([id]), invoices.latestFor([id])]);
    return toProjectWithNames(row, { items: lines, paid, proof: latestProof.get(id) ?? null, invoice: latestInvoice.get(id) ?? null });
  };

  /**
   * sort=due: earliest due date first (ties by id), then the projects without a due date (by id).
   * Two queries, each walking an index in its order ((due_date, id), or (poc_id, due_date, id) for
   * a POC): the second only when the first leaves the page short. One ORDER BY with the nulls last
   * would sort every visible project on each page.
   */
  const listByDue = async <O, R>(rowsOf: ListRows<O, R>, scope: Scope, f: ProjectFilter): Promise<{ rows: R[]; nextCursor: string | null }> => {
    const cursor = decodeDueCursor(f.cursor);
    const narrow = await isNarrow(f.q);
    const wanted = f.limit + 1;
    const rows: R[] = [];
    const visibleListed = () => rowsOf.base().where(visibleTo(scope)).where(listFilters(f, dialect, narrow));
    if (cursor?.dueDate !== null) {
      rows.push(
        ...(await rowsOf.read(
          visibleListed()
            .where('projects.due_date', 'is not', null)
            .$if(cursor !== undefined, (q) => q.where((eb) => eb(eb.refTuple('projects.due_date', 'projects.id'), '>', eb.tuple(cursor!.dueDate!, cursor!.id))))
            .orderBy('projects.due_date')
            .orderBy('projects.id')
            .limit(wanted),
        )),
      );
    }
    // The due filters choose dated projects only.
    if (rows.length < wanted && !f.dueRange) {
      rows.push(
        ...(await rowsOf.read(
          visibleListed()
            .where('projects.due_date', 'is', null)
            .$if(cursor?.dueDate === null, (q) => q.where('projects.id', '>', cursor!.id))
            .orderBy('projects.id')
            .limit(wanted - rows.length),
        )),
      );
    }
    const shown = rows.slice(0, f.limit);
    const last = shown.length ? rowsOf.key(shown[shown.length - 1]!) : undefined;
    return { rows: shown, nextCursor: rows.length > f.limit && last ? encodeDueCursor({ dueDate: last.due_date, id: last.id }) : null };
  };

  /**
   * sort=priority: held last, then rush first, then the earliest due date (none last), then newest.
   * Walked as segments in that order — (held, rush) × (dated, undated) — each one index range of
   * (held, rush, due_date, created_at desc, id desc) (migration 025), read only while the page is
   * short. The cursor names the segment and the last row's place in it.
   */
  const listByPriority = async <O, R>(rowsOf: ListRows<O, R>, scope: Scope, f: ProjectFilter): Promise<{ rows: R[]; nextCursor: string | null }> => {
    const cursor = decodePriorityCursor(f.cursor);
    const narrow = await isNarrow(f.q);
    const wanted = f.limit + 1;
    const rows: R[] = [];
    const segments: number[] = [];
    for (const [segment, { held, rush, dated }] of PRIORITY_SEGMENTS.entries()) {
      if (rows.length >= wanted) break;
      if (cursor && segment < cursor.segment) continue;
      if (f.held !== undefined && f.held !== held) continue;
      if (f.rush !== undefined && f.rush !== rush) continue;
      // The due filters choose dated projects only.
      if (!dated && (f.dueRange || f.dueFrom !== undefined || f.dueTo !== undefined)) continue;
      const after = cursor && segment === cursor.segment ? cursor : undefined;
      const found = await rowsOf.read(
        rowsOf
          .base()
          .where(visibleTo(scope))
          .where(listFilters(f, dialect, narrow))
          .where('projects.held', '=', held)
          .where('projects.rush', '=', rush)
          .where('projects.due_date', dated ? 'is not' : 'is', null)
          .$if(after !== undefined && dated, (q) =>
            q.where((eb) =>
              eb.and([
                eb('projects.due_date', '>=', after!.dueDate!),
                eb.or([eb('projects.due_date', '>', after!.dueDate!), olderThan('projects', after!)]),
              ]),
            ),
          )
          .$if(after !== undefined && !dated, (q) => q.where(olderThan('projects', after!)))
          .$if(dated, (q) => q.orderBy('projects.due_date'))
          .orderBy('projects.created_at', 'desc')
          .orderBy('projects.id', 'desc')
          .limit(wanted - rows.length),
      );
      rows.push(...found);
      for (const _ of found) segments.push(segment);
    }
    const shown = rows.slice(0, f.limit);
    const last = shown.length ? rowsOf.key(shown[shown.length - 1]!) : undefined;
    return {
      rows: shown,
      nextCursor:
        rows.length > f.limit && last ? encodePriorityCursor({ segment: segments[shown.length - 1]!, dueDate: last.due_date, createdAt: last.created_at, id: last.id }) : null,
    };
  };

  /** Walks a list's order (the filters, who may see, the sort and the cursor): the rows of one page and the next page's cursor. */
  const listRows = async <O, R>(rowsOf: ListRows<O, R>, scope: Scope, f: ProjectFilter): Promise<{ rows: R[]; nextCursor: string | null }> => {
    if (f.sort === 'due') return listByDue(rowsOf, scope, f);
    if (f.sort === 'priority') return listByPriority(rowsOf, scope, f);
    const cursor = decodeCursor(f.cursor);
    const narrow = await isNarrow(f.q);
    const rows = await rowsOf.read(
      rowsOf
        .base()
        .where(visibleTo(scope))
        .where(listFilters(f, dialect, narrow))
        .$if(cursor !== undefined, (q) => q.where(olderThan('projects', cursor!)))
        .orderBy('projects.created_at', 'desc')
        .orderBy('projects.id', 'desc')
        .limit(f.limit + 1),
    );
    const shown = rows.slice(0, f.limit);
    const last = shown.length ? rowsOf.key(shown[shown.length - 1]!) : undefined;
    return { rows: shown, nextCursor: rows.length > f.limit && last ? encodeCursor({ createdAt: last.created_at, id: last.id }) : null };
  };

  /** The list's rows as answers show them (withNames, then withItems). */
  const fullRows: ListRows<ProjectRowWithNames, ProjectRowWithNames> = {
    base: () => withNames() as unknown as ListQuery<ProjectRowWithNames>,
    read: (q) => q.execute(),
    key: (r) => r,
  };

  /** The CSV's rows: only its columns, the payments summed in the same statement, as arrays (CSV_ROW). */
  const csvRows: ListRows<CsvSelection, unknown[]> = {
    base: () => csvRowsOf(db),
    read: (q) => (arrays ? arrays(q.compile()) : q.execute().then((rows) => rows.map((r) => Object.values(r)))),
    key: (r) => ({ id: r[CSV_ROW.id] as string, created_at: r[CSV_ROW.createdAt] as string, due_date: r[CSV_ROW.dueDate] as string | null }),
  };

  return {
    /**
     * A new project; the job's details when given (its lines go through projectItems). Takes the
     * next job number from project_counter (migration 025), whose row stays locked until the
     * caller's transaction ends: call it in one. Answers the number.
     */
    async insert(p: Omit<Project, 'customerId' | 'number' | 'hold' | 'repeatOfId' | 'rush'> & { customerId?: string | null; repeatOfId?: string | null; rush?: boolean } & Partial<JobDetails>): Promise<number> {
      const { last_number: number } = await db
        .updateTable('project_counter')
        .set((eb) => ({ last_number: eb('last_number', '+', 1) }))
        .where('id', '=', 1)
        .returning('last_number')
        .executeTakeFirstOrThrow();
      await db
        .insertInto('projects')
        .values({
          number,
          rush: p.rush ?? false,
          repeat_of_id: p.repeatOfId ?? null,
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
          reference: p.reference ?? null,
          due_date: p.dueDate ?? null,
          delivery_address: p.deliveryAddress ?? null,
          customer_id: p.customerId ?? null,
        })
        .execute();
      return number;
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
        // NO KEY UPDATE, as an UPDATE of the row takes: a document or payment referring to the project (its foreign
        // key's KEY SHARE) is not blocked, so an upload batch holding the event log's lock never waits for this row (no deadlock).
        .$if(Boolean(opts.forUpdate) && dialect === 'postgres', (q) => q.forNoKeyUpdate())
        .executeTakeFirst();
      return row && toProject(row);
    },
    findWithNames,
    /**
     * What a project's webhook event carries of it (webhooks/outbox.ts): the project with its names and
     * its payments; undefined when it is gone. A group commit's batch reads it once per project (store.ts).
     */
    async forEvent(id: string): Promise<{ project: ProjectWithNames; payments: Payment[] } | undefined> {
      const project = await findWithNames(id);
      return project && { project, payments: await payments.listForProject(id) };
    },
    /**
     * The due-date digest's projects on `day` (domain/due-digest.ts): open ones the scope may see
     * whose due date is that day or earlier, of one POC when `pocId` is given, earliest first, at
     * most `limit`. Walks the open projects with a due date only (migration 013's partial indexes).
     */
    async dueBy(scope: Scope, day: string, opts: { pocId?: string; limit: number }): Promise<(Project & JobDetails)[]> {
      const rows = await db
        .selectFrom('projects')
        .selectAll()
        .where(visibleTo(scope))
        .where(OPEN_WITH_DUE_DATE)
        .where('projects.due_date', '<=', day)
        .$if(opts.pocId !== undefined, (q) => q.where('projects.poc_id', '=', opts.pocId!))
        .orderBy('projects.due_date')
        .orderBy('projects.id')
        .limit(opts.limit)
        .execute();
      return rows.map((r) => ({ ...toProject(r), reference: r.reference, dueDate: r.due_date, deliveryAddress: r.delivery_address }));
    },
    /** The projects the scope may see, filtered, newest first or by due date (`sort`), one page after the cursor. */
    async list(scope: Scope, f: ProjectFilter): Promise<Page<ProjectWithNames>> {
      const { rows, nextCursor } = await listRows(fullRows, scope, f);
      return { items: await withItems(rows), nextCursor };
    },
    /**
     * One page of GET /api/projects.csv, in the list's order and with its filters: one statement a
     * page, each row an array of the CSV's fields as stored (CSV_ROW), nothing else read.
     */
    csvPage(scope: Scope, f: ProjectFilter): Promise<{ rows: unknown[][]; nextCursor: string | null }> {
      return listRows(csvRows, scope, f);
    },
    /**
     * The board (issue 36): every open project the scope may see (REQUESTED to DISPATCHED) and those
     * DELIVERED since `deliveredSince` (by their last change), unordered: the caller sorts them.
     * Two queries for the rows (the status index; (status, updated_at), migration 028) and the four of withItems for them all.
     */
    async board(scope: Scope, f: { pocId?: string; customerId?: string; deliveredSince: string }): Promise<ProjectWithNames[]> {
      const columns = () =>
        withNames()
          .where(visibleTo(scope))
          .$if(f.pocId !== undefined, (q) => q.where('projects.poc_id', '=', f.pocId!))
          .$if(f.customerId !== undefined, (q) => q.where('projects.customer_id', '=', f.customerId!));
      // Two reads, each one index range: one condition with OR made both databases walk every project (a shop's years of DELIVERED ones).
      const open = await columns().where('projects.status', 'in', ['REQUESTED', 'APPROVED', 'PRINTING', 'DISPATCHED']).execute();
      const delivered = await columns().where('projects.status', '=', 'DELIVERED').where('projects.updated_at', '>=', f.deliveredSince).execute();
      return withItems([...open, ...delivered]);
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
          reference: f.reference,
          due_date: f.dueDate,
          delivery_address: f.deliveryAddress,
          ...(f.pi && {
            pi_number: f.pi.number,
            pi_amount: f.pi.amount,
            pi_currency: f.pi.currency,
            pi_valid_until: f.pi.validUntil,
            pi_submitted_at: f.pi.submittedAt,
            pi_submitted_by_id: f.pi.submittedById,
          }),
          customer_id: f.customerId,
          rush: f.rush,
          ...(f.hold !== undefined && {
            held: f.hold !== null,
            hold_reason: f.hold?.reason ?? null,
            hold_since: f.hold?.since ?? null,
            hold_by_id: f.hold?.byId ?? null,
          }),
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
