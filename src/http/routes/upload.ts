import multipart from '@fastify/multipart';
import { Type } from '@fastify/type-provider-typebox';
import { errors } from '../../errors.js';
import { presentUpload } from '../../presenters/index.js';
import { uploadDocument } from '../../uploads/index.js';
import { idempotencyKeyOf, uploadOnce } from '../../uploads/idempotency.js';
import { readForm } from '../../uploads/read-form.js';
import { actorOf } from '../session.js';
import { DOCUMENT_TYPES } from '../../domain/model.js';
import { UploadResult, enumOf, errorRef } from '../schemas.js';
import { type App, type RouteContext, documentAccessOf, documentationOnly } from './context.js';

const MULTIPART = /^\s*multipart\/form-data\s*(;|$)/i;

/** Specification 4.1: POST /api/upload. The session is checked before a byte of the body is read. */
export async function uploadRoutes(app: App, { deps, hooks }: RouteContext) {
  // Any body that is not multipart is left unread: it carries no fields, so the answer is check 2's.
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', (_req, _payload, done) => done(null));
  await app.register(multipart, { throwFileSizeLimit: false });

  app.post(
    '/api/upload',
    {
      onRequest: hooks.requireSession,
      // A body that is not multipart carries none of the fields: check 2's answer, before Fastify's
      // content-type parsing could refuse a malformed type (Content-Type: garbage) in its own words.
      preParsing: async (req) => {
        if (!MULTIPART.test(req.headers['content-type'] ?? '')) throw errors.uploadFieldsRequired();
      },
      config: { failure: { message: 'Upload failed', exposeMessage: true, specified: true }, streamedBody: true },
      schema: {
        tags: ['documents'],
        summary: 'Upload a project document (PO, CHALLAN or INVOICE)',
        description:
          'multipart/form-data with fields projectId, fileType and the part "file". Send projectId and fileType before the file so a refused upload is answered at its first byte. ' +
          'Optional header Idempotency-Key (1–255 visible ASCII characters): a retry with the same key by the same user within 24 h answers the first upload again and stores nothing; ' +
          'the same key with a different project, type, file name or file is 409, as is a retry while the first request still runs. ' +
          'UPLOAD_ALLOWED_TYPES, when set, refuses other types (declared or recognised by the first bytes) with 415 after the checks of specification 4.1.',
        consumes: ['multipart/form-data'],
        body: Type.Object({
          projectId: Type.String(),
          fileType: enumOf(DOCUMENT_TYPES),
          file: Type.String({ format: 'binary' }),
        }),
        headers: Type.Object({ 'idempotency-key': Type.Optional(Type.String({ minLength: 1, maxLength: 255 })) }),
        response: { 201: UploadResult, 400: errorRef, 401: errorRef, 403: errorRef, 404: errorRef, 409: errorRef, 413: errorRef, 415: errorRef, 500: errorRef },
      },
      validatorCompiler: documentationOnly,
    },
    async (req, reply) => {
      const actor = actorOf(req);
      let key: string | undefined;
      try {
        key = idempotencyKeyOf(req.headers['idempotency-key']);
      } catch (err) {
        req.raw.resume(); // answered before the body: read and drop it, as a refused upload's is
        throw err;
      }
      const form = readForm(req, deps.config);
      const file = await (key === undefined ? uploadDocument(deps, actor, form) : uploadOnce(deps, actor, key, form)).catch((err: unknown) => {
        // Already answered (a body timed out: 408, http/timeouts.ts): the failure of the body it cut is that answer, not an error of ours.
        if (reply.sent) return null;
        throw err;
      });
      if (!file) return reply;
      deps.metrics?.uploadBytes.inc({ type: file.type }, file.size);
      deps.metrics?.uploadDuration.observe({ type: file.type }, reply.elapsedTime / 1000);
      return reply.code(201).send(presentUpload(file, documentAccessOf(deps)));
    },
  );
}
