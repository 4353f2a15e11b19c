import fs from 'node:fs';
import path from 'node:path';
import fastifyStatic from '@fastify/static';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { etagMatches } from '../../domain/previews.js';
import { acceptedEncoding, varyOnEncoding } from '../compression.js';
import { packageRoot } from '../../package-root.js';
import { IndexCache } from '../web-index.js';
import type { App } from './context.js';

/** The Content-Security-Policy of the web app's pages: only our own scripts, styles and connections. */
export const WEB_CSP = [
  "default-src 'self'",
  "connect-src 'self'",
  "img-src 'self' data: https:",
  "style-src 'self'",
  "frame-ancestors 'none'",
  "object-src 'none'",
  "base-uri 'self'",
  "form-action 'self'",
].join('; ');

/** Paths the service answers itself: never the web app, so an unknown one stays a JSON 404. */
const SERVICE_PATH = /^\/(?:api|files)(?:\/|$)|^\/(?:healthz|readyz)$/;
/** A file at the top of the build (favicon.svg, robots.txt): one plain segment, no dot-file. */
const TOP_LEVEL_FILE = /^\/([A-Za-z0-9_-][A-Za-z0-9_.-]*)$/;
const NOT_BUILT = 'The web app is not built: run `npm run build`';

/**
 * Where `vite build` puts the web app: `dist/web` under the package root, found by walking up from
 * this module (src/http/routes under tsx, dist/src/http/routes once compiled) to package.json.
 */
export function defaultWebRoot(): string | null {
  const root = packageRoot();
  return root && path.join(root, 'dist', 'web');
}

const acceptsHtml = (req: FastifyRequest) => /\btext\/html\b/.test(req.headers.accept ?? '');

/**
 * The web app (web/, built into dist/web) at `/`: hashed /assets/* cached for a year, index.html
 * never cached and answered for any page address (the app routes in the browser), under a strict
 * CSP. /api/*, /files/*, /healthz and /readyz are never the app: an unknown one stays a JSON 404.
 * Without a build the service still runs and a page request gets 503 naming the command to run.
 * index.html is held in memory with its compressed forms and looked at again on disk at most once a
 * second, so a new build is served without a restart.
 */
export function webRoutes(root: string | null = defaultWebRoot()) {
  return async function serveWebApp(app: App) {
    // This plugin's own sendFile (files.ts registers another in its scope); no routes of its own.
    await app.register(fastifyStatic, { serve: false });
    const built = () => root !== null && fs.existsSync(path.join(root, 'index.html'));
    if (!built()) app.log.warn(`${NOT_BUILT} (looked for ${root ?? 'dist/web'}); the API works without it`);

    app.addHook('onSend', async (_req, reply) => {
      reply.header('x-content-type-options', 'nosniff');
      reply.header('referrer-policy', 'same-origin');
    });

    // index.html from memory, compressed once per build (web-index.ts): no disk read per page.
    const index = new IndexCache(root);
    const sendIndex = async (req: FastifyRequest, reply: FastifyReply) => {
      const page = await index.page();
      if (!page) return reply.code(503).header('cache-control', 'no-store').send({ error: NOT_BUILT });
      reply.header('content-security-policy', WEB_CSP);
      reply.header('x-frame-options', 'DENY');
      reply.header('cache-control', 'no-cache');
      reply.header('etag', page.etag);
      varyOnEncoding(reply);
      if (etagMatches(req.headers['if-none-match'], page.etag)) return reply.code(304).send();
      reply.type('text/html; charset=utf-8');
      const encoding = acceptedEncoding(req);
      if (!encoding) return reply.send(page.body);
      reply.header('content-encoding', encoding);
      return reply.send(page.encoded[encoding]);
    };

    app.get('/assets/*', { schema: { hide: true } }, async (req, reply) => {
      if (!built()) return reply.callNotFound();
      // Vite names every asset by its content hash: a changed file is a new name.
      return reply.sendFile(`assets/${(req.params as { '*': string })['*']}`, root!, { immutable: true, maxAge: '365d' });
    });

    app.get('/', { schema: { hide: true } }, async (req, reply) => sendIndex(req, reply));

    app.get('/*', { schema: { hide: true } }, async (req, reply) => {
      const pathname = req.url.split('?')[0]!;
      if (SERVICE_PATH.test(pathname)) return reply.callNotFound();
      reply.header('vary', 'Accept'); // a page for a browser, a JSON 404 for anyone else
      const file = TOP_LEVEL_FILE.exec(pathname)?.[1];
      if (file && file !== 'index.html' && built() && fs.statSync(path.join(root!, file), { throwIfNoEntry: false })?.isFile()) {
        return reply.sendFile(file, root!, { maxAge: '1h' });
      }
      if (acceptsHtml(req) || file === 'index.html') return sendIndex(req, reply);
      return reply.callNotFound();
    });
  };
}
