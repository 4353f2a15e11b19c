import { Type } from '@fastify/type-provider-typebox';
import { hashToken } from '../../actions/auth.js';
import { viewerOf } from '../../domain/visibility.js';
import { errors } from '../../errors.js';
import { MAX_STREAMS_PER_USER, type StreamSink } from '../../realtime/streams.js';
import { CHANNELS, type Channel } from '../../realtime/types.js';
import { actorOf } from '../session.js';
import { errorRef } from '../schemas.js';
import type { App, RouteContext } from './context.js';

const NEVER = '9999-12-31T23:59:59.999Z';
const ALL_CHANNELS = Object.values(CHANNELS) as Channel[];
/** A client that lets this much pile up unread is cut off; it reconnects with Last-Event-ID and is replayed to. */
const MAX_BUFFERED_BYTES = 1024 * 1024;

const DESCRIPTION = `Server-sent events. \`project-updated\` (data \`{"channel":"projects","payload":{"id"}}\`) then \`stats-updated\` (\`{"channel":"dashboard","payload":{}}\`) for every change to a project the user may see at that moment (ADMIN: all; others: projects whose pocId is theirs; a CLIENT also those of their customer).

Every event has an \`id:\`, increasing and the same on every instance (from the activity entry that caused it). A reconnecting client sends \`Last-Event-ID\` (EventSource does so itself) or \`?lastEventId=\` and first receives every later event it may see, then live ones, without gap or duplicate; an id outside the replay window (REALTIME_REPLAY_HOURS, REALTIME_REPLAY_MAX_EVENTS) or unknown gets one \`reset\` event (data \`{}\`): refetch. Messages with only an \`id:\` line move the client's position without an event; \`: ping\` comes every 20 s.

A user holds at most ${MAX_STREAMS_PER_USER} streams on one instance: one more is \`429\` \`{"error": "Too many realtime streams open for this user (at most ${MAX_STREAMS_PER_USER}); close one and try again"}\` with \`Retry-After: 10\` (the streams already open go on).

When the session ends the stream receives \`session-ended\` with data \`{"reason": "signed-out" | "deactivated" | "password-changed" | "expired"}\` and is closed.`;

/** GET /api/realtime: the notifications as server-sent events (interface.md, Realtime); POST /api/realtime/pusher-auth: Pusher's channel authorization. */
export async function realtimeRoutes(app: App, { deps, hooks, streams: hub }: RouteContext) {
  app.get(
    '/api/realtime',
    {
      onRequest: hooks.requireSession,
      schema: {
        tags: ['realtime'],
        summary: 'Server-sent events: project-updated {id} and stats-updated {}, scoped to the user, replayed after a reconnection',
        description: DESCRIPTION,
        querystring: Type.Object({
          channels: Type.Optional(Type.String({ description: 'comma-separated: projects,dashboard' })),
          lastEventId: Type.Optional(Type.String({ description: 'as the Last-Event-ID header, for clients that cannot set it' })),
        }),
        headers: Type.Object({ 'last-event-id': Type.Optional(Type.String()) }),
        response: { 200: { description: 'the event stream', content: { 'text/event-stream': { schema: Type.String() } } }, 401: errorRef, 429: errorRef },
      },
    },
    async (req, reply) => {
      const user = actorOf(req);
      const wanted = req.query.channels ? new Set(req.query.channels.split(',').map((c) => c.trim())) : new Set<string>(ALL_CHANNELS);
      const channels = new Set(ALL_CHANNELS.filter((c) => wanted.has(c)));
      const lastEventId = req.headers['last-event-id'] ?? req.query.lastEventId;
      const release = hub.admit(user.id);
      if (!release) throw errors.tooManyStreams(MAX_STREAMS_PER_USER);
      reply.raw.on('close', release);
      reply.hijack();
      const res = reply.raw;
      res.writeHead(200, {
        'content-type': 'text/event-stream; charset=utf-8',
        'cache-control': 'no-cache, no-transform',
        connection: 'keep-alive',
        'x-accel-buffering': 'no',
      });
      res.write(': connected\n\n');
      // A stream's connection is never reused: once its last bytes are out, the socket goes (shutdown need not wait for it).
      const finish = (last = '') => {
        if (res.writableLength > MAX_BUFFERED_BYTES) return res.destroy();
        res.end(last, () => res.socket?.destroy());
      };
      const sink: StreamSink = {
        write: (text) => {
          res.write(text);
          if (res.writableLength > MAX_BUFFERED_BYTES) throw new Error('client reads too slowly');
        },
        end: finish,
        close: () => finish(),
      };
      const opened = hub.open({
        viewer: viewerOf(user),
        tokenHash: req.apiToken?.tokenHash ?? hashToken(req.sessionToken!),
        // A token without expiry: the stream ends only by revocation or deactivation (and the periodic check).
        expiresAt: req.sessionExpiresAt ?? NEVER,
        apiToken: req.apiToken !== null,
        channels,
        lastEventId: lastEventId?.trim() || undefined,
        sink,
      });
      const counted = deps.metrics?.streamOpened() ?? (() => {});
      res.on('close', () => {
        counted();
        void opened.then((stream) => stream.close());
      });
      await opened;
    },
  );

  // pusher-js posts its channel authorization as a form.
  app.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string', bodyLimit: 4096 }, (_req, body, done) => {
    done(null, Object.fromEntries(new URLSearchParams(body as string)));
  });

  app.post(
    '/api/realtime/pusher-auth',
    {
      onRequest: hooks.requireSession,
      schema: {
        tags: ['realtime'],
        summary: "Pusher's channel authorization (REALTIME_DRIVER=pusher): admins may join private-projects and private-dashboard, anyone their own private-user-<id>",
        body: Type.Object({ socket_id: Type.String(), channel_name: Type.String() }),
        response: { 200: Type.Object({ auth: Type.String() }), 400: errorRef, 401: errorRef, 403: errorRef, 404: errorRef },
      },
    },
    async (req) => {
      if (!deps.realtime.authorizeChannel) throw errors.notFound();
      if (!/^\d+\.\d+$/.test(req.body.socket_id)) throw errors.invalidField('socket_id', 'is not a Pusher socket id');
      const auth = deps.realtime.authorizeChannel(actorOf(req), req.body.socket_id, req.body.channel_name);
      if (!auth) throw errors.forbidden();
      return auth;
    },
  );

  app.post(
    '/api/realtime/pusher-user-auth',
    {
      onRequest: hooks.requireSession,
      schema: {
        tags: ['realtime'],
        summary: "Pusher's user authentication (REALTIME_DRIVER=pusher): signs the socket in as the session's user, so a change of their access ends their Pusher connections at once",
        body: Type.Object({ socket_id: Type.String() }),
        response: { 200: Type.Object({ auth: Type.String(), user_data: Type.String() }), 400: errorRef, 401: errorRef, 404: errorRef },
      },
    },
    async (req) => {
      if (!deps.realtime.authenticateUser) throw errors.notFound();
      if (!/^\d+\.\d+$/.test(req.body.socket_id)) throw errors.invalidField('socket_id', 'is not a Pusher socket id');
      return deps.realtime.authenticateUser(actorOf(req), req.body.socket_id);
    },
  );
}
