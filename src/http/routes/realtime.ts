import type { ServerResponse } from 'node:http';
import { Type } from '@fastify/type-provider-typebox';
import { CHANNELS, type Channel } from '../../realtime/types.js';
import type { App, RouteContext } from './context.js';

const ALL_CHANNELS = Object.values(CHANNELS) as Channel[];
const PING_MS = 20_000;

/** GET /api/realtime: the notifications as server-sent events (interface.md, Realtime). */
export async function realtimeRoutes(app: App, { deps, hooks }: RouteContext) {
  const open = new Set<ServerResponse>();
  // Streams never end on their own; close them so shutdown can finish.
  app.addHook('preClose', async () => {
    for (const res of open) res.end();
  });

  app.get(
    '/api/realtime',
    {
      onRequest: hooks.requireSession,
      schema: {
        tags: ['realtime'],
        summary: 'Server-sent events: project-updated {id} on "projects", stats-updated {} on "dashboard"',
        querystring: Type.Object({ channels: Type.Optional(Type.String({ description: 'comma-separated: projects,dashboard' })) }),
      },
    },
    (req, reply) => {
      const wanted = req.query.channels ? new Set(req.query.channels.split(',').map((c) => c.trim())) : new Set(ALL_CHANNELS);
      reply.hijack();
      const res = reply.raw;
      res.writeHead(200, {
        'content-type': 'text/event-stream; charset=utf-8',
        'cache-control': 'no-cache, no-transform',
        connection: 'keep-alive',
        'x-accel-buffering': 'no',
      });
      res.write(': connected\n\n');
      let id = 0;
      const unsubscribe = deps.realtime.subscribe((n) => {
        if (!wanted.has(n.channel)) return;
        res.write(`id: ${++id}\nevent: ${n.event}\ndata: ${JSON.stringify({ channel: n.channel, payload: n.payload })}\n\n`);
      });
      const ping = setInterval(() => res.write(': ping\n\n'), PING_MS);
      open.add(res);
      res.on('close', () => {
        clearInterval(ping);
        unsubscribe();
        open.delete(res);
      });
    },
  );
}
