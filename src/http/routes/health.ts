import { Type } from '@fastify/type-provider-typebox';
import { errorRef } from '../schemas.js';
import type { App, RouteContext } from './context.js';

/** A dependency that hangs is as unready as one that refuses; a load balancer should not wait on it. */
const CHECK_TIMEOUT_MS = 3000;

/** Liveness and readiness (interface.md, Operations). */
export async function healthRoutes(app: App, { deps }: RouteContext) {
  app.get('/healthz', { schema: { tags: ['operations'], summary: 'The process runs', response: { 200: Type.Object({ status: Type.Literal('ok') }), 503: errorRef } } }, async () => ({ status: 'ok' }));

  app.get('/readyz', {
    schema: {
      tags: ['operations'],
      summary: 'Each dependency answers; 503 names the one that fails',
      response: { 200: Type.Object({ status: Type.Literal('ready'), checks: Type.Record(Type.String(), Type.String()) }), 503: errorRef },
    },
  }, async (_req, reply) => {
    const checks = {
      database: () => deps.store.ping(),
      storage: () => deps.storage.check(),
      realtime: () => deps.realtime.check(),
    };
    const results = await Promise.all(
      Object.entries(checks).map(async ([name, check]) => {
        try {
          await withTimeout(check(), CHECK_TIMEOUT_MS);
          return [name, 'ok'] as const;
        } catch (err) {
          deps.metrics?.dependencyErrors.inc({ dependency: name as keyof typeof checks });
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

async function withTimeout(work: Promise<void>, ms: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms);
  });
  try {
    await Promise.race([work, timeout]);
  } finally {
    clearTimeout(timer);
  }
}
