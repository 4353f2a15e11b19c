import { createHash, timingSafeEqual } from 'node:crypto';
import { Type } from '@fastify/type-provider-typebox';
import { errors } from '../../errors.js';
import { errorRef } from '../schemas.js';
import type { App, RouteContext } from './context.js';

const digest = (s: string) => createHash('sha256').update(s).digest();

/**
 * GET /metrics (interface.md, Operations): Prometheus text for the people who run the service,
 * only with `Authorization: Bearer <METRICS_TOKEN>`. Without METRICS_TOKEN the route does not exist.
 */
export async function metricsRoutes(app: App, { deps }: RouteContext) {
  const { metrics } = deps;
  const token = deps.config.metricsToken;
  if (!metrics || !token) return;
  const expected = digest(`Bearer ${token}`);

  app.get(
    '/metrics',
    { schema: { tags: ['operations'], summary: 'Prometheus metrics (Authorization: Bearer METRICS_TOKEN)', security: [{ metricsToken: [] }], response: { 200: { description: 'the metrics, Prometheus text format', content: { 'text/plain': { schema: Type.String() } } }, 401: errorRef } } },
    async (req, reply) => {
      // Compared as digests: the same length whatever was sent, so the time taken tells nothing.
      if (!timingSafeEqual(digest(req.headers.authorization ?? ''), expected)) {
        reply.header('www-authenticate', 'Bearer realm="metrics"');
        throw errors.unauthorized();
      }
      return reply.type(metrics.registry.contentType).send(await metrics.scrape());
    },
  );
}
