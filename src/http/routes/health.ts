import type { App, RouteContext } from './context.js';

/** Liveness and readiness (interface.md, Operations). */
export async function healthRoutes(app: App, { deps }: RouteContext) {
  app.get('/healthz', { schema: { tags: ['operations'], summary: 'The process runs' } }, async () => ({ status: 'ok' }));

  app.get('/readyz', { schema: { tags: ['operations'], summary: 'Each dependency answers; 503 names the one that fails' } }, async (_req, reply) => {
    const checks = {
      database: () => deps.store.ping(),
      storage: () => deps.storage.check(),
      realtime: () => deps.realtime.check(),
    };
    const results = await Promise.all(
      Object.entries(checks).map(async ([name, check]) => {
        try {
          await check();
          return [name, 'ok'] as const;
        } catch (err) {
          return [name, err instanceof Error ? err.message : 'failed'] as const;
        }
      }),
    );
    const failing = results.filter(([, r]) => r !== 'ok');
    if (failing.length) {
      return reply.code(503).send({ error: `Not ready: ${failing.map(([n, r]) => `${n} (${r})`).join(', ')}` });
    }
    return { status: 'ready', checks: Object.fromEntries(results) };
  });
}
