import fastifyStatic from '@fastify/static';
import type { FastifyReply } from 'fastify';
import { findVisibleDocument, storedProof } from '../../actions/document-access.js';
import { PRIVATE_DOCUMENT_CACHE, PRIVATE_REDIRECT_CACHE, cleanContentType, dispositionFor } from '../../domain/documents.js';
import type { FileUpload } from '../../domain/model.js';
import { errors } from '../../errors.js';
import { actorOf } from '../session.js';
import type { App, RouteContext } from './context.js';

/**
 * GET /files/<key>: a document's address where the service answers it.
 * DOCUMENT_ACCESS=public (the specification): only for a store the service serves itself
 * (FileStorage.servesOwnFiles: the local driver), to anyone (the key holds the project's random id).
 * DOCUMENT_ACCESS=private: on every driver, to a session (or token) whose user may see the project
 * now; the local driver's bytes are sent, S3's and Cloudinary's redirected to a short-lived signed address.
 * Either way served so a browser cannot run them on our origin: the uploaded Content-Type, nosniff,
 * a sandbox CSP, and a download for anything that is not a passive type.
 */
export async function fileRoutes(app: App, { deps, hooks }: RouteContext) {
  const served = deps.storage.servesOwnFiles;
  const { mode, linkSeconds } = deps.config.documentAccess;
  if (mode === 'public' && !served) return;
  if (served) await app.register(fastifyStatic, { root: served.root, serve: false });

  const sendBytes = (reply: FastifyReply, key: string, file: FileUpload, cacheControl: string) => {
    // Kept before types were checked as they came in, an invalid type would fail every download (Node refuses the header).
    reply.header('content-type', cleanContentType(file.contentType));
    reply.header('x-content-type-options', 'nosniff');
    reply.header('content-security-policy', "sandbox; default-src 'none'");
    reply.header('content-disposition', dispositionFor(file.contentType, file.filename, file.detectedType));
    reply.header('cache-control', cacheControl);
    return reply.sendFile(key, { dotfiles: 'deny', contentType: false, cacheControl: false });
  };

  if (mode === 'public') {
    app.get(
      '/files/*',
      {
        schema: {
          tags: ['documents'],
          summary: 'A stored document (local storage driver): the `url` an upload answered',
          description:
            'Public (DOCUMENT_ACCESS=public). Content-Type as uploaded, X-Content-Type-Options: nosniff, Content-Security-Policy: sandbox, Content-Disposition attachment for anything but passive types, by declared type and by what the bytes are. Range requests and ETags work.',
          security: [],
        },
      },
      async (req, reply) => {
        const key = (req.params as { '*': string })['*'];
        const file = (await deps.store.files.findByStorageKey(key)) ?? (await storedProof(deps, key));
        // A withdrawn document answers 404 at once, even while its bytes wait to be deleted.
        if (!file || file.voidedAt !== null) throw errors.notFound();
        return sendBytes(reply, key, file, 'public, max-age=31536000, immutable');
      },
    );
    return;
  }

  app.get(
    '/files/*',
    {
      // Set first, so the 401 and 404 carry it too: no cache keeps any answer of this address.
      onRequest: [
        (_req, reply, done) => {
          reply.header('cache-control', PRIVATE_DOCUMENT_CACHE);
          done();
        },
        hooks.requireSession,
      ],
      schema: {
        tags: ['documents'],
        summary: 'A stored document: the `url` a document has (DOCUMENT_ACCESS=private)',
        description:
          'For a session or token whose user may see the project now: no session 401, a project one may not see (or no such document) 404. The local driver answers the bytes (Content-Type as uploaded, nosniff, sandbox CSP, attachment for anything but passive types; Range and ETag work); S3 and Cloudinary a 307 redirect to a signed address of the store that lasts DOCUMENT_LINK_SECONDS. Cache-Control: private, no-cache (the redirect also no-store).',
      },
    },
    async (req, reply) => {
      const key = (req.params as { '*': string })['*'];
      const file = await findVisibleDocument(deps, actorOf(req), key);
      if (served) return sendBytes(reply, key, file, PRIVATE_DOCUMENT_CACHE);
      if (!deps.storage.signedAddress) throw new Error(`The ${deps.storage.driver} store cannot issue signed addresses`);
      const target = await deps.storage.signedAddress({ key: file.storageKey, url: file.url }, linkSeconds, req.method === 'HEAD' ? 'HEAD' : 'GET');
      reply.header('cache-control', PRIVATE_REDIRECT_CACHE);
      return reply.redirect(target, 307);
    },
  );
}
