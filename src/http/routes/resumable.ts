import { Type } from '@fastify/type-provider-typebox';
import { presentUpload } from '../../presenters/index.js';
import { RESUMABLE_PATH, createResumableUploads } from '../../uploads/resumable.js';
import { AppError, errors } from '../../errors.js';
import { actorOf } from '../session.js';
import { UploadResult, errorRef } from '../schemas.js';
import { type App, type RouteContext, documentAccessOf } from './context.js';

const IdParams = Type.Object({ id: Type.String() });

/**
 * Resumable uploads, tus 1.0 (interface.md, additions of 2026-11-23). Every request is checked here
 * first (session; on creation, specification 4.1 checks 2–7, the size limit and the type list; after
 * that, that the upload is the caller's), then handed to the tus server as it is.
 */
export async function resumableRoutes(app: App, { deps, hooks }: RouteContext) {
  const tus = await createResumableUploads(deps);
  // tus bodies (application/offset+octet-stream) are the tus server's to read.
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', (_req, _payload, done) => done(null));

  // Our own answers on the tus endpoints (the session and the checks refusing) carry the protocol's header too, as @tus/server's do.
  app.addHook('onSend', async (req, reply, payload) => {
    if (req.method !== 'GET') reply.header('tus-resumable', '1.0.0');
    return payload;
  });

  const tusRoute = { tags: ['documents'] };
  app.route({
    method: ['POST', 'OPTIONS'],
    url: RESUMABLE_PATH,
    onRequest: hooks.requireSession,
    config: { failure: { message: 'Upload failed', exposeMessage: true }, streamedBody: true },
    schema: {
      ...tusRoute,
      summary: 'Create a resumable upload (tus 1.0 creation)',
      description:
        'Headers Tus-Resumable: 1.0.0, Upload-Length, Upload-Metadata with projectId, fileType, filename, filetype. ' +
        "Runs specification 4.1 checks 1–7 before a byte is accepted and answers a refusal with the specification's status and {\"error\": message}; " +
        'then 413 past MAX_UPLOAD_BYTES, 415 for a declared type outside UPLOAD_ALLOWED_TYPES. 201 with Location: the upload\'s URL.',
      response: {
        201: Type.Unknown({ description: 'POST: created; Location is its URL' }),
        204: Type.Unknown({ description: 'OPTIONS: what the server supports (Tus-Version, Tus-Extension, Tus-Max-Size)' }),
        400: errorRef, 401: errorRef, 403: errorRef, 404: errorRef, 412: errorRef, 413: errorRef, 415: errorRef,
      },
    },
    handler: async (req, reply) => {
      const actor = actorOf(req);
      if (req.method === 'POST') await tus.checkCreation(req.raw, actor);
      const prepared = tus.prepare(req.raw, reply.raw);
      reply.hijack();
      await tus.handle(prepared, actor);
    },
  });

  app.route({
    method: ['HEAD', 'PATCH', 'DELETE', 'OPTIONS'],
    url: `${RESUMABLE_PATH}/:id`,
    onRequest: hooks.requireSession,
    config: { failure: { message: 'Upload failed', exposeMessage: true }, streamedBody: true },
    schema: {
      ...tusRoute,
      summary: 'A resumable upload: HEAD (offset), PATCH (the next bytes), DELETE (give it up)',
      description:
        'tus 1.0 core and termination (a finished upload cannot be terminated: 409). The last PATCH runs the same steps as POST /api/upload (checks 4–7 again, the type rule, steps 8–11); ' +
        "a refusal then answers with the specification's status and {\"error\": message}. Another user's upload is 404.",
      params: IdParams,
      response: {
        200: Type.Unknown({ description: 'HEAD: Upload-Offset and Upload-Length' }),
        204: Type.Unknown({ description: 'PATCH: the bytes taken (Upload-Offset); DELETE: given up; OPTIONS: what the server supports' }),
        400: errorRef, 401: errorRef, 404: errorRef, 409: errorRef, 413: errorRef, 415: errorRef, 423: errorRef,
      },
    },
    handler: async (req, reply) => {
      const actor = actorOf(req);
      const row = req.method === 'OPTIONS' ? undefined : await tus.checkOwner(req.params.id, actor);
      // Its bytes are gone once complete, so the tus server would call it unknown while its result stands.
      if (req.method === 'DELETE' && row?.finishing) throw errors.resumableFinished();
      const prepared = tus.prepare(req.raw, reply.raw);
      reply.hijack();
      await tus.handle(prepared, actor, req.params.id);
    },
  });

  app.get(
    `${RESUMABLE_PATH}/:id/result`,
    {
      onRequest: hooks.requireSession,
      schema: {
        tags: ['documents'],
        summary: 'The document a finished resumable upload made',
        description: 'The same {id, url, filename, size} POST /api/upload answers; a refused completion answers its refusal again; 409 while unfinished; 404 once terminated (DELETE).',
        params: IdParams,
        response: { 200: UploadResult, 401: errorRef, 404: errorRef, 409: errorRef },
      },
    },
    async (req) => {
      const row = await tus.checkOwner(req.params.id, actorOf(req));
      if (row.fileUploadId) {
        const file = await deps.store.files.findById(row.fileUploadId);
        if (file) return presentUpload(file, documentAccessOf(deps));
      }
      if (row.error) throw new AppError(row.error.status, row.error.message);
      throw errors.resumableNotFinished();
    },
  );
}
