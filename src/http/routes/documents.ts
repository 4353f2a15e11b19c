import { Type } from '@fastify/type-provider-typebox';
import { documentPreview } from '../../actions/document-preview.js';
import { projectArchive } from '../../actions/documents-archive.js';
import { voidDocument } from '../../actions/void-document.js';
import { MAX_LENGTH } from '../../domain/limits.js';
import { presentFile } from '../../presenters/index.js';
import { PreviewQuery, previewRequestOf, sendPreview } from '../previews.js';
import { actorOf } from '../session.js';
import { FileUpload, IdParams, errorRef } from '../schemas.js';
import { type App, type RouteContext, documentAccessOf, documentationOnly, withRequestLog } from './context.js';

/** GET /api/projects/:id/documents.zip (interface.md, additions of 2026-11-23); a document's preview and withdrawing a document (additions of 2026-11-24). */
export async function documentRoutes(app: App, { deps, hooks }: RouteContext) {
  app.get(
    '/api/projects/:id/documents.zip',
    {
      onRequest: hooks.requireSession,
      schema: {
        tags: ['documents'],
        summary: "All of a project's documents as one ZIP",
        description:
          'Whoever may see the project. Streamed: folders PO/, CHALLAN/, INVOICE/ with the original file names (a repeated name becomes "name (2).ext"), ' +
          'then manifest.json (each document with its SHA-256, type, size, uploader; one the store no longer holds is listed with "missing": true) and SHA256SUMS (for sha256sum -c).',
        params: IdParams,
        produces: ['application/zip'],
        response: { 200: { description: 'the ZIP, streamed', content: { 'application/zip': { schema: Type.String({ format: 'binary' }) } } }, 401: errorRef, 404: errorRef },
      },
    },
    async (req, reply) => {
      const { filename, stream } = await projectArchive(withRequestLog(deps, req), actorOf(req), req.params.id);
      reply.header('content-type', 'application/zip');
      reply.header('content-disposition', `attachment; filename="${filename}"`);
      reply.header('cache-control', 'no-store');
      reply.header('x-content-type-options', 'nosniff');
      return reply.send(stream);
    },
  );

  app.get(
    '/api/projects/:id/files/:fileId/preview',
    {
      onRequest: hooks.requireSession,
      // The query's whole numbers are checked as written (domain/previews.ts): the schema's conversion would take 1.5 for 1.
      validatorCompiler: documentationOnly,
      schema: {
        tags: ['documents'],
        summary: "A picture of one page of a project's document",
        description:
          'Whoever may see the project. A WebP image of the page of a PDF (X-Page-Count: its number of pages) or of an uploaded picture, ' +
          `scaled to width with its proportions kept, never wider than the picture itself or the PDF page at 144 dpi. Cached, with an ETag (If-None-Match → 304). ` +
          '404 "No preview for this document": a type without one, a voided document, a page past the end, or a file that cannot be read within 10 s and bounded memory.',
        params: Type.Object({ id: Type.String(), fileId: Type.String() }),
        querystring: PreviewQuery,
        produces: ['image/webp'],
        response: {
          200: Type.Unsafe<Buffer>({ description: 'the picture (image/webp)', type: 'string', format: 'binary' }),
          304: Type.Null({ description: 'If-None-Match named the ETag' }),
          400: errorRef,
          401: errorRef,
          404: errorRef,
          503: errorRef,
        },
      },
    },
    async (req, reply) => {
      const { page, width, ifNoneMatch } = previewRequestOf(req.query, req.headers['if-none-match']);
      return sendPreview(reply, await documentPreview(deps, actorOf(req), { projectId: req.params.id, fileId: req.params.fileId, page, width, ifNoneMatch }));
    },
  );

  app.post(
    '/api/projects/:id/files/:fileId/void',
    {
      onRequest: hooks.requireSession,
      schema: {
        tags: ['documents'],
        summary: 'Withdraw a wrong document: an ADMIN at any time, its uploader within 24 hours of the upload',
        description:
          'The record stays, with who withdrew it, when and why; its bytes are deleted from storage and its url answers 404 from then on. ' +
          'It leaves documents.zip, duplicate detection and the dashboard counts; <TYPE>_VOIDED {filename, reason} goes to the activity. ' +
          'Anyone else who may see the project gets 403, anyone who may not 404; a document already withdrawn 409.',
        params: Type.Object({ id: Type.String(), fileId: Type.String() }),
        body: Type.Object(
          { reason: Type.String({ minLength: 1, maxLength: MAX_LENGTH.reason, description: 'why the document is withdrawn (1–500 characters)' }) },
          { additionalProperties: false },
        ),
        response: { 200: FileUpload, 400: errorRef, 401: errorRef, 403: errorRef, 404: errorRef, 409: errorRef },
      },
    },
    async (req) => presentFile(await voidDocument(withRequestLog(deps, req), actorOf(req), req.params.id, req.params.fileId, req.body), null, documentAccessOf(deps)),
  );
}
