import { type SqlBool, sql } from 'kysely';
import type { Delivery } from '../domain/reports.js';
import type { DB } from './index.js';
import { type Scope, visibleTo } from './visibility.js';

/*
 * The reports' reads (interface.md, Reports): a handful of aggregate queries whatever the number of
 * projects, none per project. Instants are compared with the ISO strings of the zone's day starts
 * (domain/reports.ts, DayTable), so the databases never need to know the zone. The activity
 * conditions are written with literals, the partial indexes' own (migration 029), word for word:
 * SQLite uses a partial index only for a query whose condition it can see implies the index's.
 */
export const DELIVERED_ENTRY = sql<SqlBool>`${sql.ref('activity_log.action')} = 'PROJECT_DELIVERED'`;
export const PI_VERIFIED_ENTRY = sql<SqlBool>`${sql.ref('activity_log.action')} = 'PI_VERIFIED'`;

/**
 * Verified PIs' balances as of the report's last day, summed by customer, currency and aging
 * bucket; in another currency than the shop's, by project (projectId set, else null).
 */
export interface BalanceRow {
  projectId: string | null;
  customerId: string | null;
  customerName: string | null;
  currency: string;
  balance: bigint;
  /** The group's oldest verification (an instant). */
  verifiedAt: string;
}

export function reportsRepo(db: DB) {
  return {
    /**
     * The projects delivered in [start, end) (instants): the latest deliver entry of each project
     * now DELIVERED (one undone by an admin's correction is not a delivery).
     */
    async deliveries(scope: Scope, start: string, end: string): Promise<Delivery[]> {
      const delivered = db
        .selectFrom('activity_log')
        .select(['activity_log.entity_id', sql<string>`max(activity_log.created_at)`.as('at')])
        .where(DELIVERED_ENTRY)
        .where('activity_log.created_at', '>=', start)
        .where('activity_log.created_at', '<', end)
        .groupBy('activity_log.entity_id')
        .as('d');
      const rows = await db
        .selectFrom(delivered)
        .innerJoin('projects', 'projects.id', 'd.entity_id')
        .select(['projects.created_at', 'projects.due_date', 'd.at'])
        .where('projects.status', '=', 'DELIVERED')
        .where(visibleTo(scope))
        .execute();
      return rows.map((r) => ({ createdAt: r.created_at, dueDate: r.due_date, deliveredAt: new Date(r.at).toISOString() }));
    },

    /**
     * Projects created in each period: `bounds` are the periods' starting instants then the last
     * one's end. One count of a range of the created_at index a period, in one statement (a CASE
     * over the bounds on every row cost PostgreSQL a sequential scan and SQLite a sort).
     */
    async createdIn(scope: Scope, bounds: readonly string[]): Promise<number[]> {
      if (bounds.length < 2) return [];
      const row = await db
        .selectNoFrom(
          bounds.slice(1).map((end, i) =>
            db
              .selectFrom('projects')
              .select((eb) => eb.fn.countAll<number>().as('n'))
              .where('projects.created_at', '>=', bounds[i]!)
              .where('projects.created_at', '<', end)
              .where(visibleTo(scope))
              .$asScalar()
              .as(`p${i}`),
          ),
        )
        .executeTakeFirstOrThrow();
      const counts = row as Record<string, number | string>;
      return bounds.slice(1).map((_, i) => Number(counts[`p${i}`]));
    },

    /** Payments received from `from` through `to` (dates) in the currency, summed by month ("YYYY-MM"). */
    async receivedByMonth(from: string, to: string, currency: string): Promise<Map<string, bigint>> {
      const rows = await db
        .selectFrom('payments')
        .select([sql<string>`substr(payments.received_on, 1, 7)`.as('month'), sql<string>`cast(sum(payments.amount) as text)`.as('amount')])
        .where('payments.received_on', '>=', from)
        .where('payments.received_on', '<=', to)
        .where('payments.currency', '=', currency)
        .groupBy(sql`substr(payments.received_on, 1, 7)`)
        .execute();
      return new Map(rows.map((r) => [r.month, BigInt(r.amount)]));
    },

    /** The projects with a payment received from `from` through `to` in a currency other than `currency`, by that currency. */
    async otherCurrencyPayments(from: string, to: string, currency: string): Promise<{ currency: string; projectId: string }[]> {
      const rows = await db
        .selectFrom('payments')
        .select(['payments.currency', 'payments.project_id'])
        .distinct()
        .where('payments.received_on', '>=', from)
        .where('payments.received_on', '<=', to)
        .where('payments.currency', '!=', currency)
        .execute();
      return rows.map((r) => ({ currency: r.currency, projectId: r.project_id }));
    },

    /**
     * Tax invoices dated from `from` through `to` in the currency whose document is not withdrawn
     * (voided), their totals summed by month (the invoice's date is a day in TIMEZONE already).
     */
    async invoicedByMonth(from: string, to: string, currency: string): Promise<Map<string, bigint>> {
      const rows = await db
        .selectFrom('invoices')
        .leftJoin('file_uploads', 'file_uploads.id', 'invoices.file_id')
        .select([sql<string>`substr(invoices.invoice_date, 1, 7)`.as('month'), sql<string>`cast(sum(invoices.total) as text)`.as('amount')])
        .where('invoices.invoice_date', '>=', from)
        .where('invoices.invoice_date', '<=', to)
        .where('invoices.currency', '=', currency)
        .where('file_uploads.voided_at', 'is', null)
        .groupBy(sql`substr(invoices.invoice_date, 1, 7)`)
        .execute();
      return new Map(rows.map((r) => [r.month, BigInt(r.amount)]));
    },

    /**
     * Every PI verified before `end` (an instant: the day after the report's last) on a project not
     * cancelled, still not paid in full by `to` (payments received on or before it), summed by
     * customer, currency and aging bucket (`agingStarts`: the instants the days 30, 60 and 90 days
     * before `to` begin; a PI verified at or after the first is 0-30 days old, and so on), with the
     * group's oldest verification. Grouped reads, no per-project subquery: the payments summed by
     * project and the verifications' latest by project (the partial index of migration 029, walked
     * in order), joined to the projects once. A PI in another currency than `currency` is its own
     * group (projectId set): those are counted apart, by project.
     */
    async openBalances(scope: Scope, to: string, end: string, currency: string, agingStarts: readonly [string, string, string]): Promise<BalanceRow[]> {
      const paid = db
        .selectFrom('payments')
        .select(['payments.project_id', sql<string>`sum(payments.amount)`.as('paid')])
        .where('payments.received_on', '<=', to)
        .groupBy('payments.project_id')
        .as('paid');
      const verified = db
        .selectFrom('activity_log')
        .select(['activity_log.entity_id', sql<string>`max(activity_log.created_at)`.as('at')])
        .where(PI_VERIFIED_ENTRY)
        .where('activity_log.created_at', '<', end)
        .groupBy('activity_log.entity_id')
        .as('v');
      const open = db
        .selectFrom('projects')
        .innerJoin(verified, 'v.entity_id', 'projects.id')
        .leftJoin(paid, 'paid.project_id', 'projects.id')
        .select([
          'projects.id as project_id',
          'projects.customer_id',
          'projects.pi_currency as currency',
          sql<string>`projects.pi_amount - coalesce(paid.paid, 0)`.as('balance'),
          'v.at',
        ])
        .where('projects.pi_status', '=', 'VERIFIED')
        .where('projects.status', '!=', 'CANCELLED')
        .where('projects.pi_amount', 'is not', null)
        .where(visibleTo(scope))
        .as('o');
      const [t30, t60, t90] = agingStarts;
      const bucket = sql<number>`case when o.at >= ${t30} then 0 when o.at >= ${t60} then 1 when o.at >= ${t90} then 2 else 3 end`;
      const apart = sql<string | null>`case when o.currency = ${currency} then null else o.project_id end`;
      // Grouped first, then the customers' names joined to the groups (a few thousand rows, not one a PI).
      const groups = db
        .selectFrom(open)
        .select([
          'o.customer_id',
          'o.currency',
          apart.as('project_id'),
          bucket.as('bucket'),
          sql<string>`sum(o.balance)`.as('balance'),
          sql<string>`min(o.at)`.as('verified_at'),
        ])
        .where(sql<SqlBool>`o.balance > 0`)
        // By position: an expression with parameters repeated is another expression to PostgreSQL.
        .groupBy([sql`1`, sql`2`, sql`3`, sql`4`])
        .as('g');
      const rows = await db
        .selectFrom(groups)
        .leftJoin('customers', 'customers.id', 'g.customer_id')
        .select(['g.customer_id', 'customers.name as customer_name', 'g.currency', 'g.project_id', sql<string>`cast(g.balance as text)`.as('balance'), 'g.verified_at'])
        .execute();
      return rows.map((r) => ({
        projectId: r.project_id,
        customerId: r.customer_id,
        customerName: r.customer_name,
        currency: r.currency!,
        balance: BigInt(r.balance),
        verifiedAt: new Date(r.verified_at).toISOString(),
      }));
    },
  };
}
