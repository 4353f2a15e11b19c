import { Type } from '@fastify/type-provider-typebox';
import { projectArchive } from '../../actions/documents-archive.js';
import { voidDocument } from '../../actions/void-document.js';
import { MAX_LENGTH } from '../../domain/limits.js';
import { presentFile } from '../../presenters/index.js';
import { actorOf } from '../session.js';
import { FileUpload, IdParams, errorRef } from '../schemas.js';
import { type App, type RouteContext, withRequestLog } from './context.js';

/** GET /api/projects/:id/documents.zip (interface.md, additions of 2026-11-23); withdrawing a document (additions of 2026-11-24). */
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
        response: { 401: errorRef, 404: errorRef },
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
    async (req) => presentFile(await voidDocument(withRequestLog(deps, req), actorOf(req), req.params.id, req.params.fileId, req.body), null),
  );
}
