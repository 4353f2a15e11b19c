import { type RawBuilder, type SqlBool, sql } from 'kysely';
import type { DB } from './index.js';
import { OPEN_WITH_DUE_DATE } from './projects.js';
import { type Scope, visibleTo } from './visibility.js';

/** Where a balance is cut in two for summing (outstanding): each part's sum stays far inside 64 bits. */
const SPLIT = 1_000_000_000;

/** The dashboard's figures, over the projects the scope may see (db/visibility.ts). */
export function statsRepo(db: DB) {
  return {
    async projectsByStatus(scope: Scope): Promise<Record<string, number>> {
      const rows = await db
        .selectFrom('projects')
        .select(['status', (eb) => eb.fn.countAll<number>().as('n')])
        .where(visibleTo(scope))
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
        .where(visibleTo(scope))
        .executeTakeFirstOrThrow();
      return Number(row.n);
    },
    async documentsByType(scope: Scope): Promise<Record<string, number>> {
      const rows = await db
        .selectFrom('file_uploads')
        .innerJoin('projects', 'projects.id', 'file_uploads.project_id')
        .select(['file_uploads.type', (eb) => eb.fn.countAll<number>().as('n')])
        // Withdrawn documents are not counted.
        .where('file_uploads.voided_at', 'is', null)
        .where(visibleTo(scope))
        .groupBy('file_uploads.type')
        .execute();
      return Object.fromEntries(rows.map((r) => [r.type, Number(r.n)]));
    },
    /**
     * Open projects (not DELIVERED or CANCELLED) due before `today`, on it, and from it through
     * `weekEnd`, in one read of the open-projects-with-a-due-date index up to weekEnd. The
     * condition is the partial indexes' own (migration 013), word for word.
     */
    async dueCounts(scope: Scope, today: string, weekEnd: string): Promise<{ overdue: number; today: number; week: number }> {
      const count = (condition: RawBuilder<SqlBool>) => sql<number>`coalesce(sum(case when ${condition} then 1 else 0 end), 0)`;
      const due = sql.ref('due_date');
      const row = await db
        .selectFrom('projects')
        .select([
          count(sql<SqlBool>`${due} < ${today}`).as('overdue'),
          count(sql<SqlBool>`${due} = ${today}`).as('today'),
          count(sql<SqlBool>`${due} >= ${today}`).as('week'),
        ])
        .where(OPEN_WITH_DUE_DATE)
        .where('projects.due_date', '<=', weekEnd)
        .where(visibleTo(scope))
        .executeTakeFirstOrThrow();
      return { overdue: Number(row.overdue), today: Number(row.today), week: Number(row.week) };
    },
    /** Open projects (not DELIVERED or CANCELLED) on hold, and rush (a held rush job counts in both): migration 025's partial indexes. */
    async heldAndRush(scope: Scope): Promise<{ held: number; rush: number }> {
      const open = sql<SqlBool>`status not in ('DELIVERED', 'CANCELLED')`;
      const count = async (column: 'held' | 'rush') =>
        Number(
          (
            await db
              .selectFrom('projects')
              .select((eb) => eb.fn.countAll<number>().as('n'))
              .where(column, '=', true)
              .where(open)
              .where(visibleTo(scope))
              .executeTakeFirstOrThrow()
          ).n,
        );
      const [held, rush] = await Promise.all([count('held'), count('rush')]);
      return { held, rush };
    },
    /** Submitted PIs an admin has yet to verify or reject (a cancelled project's no longer waits). */
    async piAwaitingVerification(scope: Scope): Promise<number> {
      const row = await db
        .selectFrom('projects')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .where('pi_status', '=', 'SUBMITTED')
        .where('status', '!=', 'CANCELLED')
        .where(visibleTo(scope))
        .executeTakeFirstOrThrow();
      return Number(row.n);
    },
    /**
     * What is still owed, per currency: the sum of the positive balances (the PI's amount less the
     * project's payments) of the PIs submitted or verified, on projects not cancelled. Each balance
     * is exact; their total may pass 2^53, and even 2^63, where SQLite's sum() fails with "integer
     * overflow" (issue 33, item 11: ~1,025 PIs of the old bound). So each balance is summed in two
     * parts, its billions and the rest (SPLIT), each far from overflowing on either database
     * (PostgreSQL's sum of a bigint is a numeric anyway), read as text and joined with bigints.
     */
    async outstanding(scope: Scope): Promise<{ currency: string; amount: bigint; projects: number }[]> {
      const paid = db.selectFrom('payments').select(['project_id', sql<number>`sum(amount)`.as('paid')]).groupBy('project_id').as('paid');
      const balance = sql<number>`projects.pi_amount - coalesce(paid.paid, 0)`;
      const rows = await db
        .selectFrom('projects')
        .leftJoin(paid, 'paid.project_id', 'projects.id')
        .select([
          'projects.pi_currency as currency',
          sql<string>`cast(sum(cast(${balance} as bigint) / ${sql.lit(SPLIT)}) as text)`.as('high'),
          sql<string>`cast(sum(cast(${balance} as bigint) % ${sql.lit(SPLIT)}) as text)`.as('low'),
          (eb) => eb.fn.countAll<number>().as('n'),
        ])
        .where('projects.pi_amount', 'is not', null)
        .where('projects.pi_status', 'in', ['SUBMITTED', 'VERIFIED'])
        .where('projects.status', '!=', 'CANCELLED')
        .where(sql<SqlBool>`${balance} > 0`)
        .where(visibleTo(scope))
        .groupBy('projects.pi_currency')
        .orderBy('projects.pi_currency')
        .execute();
      return rows.map((r) => ({ currency: r.currency!, amount: BigInt(r.high) * BigInt(SPLIT) + BigInt(r.low), projects: Number(r.n) }));
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
