import multipart from '@fastify/multipart';
import { Type } from '@fastify/type-provider-typebox';
import { errors } from '../../errors.js';
import { presentUpload } from '../../presenters/index.js';
import { receiveUpload } from '../receive-upload.js';
import { actorOf } from '../session.js';
import { UploadResult, errorRef } from '../schemas.js';
import { type App, type RouteContext, documentationOnly } from './context.js';

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
      config: { failure: { message: 'Upload failed', exposeMessage: true }, streamedBody: true },
      schema: {
        tags: ['documents'],
        summary: 'Upload a project document (PO, CHALLAN or INVOICE)',
        description:
          'multipart/form-data with fields projectId, fileType and the part "file". Send projectId and fileType before the file so a refused upload is answered at its first byte.',
        consumes: ['multipart/form-data'],
        body: Type.Object({
          projectId: Type.String(),
          fileType: Type.Union([Type.Literal('PO'), Type.Literal('CHALLAN'), Type.Literal('INVOICE')]),
          file: Type.String({ format: 'binary' }),
        }),
        response: { 201: UploadResult, 400: errorRef, 401: errorRef, 403: errorRef, 404: errorRef, 413: errorRef, 500: errorRef },
      },
      validatorCompiler: documentationOnly,
    },
    async (req, reply) => {
      const file = await receiveUpload(req, deps, actorOf(req));
      deps.metrics?.uploadBytes.inc({ type: file.type }, file.size);
      deps.metrics?.uploadDuration.observe({ type: file.type }, reply.elapsedTime / 1000);
      return reply.code(201).send(presentUpload(file));
    },
  );
}
