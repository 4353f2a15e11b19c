import fastifyStatic from '@fastify/static';
import { cleanContentType, dispositionFor } from '../../domain/documents.js';
import { errors } from '../../errors.js';
import type { App, RouteContext } from './context.js';

/**
 * GET /files/<key>: documents of a store the service serves itself (FileStorage.servesOwnFiles: the
 * local driver). Public (the key holds the project's random
 * id), but served so a browser cannot run them on our origin: the uploaded Content-Type, nosniff,
 * a sandbox CSP, and a download for anything that is not a passive type.
 */
export async function fileRoutes(app: App, { deps }: RouteContext) {
  const served = deps.storage.servesOwnFiles;
  if (!served) return;
  await app.register(fastifyStatic, { root: served.root, serve: false });

  app.get(
    '/files/*',
    {
      schema: {
        tags: ['documents'],
        summary: 'A stored document (local storage driver): the `url` an upload answered',
        description:
          'Public. Content-Type as uploaded, X-Content-Type-Options: nosniff, Content-Security-Policy: sandbox, Content-Disposition attachment for anything but passive types, by declared type and by what the bytes are. Range requests and ETags work.',
        security: [],
      },
    },
    async (req, reply) => {
      const key = (req.params as { '*': string })['*'];
      const file = await deps.store.files.findByStorageKey(key);
      // A withdrawn document answers 404 at once, even while its bytes wait to be deleted.
      if (!file || file.voidedAt !== null) throw errors.notFound();
      // Kept before types were checked as they came in, an invalid type would fail every download (Node refuses the header).
      reply.header('content-type', cleanContentType(file.contentType));
      reply.header('x-content-type-options', 'nosniff');
      reply.header('content-security-policy', "sandbox; default-src 'none'");
      reply.header('content-disposition', dispositionFor(file.contentType, file.filename, file.detectedType));
      reply.header('cache-control', 'public, max-age=31536000, immutable');
      return reply.sendFile(key, { dotfiles: 'deny', contentType: false, cacheControl: false });
    },
  );
}
