import { projectArchive } from '../../actions/documents-archive.js';
import { actorOf } from '../session.js';
import { IdParams, errorRef } from '../schemas.js';
import { type App, type RouteContext, withRequestLog } from './context.js';

/** GET /api/projects/:id/documents.zip (interface.md, additions of 2026-11-23). */
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
}
