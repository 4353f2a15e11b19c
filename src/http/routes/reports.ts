import { Readable } from 'node:stream';
import { Type } from '@fastify/type-provider-typebox';
import { REPORT_CSVS, REPORT_CSV_COLUMNS, type ReportCsv, reportCsvFilename, reportCsvLines, shopReport } from '../../actions/reports.js';
import { AGING_BUCKETS } from '../../domain/reports.js';
import { actorOf } from '../session.js';
import { NullableString, QueryOf, errorRef } from '../schemas.js';
import type { App, RouteContext } from './context.js';

/** Whole minor units; a sum past 2^53 is answered as its digits, never rounded. */
const Amount = Type.Union([Type.Integer(), Type.String({ pattern: '^[0-9]+$' })], { description: "whole minor units of the CURRENCY setting's currency" });
const NullableNumber = (description: string) => Type.Union([Type.Number(), Type.Null()], { description });

const Range = {
  from: Type.Optional(Type.String({ format: 'date', description: "first day, YYYY-MM-DD in TIMEZONE; default the first day of the month 11 months ago" })),
  to: Type.Optional(Type.String({ format: 'date', description: 'last day, YYYY-MM-DD in TIMEZONE; default today. At most 5 years after from, not before it' })),
};

const Report = Type.Object({
  from: Type.String({ format: 'date' }),
  to: Type.String({ format: 'date' }),
  currency: Type.String({ description: 'the CURRENCY setting: the only currency summed' }),
  onTime: Type.Object({
    delivered: Type.Integer({ description: 'projects delivered in the range (the day of their deliver action)' }),
    withDueDate: Type.Integer(),
    onTime: Type.Integer({ description: 'delivered on or before their due date' }),
    rate: NullableNumber('onTime / withDueDate rounded to 4 decimals; null when withDueDate is 0'),
  }),
  turnaround: Type.Object({
    medianDays: NullableNumber('calendar days from creation to delivery, nearest-rank median'),
    p90Days: NullableNumber('nearest-rank 90th percentile'),
  }),
  byMonth: Type.Array(
    Type.Object({ month: Type.String({ description: 'YYYY-MM' }), created: Type.Integer(), delivered: Type.Integer(), invoiced: Amount, received: Amount }),
  ),
  outstanding: Type.Array(
    Type.Object({
      customerId: NullableString(),
      customerName: NullableString(),
      balance: Amount,
      oldestDays: Type.Integer({ description: "days from the oldest unpaid verified PI's verification to `to`" }),
    }),
    { description: 'customers with a positive balance as of `to`, largest first; projects without a customer together (null)' },
  ),
  aging: Type.Object(Object.fromEntries(AGING_BUCKETS.map((b) => [b, Amount])), { description: "balances by days since their PI's verification" }),
  otherCurrencies: Type.Record(Type.String(), Type.Integer(), { description: 'projects whose amounts are in another currency, left out of the sums, by currency' }),
});

/** The shop's reports (interface.md, Reports): ADMINs only. */
export async function reportRoutes(app: App, { deps, hooks }: RouteContext) {
  app.get(
    '/api/reports',
    {
      onRequest: hooks.requireSession,
      schema: {
        tags: ['reports'],
        operationId: 'getReports',
        summary: 'On-time delivery, turnaround, orders and money by month, outstanding by customer and aging (ADMIN)',
        description: "Dates in TIMEZONE; amounts in whole minor units of the CURRENCY setting's currency, other currencies counted apart. Figures are as of `to`.",
        querystring: QueryOf(Range),
        response: { 200: Report, 400: errorRef, 401: errorRef, 403: errorRef },
      },
    },
    async (req) => shopReport(deps, actorOf(req), req.query),
  );

  app.get(
    '/api/reports.csv',
    {
      onRequest: hooks.requireSession,
      schema: {
        tags: ['reports'],
        operationId: 'getReportCsv',
        summary: 'One report as CSV for a spreadsheet (ADMIN)',
        description:
          `The export's CSV rules (UTF-8 with a byte-order mark, RFC 4180, formula prefixes); amounts in major units. ` +
          `byMonth: ${REPORT_CSV_COLUMNS.byMonth.join(', ')}; outstanding: ${REPORT_CSV_COLUMNS.outstanding.join(', ')}.`,
        querystring: QueryOf({ report: Type.Unsafe<ReportCsv>({ type: 'string', enum: [...REPORT_CSVS] }), ...Range }),
        produces: ['text/csv'],
        response: { 200: Type.Unsafe<string>({ description: 'the CSV (text/csv; charset=utf-8)', type: 'string' }), 400: errorRef, 401: errorRef, 403: errorRef },
      },
    },
    async (req, reply) => {
      const { report, ...range } = req.query;
      const figures = await shopReport(deps, actorOf(req), range);
      reply.header('content-type', 'text/csv; charset=utf-8');
      reply.header('content-disposition', `attachment; filename="${reportCsvFilename(report, figures)}"`);
      reply.header('cache-control', 'no-store');
      reply.header('x-content-type-options', 'nosniff');
      return reply.send(Readable.from(reportCsvLines(figures, report)));
    },
  );
}
