import { createHash } from 'node:crypto';
import type { Deps } from '../deps.js';
import { nowIso, todayOf } from '../deps.js';
import type { Store } from '../db/store.js';
import type { InvoiceFilter, InvoiceRow } from '../db/invoices.js';
import type { Customer } from '../domain/customer.js';
import { isCalendarDate } from '../domain/due.js';
import { type Totals, isIntraState } from '../domain/gst.js';
import { amountInWords, financialYear, formatAmountIndian, invoiceNumber, placeOfSupply } from '../domain/indian.js';
import type { Actor, FileUpload, ProjectWithNames } from '../domain/model.js';
import { type Invoice, type ShopSettings, type ShopSettingsInput, parseShopSettings } from '../domain/shop.js';
import { maySeeProject } from '../domain/visibility.js';
import { AppError, errors } from '../errors.js';
import { newId } from '../ids.js';
import type { MoneyDocData } from '../pdf/layouts/money.js';
import { projectTotalsOf } from '../presenters/index.js';
import { notifyProjectChanged } from '../realtime/index.js';
import { discardPlacedDocument, placeDocument } from '../uploads/place.js';
import { recordDocument } from '../uploads/record.js';

/*
 * Money documents (interface.md, "Money documents"): the shop's settings, the PI as a PDF, the tax
 * invoice (numbered without gaps or repeats, stored through the upload's own steps 8–11) and the
 * register. The figures are domain/gst.ts's; the words and formats domain/indian.ts's; the PDF is
 * drawn by src/pdf's threads (layout "money").
 */

export async function getShopSettings(deps: Pick<Deps, 'store'>): Promise<ShopSettings> {
  return deps.store.shopSettings.get();
}

/** PATCH /api/settings/shop: ADMIN only; every field checked before anything is written. */
export async function updateShopSettings(deps: Pick<Deps, 'store'>, actor: Actor, input: ShopSettingsInput): Promise<ShopSettings> {
  if (actor.role !== 'ADMIN') throw errors.forbidden();
  const fields = parseShopSettings(input);
  if (fields instanceof AppError) throw fields;
  await deps.store.shopSettings.update(fields, nowIso());
  return deps.store.shopSettings.get();
}

/** The name documents carry: the shop's, else PUBLIC_URL's host. */
export const shopName = (settings: ShopSettings, publicUrl: string) => settings.name ?? new URL(publicUrl).host;

const money = (amount: number, currency: string) => formatAmountIndian(amount, currency);

/** What the PI and the invoice print, as text (the layout only places it). */
function moneyDocument(
  kind: 'pi' | 'invoice',
  deps: Pick<Deps, 'config'>,
  project: ProjectWithNames,
  customer: Customer | null,
  settings: ShopSettings,
  totals: Totals,
  meta: [string, string][],
): MoneyDocData {
  const currency = totals.currency;
  const intra = isIntraState(project.shopStateCode ?? null, project.customerStateCode ?? null);
  const place = placeOfSupply(project.customerStateCode ?? null);
  const byId = new Map(totals.lines.map((l) => [l.id, l]));
  const shopLines = [settings.address, settings.gstin && `GSTIN: ${settings.gstin}`, settings.phone && `Phone: ${settings.phone}`, settings.email && `Email: ${settings.email}`].filter((l): l is string => Boolean(l));
  const customerLines = [customer?.billingAddress, customer?.gstin ? `GSTIN: ${customer.gstin}` : 'GSTIN: unregistered', place && `Place of supply: ${place}`].filter((l): l is string => Boolean(l));
  const taxRows: [string, string][] = intra
    ? [
        ['CGST', money(totals.cgst, currency)],
        ['SGST', money(totals.sgst, currency)],
      ]
    : [['IGST', money(totals.igst, currency)]];
  return {
    title: kind === 'pi' ? 'PROFORMA INVOICE' : 'TAX INVOICE',
    shop: { name: shopName(settings, deps.config.publicUrl), lines: shopLines },
    meta: [...meta, ['Project', project.name], ...(project.reference ? [['Reference', project.reference] as [string, string]] : []), ['Place of supply', place ?? 'not recorded'], ['Currency', currency]],
    customer: { name: customer?.name ?? project.customerName ?? 'No customer recorded', lines: customerLines },
    intra,
    lines: project.items.map((l) => {
      const t = byId.get(l.id)!;
      return {
        description: l.description,
        hsnSac: l.hsnSac ?? '',
        quantity: `${l.quantity} ${l.unit}`,
        rate: `${money(l.unitPrice ?? 0, currency)}\n${l.gstRate ?? 0}% GST`,
        taxable: money(t.taxable, currency),
        cgst: money(t.cgst, currency),
        sgst: money(t.sgst, currency),
        igst: money(t.igst, currency),
      };
    }),
    totals: [['Taxable value', money(totals.taxable, currency)], ...taxRows, [`Total (${currency})`, money(totals.total, currency)]],
    words: amountInWords(totals.total, currency),
    bankDetails: settings.bankDetails,
    footer: kind === 'pi' ? 'This is a proforma invoice, not a tax invoice.' : 'This is a computer-generated tax invoice.',
  };
}

/** GET /api/projects/:id/pi.pdf: for whoever may see the project (anyone else 404); 409 without totals. */
export async function piPdf(deps: Pick<Deps, 'store' | 'config' | 'pdf' | 'clock'>, actor: Actor, projectId: string): Promise<{ pdf: Buffer; filename: string }> {
  const project = await deps.store.projects.findWithNames(projectId);
  if (!project || !maySeeProject(actor, project)) throw errors.projectNotFound();
  const totals = projectTotalsOf(project, deps.config.currency);
  if (!totals) throw errors.linesNeedPrices();
  const [settings, customer] = await Promise.all([deps.store.shopSettings.get(), project.customerId ? deps.store.customers.findById(project.customerId) : undefined]);
  const meta: [string, string][] = [['PI No.', project.pi?.number ?? 'not yet numbered'], ['Date', todayOf(deps)]];
  const pdf = await deps.pdf.render('money', moneyDocument('pi', deps, project, customer ?? null, settings, totals, meta), actor.id);
  return { pdf, filename: `pi-${projectId}.pdf` };
}

/** Issuing takes turns within the instance (PostgreSQL's row lock orders instances): a waiting request does not hold a connection. */
let issuing: Promise<unknown> = Promise.resolve();
function inTurn<T>(fn: () => Promise<T>): Promise<T> {
  const run = issuing.then(fn, fn);
  issuing = run.catch(() => {});
  return run;
}

/** A number another issuer took between the read and the commit (SQLite shared by two processes): the issue is tried again. */
class NumberTaken extends Error {}

export interface IssuedInvoice {
  invoice: Invoice;
  file: FileUpload;
}

/**
 * POST /api/projects/:id/invoice: the refusals in the interface's order, then the number, the PDF,
 * and the INVOICE document through the upload's steps (place.ts, record.ts: activity, emails,
 * webhooks, then the two notifications). The counter of the invoice's financial year moves in the
 * same commit as the document's record and the invoice's row: a failure anywhere leaves no gap.
 */
export async function issueInvoice(deps: Deps, actor: Actor, projectId: string, input: { invoiceDate?: unknown }): Promise<IssuedInvoice> {
  if (actor.role !== 'ADMIN') throw errors.forbidden();
  return inTurn(async () => {
    for (let attempt = 1; ; attempt++) {
      try {
        const issued = await issueOnce(deps, actor, projectId, input);
        const project = issued.project;
        await notifyProjectChanged(deps.realtime, project.id, project.pocId, project.customerId);
        return { invoice: issued.invoice, file: issued.file };
      } catch (err) {
        if (!(err instanceof NumberTaken) || attempt >= 5) throw err;
      }
    }
  });
}

async function issueOnce(deps: Deps, actor: Actor, projectId: string, input: { invoiceDate?: unknown }): Promise<IssuedInvoice & { project: ProjectWithNames }> {
  const project = await deps.store.projects.findWithNames(projectId);
  if (!project) throw errors.projectNotFound();
  if (project.status !== 'DISPATCHED' && project.status !== 'DELIVERED') throw errors.invoiceBeforeDispatch();
  const today = todayOf(deps);
  const date = input.invoiceDate ?? today;
  if (!isCalendarDate(date)) throw errors.invalidField('invoiceDate', 'must be a real date written YYYY-MM-DD');
  if (date > today) throw errors.invalidField('invoiceDate', 'must not be in the future');
  if (!project.customerId) throw errors.projectHasNoCustomer();
  const totals = projectTotalsOf(project, deps.config.currency);
  if (!totals) throw errors.linesNeedPrices();
  const settings = await deps.store.shopSettings.get();
  if (!settings.gstin) throw errors.shopGstinNotSet();
  const standing = await deps.store.invoices.latestOf(projectId);
  if (standing && !standing.voidedAt) throw errors.invoiceExists(standing.number);
  const customer = (await deps.store.customers.findById(project.customerId)) ?? null;
  const fy = financialYear(date);

  const issue = async (store: Store): Promise<IssuedInvoice & { project: ProjectWithNames }> => {
    const last = await store.invoices.lastSequence(fy);
    const number = invoiceNumber(settings.invoicePrefix, fy, last + 1);
    const meta: [string, string][] = [['Invoice No.', number], ['Invoice date', date]];
    const pdf = await deps.pdf.render('money', moneyDocument('invoice', deps, project, customer, settings, totals, meta), actor.id);
    const filename = `${number.replace(/\//g, '-')}.pdf`;
    const file = { filename, contentType: 'application/pdf' };
    const placed = await placeDocument({ store, storage: deps.storage }, projectId, 'INVOICE', file, { bytes: [pdf], detectedType: 'application/pdf' });
    const invoice: Invoice = {
      id: newId(),
      number,
      financialYear: fy,
      sequence: last + 1,
      date,
      projectId,
      customerId: project.customerId,
      customerName: customer?.name ?? project.customerName ?? '',
      customerGstin: customer?.gstin ?? null,
      stateCode: project.customerStateCode ?? null,
      taxable: totals.taxable,
      cgst: totals.cgst,
      sgst: totals.sgst,
      igst: totals.igst,
      total: totals.total,
      currency: totals.currency,
      fileId: '',
      issuedById: actor.id,
      createdAt: nowIso(),
    };
    try {
      const record = await recordDocument(
        { ...deps, store },
        actor,
        project,
        'INVOICE',
        placed,
        { ...file, size: pdf.length, sha256: createHash('sha256').update(pdf).digest('hex'), detectedType: 'application/pdf' },
        {
          createdAt: invoice.createdAt,
          within: async (s, rec) => {
            if (!(await s.invoices.take(fy, last))) throw new NumberTaken();
            await s.invoices.insert({ ...invoice, fileId: rec.id });
          },
        },
      );
      return { invoice: { ...invoice, fileId: record.id }, file: record, project };
    } catch (err) {
      await discardPlacedDocument({ store: deps.store, storage: deps.storage }, placed).catch((e: unknown) => deps.log.error({ err: e }, 'could not discard an invoice not issued'));
      throw err;
    }
  };
  // PostgreSQL: one transaction from the counter's lock to the commit, so instances take turns.
  // SQLite (one writer, one instance): the counter's guard in the recording commit is enough, and
  // no transaction is held open while the PDF is drawn.
  return deps.database.dialect === 'postgres' ? deps.store.transaction(issue) : issue(deps.store);
}

/** GET /api/invoices (ADMIN only). */
export async function listInvoices(deps: Pick<Deps, 'store'>, actor: Actor, filter: InvoiceFilter): Promise<{ items: InvoiceRow[]; nextCursor: { fy: string; sequence: number } | null }> {
  if (actor.role !== 'ADMIN') throw errors.forbidden();
  return deps.store.invoices.list(filter);
}
