import { Type } from '@fastify/type-provider-typebox';
import type { FastifyReply } from 'fastify';

/** A made PDF's 200 answer, as documented. */
export const PdfBody = Type.Unsafe<Buffer>({ description: 'application/pdf', type: 'string', format: 'binary' });

/** Sends a PDF the service made (the PI, the job ticket) to be shown in the browser; private, checked again each time. */
export function sendPdf(reply: FastifyReply, { pdf, filename }: { pdf: Buffer; filename: string }) {
  reply.header('content-type', 'application/pdf');
  reply.header('content-disposition', `inline; filename="${filename}"`);
  reply.header('cache-control', 'private, no-cache');
  return reply.send(pdf);
}
