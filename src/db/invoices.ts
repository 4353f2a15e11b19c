import { sql } from 'kysely';
import type { ProjectInvoice } from '../domain/model.js';
import type { Invoice } from '../domain/shop.js';
import type { DB, Dialect } from './index.js';
import { amongIds } from './id-lists.js';

export interface InvoiceRow extends Invoice {
  voidedAt: string | null;
  /** The project's job number (migration 025). */
  projectNumber: number | null;
}

export interface InvoiceFilter {
  from?: string;
  to?: string;
  cursor?: { fy: string; sequence: number };
  limit: number;
}

/**
 * Tax invoices and their numbering (migration 026). The counter of a financial year is read for
 * update (PostgreSQL locks its row until the issuing transaction ends: the next issuer, on any
 * instance, waits and then reads the number this one took) and moved on only by `take`, which
 * refuses to move it from any other value than the one read (SQLite's guard).
 */
export function invoicesRepo(db: DB, dialect: Dialect) {
  return {
    /** The last sequence issued in this financial year (0: none yet); on PostgreSQL its row stays locked until the transaction ends. */
    async lastSequence(fy: string): Promise<number> {
      await db.insertInto('invoice_counters').values({ financial_year: fy, last_sequence: 0 }).onConflict((oc) => oc.column('financial_year').doNothing()).execute();
      const row = await db
        .selectFrom('invoice_counters')
        .select('last_sequence')
        .where('financial_year', '=', fy)
        .$if(dialect === 'postgres', (q) => q.forUpdate())
        .executeTakeFirstOrThrow();
      return Number(row.last_sequence);
    },
    /** Moves the year's counter from `last` to `last + 1`; false when it was not at `last` (another issuer took that number). */
    async take(fy: string, last: number): Promise<boolean> {
      const res = await db.updateTable('invoice_counters').set({ last_sequence: last + 1 }).where('financial_year', '=', fy).where('last_sequence', '=', last).executeTakeFirst();
      return Number(res.numUpdatedRows) === 1;
    },
    async insert(i: Invoice): Promise<void> {
      await db
        .insertInto('invoices')
        .values({
          id: i.id,
          number: i.number,
          financial_year: i.financialYear,
          sequence: i.sequence,
          invoice_date: i.date,
          project_id: i.projectId,
          customer_id: i.customerId,
          customer_name: i.customerName,
          customer_gstin: i.customerGstin,
          state_code: i.stateCode,
          taxable: i.taxable,
          cgst: i.cgst,
          sgst: i.sgst,
          igst: i.igst,
          total: i.total,
          currency: i.currency,
          file_id: i.fileId,
          issued_by_id: i.issuedById,
          created_at: i.createdAt,
        })
        .execute();
    },
    /** The project's latest invoice, with whether its document was withdrawn. */
    async latestOf(projectId: string): Promise<InvoiceRow | undefined> {
      const row = await base(db).where('invoices.project_id', '=', projectId).orderBy('invoices.created_at', 'desc').orderBy('invoices.sequence', 'desc').executeTakeFirst();
      return row && toInvoice(row);
    },
    /**
     * The latest invoice of each of these projects (a project's `invoice`: the last issued, by when
     * and then by sequence), with whether its document was withdrawn; a project without one is
     * missing from the map. One statement for a page (the projects' ids in chunks of 500), where the
     * project list used to read it with five correlated subqueries per project row.
     */
    async latestFor(projectIds: readonly string[]): Promise<Map<string, ProjectInvoice>> {
      const found = new Map<string, ProjectInvoice>();
      // SQLite's list in chunks (its limit on parameters); PostgreSQL's one array at once.
      const chunk = dialect === 'postgres' ? Math.max(1, projectIds.length) : 500;
      for (let i = 0; i < projectIds.length; i += chunk) {
        const rows = await db
          .selectFrom('invoices')
          .leftJoin('file_uploads', 'file_uploads.id', 'invoices.file_id')
          .select(['invoices.project_id', 'invoices.number', 'invoices.invoice_date', 'invoices.total', 'invoices.file_id', sql<string | null>`file_uploads.voided_at`.as('voided_at')])
          .where(amongIds('invoices.project_id', projectIds.slice(i, i + chunk), dialect))
          // Each project's latest first (the index invoices_project_created); the first row seen of a project is its invoice.
          .orderBy('invoices.project_id')
          .orderBy('invoices.created_at', 'desc')
          .orderBy('invoices.sequence', 'desc')
          .execute();
        for (const r of rows) {
          if (found.has(r.project_id)) continue;
          found.set(r.project_id, { number: r.number, date: r.invoice_date, total: Number(r.total), fileId: r.file_id, voided: r.voided_at !== null });
        }
      }
      return found;
    },
    /** The register: by financial year, newest first, then by sequence; `from`/`to` on the invoice date. */
    async list(f: InvoiceFilter): Promise<{ items: InvoiceRow[]; nextCursor: { fy: string; sequence: number } | null }> {
      const rows = await base(db)
        .$if(f.from !== undefined, (q) => q.where('invoices.invoice_date', '>=', f.from!))
        .$if(f.to !== undefined, (q) => q.where('invoices.invoice_date', '<=', f.to!))
        .$if(f.cursor !== undefined, (q) =>
          q.where((eb) => eb.or([eb('invoices.financial_year', '<', f.cursor!.fy), eb.and([eb('invoices.financial_year', '=', f.cursor!.fy), eb('invoices.sequence', '>', f.cursor!.sequence)])])),
        )
        .orderBy('invoices.financial_year', 'desc')
        .orderBy('invoices.sequence', 'asc')
        .limit(f.limit + 1)
        .execute();
      const items = rows.slice(0, f.limit).map(toInvoice);
      const last = items[items.length - 1];
      return { items, nextCursor: rows.length > f.limit && last ? { fy: last.financialYear, sequence: last.sequence } : null };
    },
  };
}

const base = (db: DB) =>
  db
    .selectFrom('invoices')
    .leftJoin('file_uploads', 'file_uploads.id', 'invoices.file_id')
    .leftJoin('projects', 'projects.id', 'invoices.project_id')
    .select(sql<number | string | null>`projects.number`.as('project_number'))
    .selectAll('invoices')
    .select(sql<string | null>`file_uploads.voided_at`.as('voided_at'));

type Row = Awaited<ReturnType<ReturnType<typeof base>['execute']>>[number];

const toInvoice = (r: Row): InvoiceRow => ({
  id: r.id,
  number: r.number,
  financialYear: r.financial_year,
  sequence: Number(r.sequence),
  date: r.invoice_date,
  projectId: r.project_id,
  customerId: r.customer_id,
  customerName: r.customer_name,
  customerGstin: r.customer_gstin,
  stateCode: r.state_code,
  taxable: Number(r.taxable),
  cgst: Number(r.cgst),
  sgst: Number(r.sgst),
  igst: Number(r.igst),
  total: Number(r.total),
  currency: r.currency,
  fileId: r.file_id,
  issuedById: r.issued_by_id,
  createdAt: r.created_at,
  projectNumber: r.project_number === null || r.project_number === undefined ? null : Number(r.project_number),
  voidedAt: r.voided_at === null ? null : typeof r.voided_at === 'string' ? r.voided_at : new Date(r.voided_at as unknown as string).toISOString(),
});
