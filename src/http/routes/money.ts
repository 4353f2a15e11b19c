import { Readable } from 'node:stream';
import { Type } from '@fastify/type-provider-typebox';
import { getShopSettings, issueInvoice, listInvoices, piPdf, updateShopSettings } from '../../actions/money-documents.js';
import type { InvoiceFilter } from '../../db/invoices.js';
import { csvHeader, csvLine } from '../../domain/csv.js';
import { isCalendarDate } from '../../domain/due.js';
import { AppError, errors } from '../../errors.js';
import { presentFiles } from '../../presenters/index.js';
import { INVOICE_CSV_COLUMNS, invoiceCsvValues, presentInvoice, presentShopSettings } from '../../presenters/money.js';
import { PdfBody, sendPdf } from '../pdf-reply.js';
import { actorOf } from '../session.js';
import { FileUpload, IdParams, NoQuery, NullableString, QueryOf, errorRef } from '../schemas.js';
import { type App, type RouteContext, documentAccessOf, documentationOnly, withRequestLog } from './context.js';

const ShopSettings = Type.Object({
  name: NullableString({ description: "printed on the shop's documents; until set, PUBLIC_URL's host" }),
  address: NullableString(),
  gstin: NullableString({ description: "the shop's GSTIN; its first two digits are the shop's state" }),
  phone: NullableString(),
  email: NullableString(),
  bankDetails: NullableString({ description: 'free text, printed on the PI and the invoice' }),
  invoicePrefix: Type.String({ description: "1–10 letters, digits or '-'; default INV" }),
  updatedAt: NullableString({ format: 'date-time' }),
});

const ShopSettingsChange = Type.Object(
  {
    name: Type.Optional(NullableString({ description: 'at most 200 characters' })),
    address: Type.Optional(NullableString({ description: 'at most 1000 characters' })),
    gstin: Type.Optional(NullableString({ description: 'checked as for customers; null or blank clears' })),
    phone: Type.Optional(NullableString({ description: 'at most 50 characters' })),
    email: Type.Optional(NullableString({ description: 'a whole address' })),
    bankDetails: Type.Optional(NullableString({ description: 'at most 1000 characters' })),
    invoicePrefix: Type.Optional(Type.String({ description: "1–10 letters, digits or '-'" })),
  },
  { additionalProperties: false },
);

const InvoiceLine = Type.Object({
  number: Type.String(),
  date: Type.String({ format: 'date' }),
  projectId: Type.String(),
  projectNumber: Type.Union([Type.Integer(), Type.Null()], { description: "the project's job number (#1042)" }),
  customerId: NullableString(),
  customerName: Type.String(),
  customerGstin: NullableString(),
  placeOfSupply: NullableString({ description: 'as printed: Karnataka (29); null when the customer has no state' }),
  taxable: Type.Integer(),
  cgst: Type.Integer(),
  sgst: Type.Integer(),
  igst: Type.Integer(),
  total: Type.Integer(),
  currency: Type.String(),
  fileId: Type.String(),
  voidedAt: NullableString({ format: 'date-time', description: 'when its document was withdrawn' }),
});

const RegisterQuery = QueryOf({
  from: Type.Optional(Type.String({ description: 'invoice date from, YYYY-MM-DD (inclusive)' })),
  to: Type.Optional(Type.String({ description: 'invoice date to, YYYY-MM-DD (inclusive)' })),
  cursor: Type.Optional(Type.String({ description: 'nextCursor of the previous page' })),
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 500, default: 100 })),
});

const encodeCursor = (c: { fy: string; sequence: number }) => Buffer.from(JSON.stringify([c.fy, c.sequence])).toString('base64url');
function decodeCursor(text: string | undefined): InvoiceFilter['cursor'] {
  if (text === undefined) return undefined;
  try {
    const [fy, sequence] = JSON.parse(Buffer.from(text, 'base64url').toString('utf8')) as unknown[];
    if (typeof fy === 'string' && /^\d{4}-\d{2}$/.test(fy) && Number.isSafeInteger(sequence) && (sequence as number) >= 0) return { fy, sequence: sequence as number };
  } catch {
    // refused below
  }
  throw errors.invalidCursor();
}

function filterOf(q: { from?: string; to?: string; cursor?: string; limit?: number }): InvoiceFilter {
  for (const name of ['from', 'to'] as const) {
    if (q[name] !== undefined && !isCalendarDate(q[name])) throw errors.invalidField(name, 'must be a real date written YYYY-MM-DD');
  }
  return { from: q.from, to: q.to, cursor: decodeCursor(q.cursor), limit: q.limit ?? 100 };
}

/** Money documents (interface.md, "Money documents"): shop settings, the PI's PDF, the tax invoice, the register. */
export async function moneyRoutes(app: App, { deps, hooks }: RouteContext) {
  app.get(
    '/api/settings/shop',
    {
      onRequest: hooks.requireSession,
      schema: {
        tags: ['money'],
        operationId: 'getShopSettings',
        summary: "The shop's settings (printed on its documents): everyone signed in",
        querystring: NoQuery,
        response: { 200: ShopSettings, 400: errorRef, 401: errorRef },
      },
    },
    async () => presentShopSettings(await getShopSettings(deps)),
  );

  app.patch(
    '/api/settings/shop',
    {
      onRequest: hooks.requireSession,
      schema: {
        tags: ['money'],
        operationId: 'updateShopSettings',
        summary: "Change the shop's settings (ADMIN)",
        body: ShopSettingsChange,
        response: { 200: ShopSettings, 400: errorRef, 401: errorRef, 403: errorRef },
      },
    },
    async (req) => presentShopSettings(await updateShopSettings(deps, actorOf(req), req.body)),
  );

  app.get(
    '/api/projects/:id/pi.pdf',
    {
      onRequest: hooks.requireSession,
      schema: {
        tags: ['money'],
        operationId: 'getProformaInvoicePdf',
        summary: 'The proforma invoice as a PDF, made from the priced lines (whoever may see the project)',
        params: IdParams,
        querystring: NoQuery,
        produces: ['application/pdf'],
        response: { 200: PdfBody, 400: errorRef, 401: errorRef, 404: errorRef, 409: errorRef },
      },
    },
    async (req, reply) => sendPdf(reply, await piPdf(deps, actorOf(req), req.params.id)),
  );

  app.post(
    '/api/projects/:id/invoice',
    {
      onRequest: hooks.requireSession,
      // The body is optional (no body: today's date), which a schema cannot say: checked in the handler, after the role (the first refusal).
      validatorCompiler: documentationOnly,
      schema: {
        tags: ['money'],
        operationId: 'issueTaxInvoice',
        summary: "Issue the project's tax invoice (ADMIN, after dispatch): numbered <prefix>/<financial year>/<sequence>, stored as its INVOICE document",
        params: IdParams,
        body: Type.Object({ invoiceDate: Type.Optional(Type.String({ format: 'date', description: 'YYYY-MM-DD, not in the future; default today in TIMEZONE; the body may be left out' })) }, { additionalProperties: false }),
        response: {
          201: Type.Object({ number: Type.String(), date: Type.String({ format: 'date' }), total: Type.Integer(), file: FileUpload }),
          400: errorRef,
          401: errorRef,
          403: errorRef,
          404: errorRef,
          409: errorRef,
        },
      },
    },
    async (req, reply) => {
      const actor = actorOf(req);
      if (actor.role !== 'ADMIN') throw errors.forbidden();
      const body: unknown = req.body ?? {};
      if (typeof body !== 'object' || body === null || Array.isArray(body)) throw new AppError(400, 'The request body must be an object');
      const unknown = Object.keys(body).find((k) => k !== 'invoiceDate');
      if (unknown !== undefined) throw errors.invalidField(unknown, 'is not a known field');
      const { invoice, file } = await issueInvoice(withRequestLog(deps, req), actor, req.params.id, body);
      const [presented] = presentFiles([{ ...file, uploadedByName: actor.name, voidedByName: null }], documentAccessOf(deps));
      // presentFiles types duplicateOf.type as text; the schema's enum holds for every stored document.
      return reply.code(201).send({ number: invoice.number, date: invoice.date, total: invoice.total, file: presented as never });
    },
  );

  app.get(
    '/api/invoices',
    {
      onRequest: hooks.requireSession,
      schema: {
        tags: ['money'],
        operationId: 'listInvoices',
        summary: 'The invoice register (ADMIN): by financial year, newest first, then by sequence',
        querystring: RegisterQuery,
        response: { 200: Type.Object({ items: Type.Array(InvoiceLine), nextCursor: NullableString() }), 400: errorRef, 401: errorRef, 403: errorRef },
      },
    },
    async (req) => {
      const page = await listInvoices(deps, actorOf(req), filterOf(req.query));
      return { items: page.items.map((i) => presentInvoice(i)), nextCursor: page.nextCursor && encodeCursor(page.nextCursor) };
    },
  );

  app.get(
    '/api/invoices.csv',
    {
      onRequest: hooks.requireSession,
      schema: {
        tags: ['money'],
        operationId: 'exportInvoicesCsv',
        summary: 'The invoice register as CSV (ADMIN), with the filters and order of GET /api/invoices',
        description: `UTF-8 with a byte-order mark, RFC 4180. Columns: ${INVOICE_CSV_COLUMNS.join(', ')}; amounts in major units.`,
        querystring: QueryOf({ from: RegisterQuery.properties.from, to: RegisterQuery.properties.to }),
        produces: ['text/csv'],
        response: { 200: Type.Unsafe<string>({ description: 'the CSV (text/csv; charset=utf-8)', type: 'string' }), 400: errorRef, 401: errorRef, 403: errorRef },
      },
    },
    async (req, reply) => {
      const actor = actorOf(req);
      const filter = filterOf(req.query);
      // Refused before the answer starts: a 403 is JSON, not a broken CSV.
      const first = await listInvoices(deps, actor, { ...filter, limit: 500 });
      async function* lines() {
        yield csvHeader(INVOICE_CSV_COLUMNS);
        let page = first;
        for (;;) {
          yield page.items.map((i) => csvLine(invoiceCsvValues(i))).join('');
          if (!page.nextCursor) return;
          page = await listInvoices(deps, actor, { ...filter, cursor: page.nextCursor, limit: 500 });
        }
      }
      reply.header('content-type', 'text/csv; charset=utf-8');
      reply.header('content-disposition', 'attachment; filename="invoices.csv"');
      reply.header('cache-control', 'no-store');
      reply.header('x-content-type-options', 'nosniff');
      return reply.send(Readable.from(lines(), { highWaterMark: 1 }));
    },
  );
}
