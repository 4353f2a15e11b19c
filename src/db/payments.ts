import { sql } from 'kysely';
import type { Payment } from '../domain/model.js';
import type { DB, Dialect } from './index.js';
import { reusable } from './reusable.js';
import { toPayment } from './rows.js';
import { amongIds } from './id-lists.js';

/**
 * The sum of payments. Each sum is at most MAX_AMOUNT (domain/money.ts), so exact as a number;
 * PostgreSQL's sum of a bigint is a numeric, answered as text: cast back to bigint (read as a number, db/index.ts).
 */
const paidSum = sql<number | null>`cast(sum(amount) as bigint)`;

/** One project's payments and their sum, read with every change's webhook event and every project page: compiled once (reusable.ts). */
const hot = {
  list: reusable((db, projectId: string) =>
    db.selectFrom('payments').selectAll().where('project_id', '=', projectId).orderBy('received_on', 'desc').orderBy('created_at', 'desc').orderBy('id', 'desc'),
  ),
  paid: reusable((db, projectId: string) => db.selectFrom('payments').select(paidSum.as('paid')).where('project_id', '=', projectId)),
};

/** Payments received for projects (migration 015). Who may see them is the project's rule: callers read them for a project they may see. */
export function paymentsRepo(db: DB, dialect: Dialect) {
  return {
    async insert(p: Payment): Promise<void> {
      await db
        .insertInto('payments')
        .values({
          id: p.id,
          project_id: p.projectId,
          amount: p.amount,
          currency: p.currency,
          received_on: p.receivedOn,
          method: p.method,
          reference: p.reference,
          recorded_by_id: p.recordedById,
          created_at: p.createdAt,
        })
        .execute();
    },
    /** A project's payments, newest first: by the day received, then by when recorded. */
    async listForProject(projectId: string): Promise<Payment[]> {
      return (await db.executeQuery(hot.list(db, dialect, projectId))).rows.map(toPayment);
    },
    /** The sum of one project's payments (0 without any). */
    async paidOf(projectId: string): Promise<number> {
      return Number((await db.executeQuery(hot.paid(db, dialect, projectId))).rows[0]?.paid ?? 0);
    },
    /** The sum of each project's payments (paidSum); a project without any is missing from the map. */
    async paidFor(projectIds: readonly string[]): Promise<Map<string, number>> {
      const paid = new Map<string, number>();
      if (!projectIds.length) return paid;
      const rows = await db
        .selectFrom('payments')
        .select(['project_id', paidSum.as('paid')])
        .where(amongIds('payments.project_id', projectIds, dialect))
        .groupBy('project_id')
        .execute();
      for (const r of rows) paid.set(r.project_id, Number(r.paid));
      return paid;
    },
    /** The currency of the project's payments (they all share one: actions/payments.ts), or null when it has none. */
    async currencyOf(projectId: string): Promise<string | null> {
      const row = await db.selectFrom('payments').select('currency').where('project_id', '=', projectId).limit(1).executeTakeFirst();
      return row?.currency ?? null;
    },
  };
}
