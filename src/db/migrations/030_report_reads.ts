import type { Kysely } from 'kysely';

/**
 * The reports' grouped reads (issue 38, db/reports.ts openBalances): the payments summed by
 * project as of a day read one index in project order, amounts included (payments_project_received_on
 * lacks the amount, so each payment cost a read of its row: on SQLite two thirds of the read).
 */
export function reportReads() {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema.createIndex('payments_project_paid').on('payments').columns(['project_id', 'received_on', 'amount']).execute();
    },
  };
}
