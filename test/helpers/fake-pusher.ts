import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import http from 'node:http';
import type net from 'node:net';

/**
 * A real HTTP server on 127.0.0.1 that answers the part of Pusher Channels' HTTP API the pusher
 * driver uses, and checks each request the way Pusher does
 * (https://pusher.com/docs/channels/library_auth_reference/rest-api/):
 *
 * - `auth_key` is the app's key, `auth_timestamp` within 600 s of now, `auth_version` 1.0;
 * - with a body, `body_md5` is the MD5 (hex) of the body as sent;
 * - `auth_signature` is the HMAC-SHA256 (hex), keyed with the secret, of
 *   `<METHOD>\n<path>\n<the other query parameters, sorted by key, as key=value joined by &>`.
 *
 * A request that fails a check gets 401 with a text message, as Pusher answers. An event is held to
 * Pusher's limits (https://pusher.com/docs/channels/library_auth_reference/rest-api/#post-event-trigger-an-event):
 * 1 to 100 channels, each name of at most 164 characters from `A-Za-z0-9_-=@,.;`, an event name of
 * at most 200 characters, and data of at most 10 KB (413 beyond, 400 for the others).
 */
export interface FakePusher {
  readonly url: string;
  readonly port: number;
  readonly appId: string;
  readonly key: string;
  readonly secret: string;
  /** Every event accepted by POST /apps/<id>/events, in order of arrival. */
  readonly events: PusherEvent[];
  /** The users whose connections POST /apps/<id>/users/<user_id>/terminate_connections ended, in order. */
  readonly terminated: string[];
  /** Every request refused (or failed by failWith), with the reason given. */
  readonly refused: { method: string; path: string; status: number; reason: string }[];
  /** Whether `auth` is what Pusher accepts from a client joining a private channel: `<key>:<HMAC-SHA256 hex of "<socket_id>:<channel>">`. */
  verifyChannelAuth(socketId: string, channel: string, auth: unknown): boolean;
  /** Whether `auth` is what Pusher accepts from a client signing in: `<key>:<HMAC-SHA256 hex of "<socket_id>::user::<user_data>">`. */
  verifyUserAuth(socketId: string, userData: unknown, auth: unknown): boolean;
  /** The service settings that point REALTIME_DRIVER=pusher here (override any, e.g. PUSHER_SECRET). */
  env(overrides?: Record<string, string>): Record<string, string>;
  /** From now on answers every request with this status and text (as Pusher does when in trouble); null: back to normal. */
  failWith(status: number | null, text?: string): void;
  /** Stops answering: the port refuses connections from then on. */
  close(): Promise<void>;
}

export interface PusherEvent {
  name: string;
  channels: string[];
  /** The event's data, parsed (the SDK sends it as a JSON string). */
  data: unknown;
}

const TIMESTAMP_GRACE_S = 600;

export async function startFakePusher(opts: { appId?: string; key?: string; secret?: string } = {}): Promise<FakePusher> {
  const appId = opts.appId ?? '424242';
  const key = opts.key ?? 'fake-pusher-key';
  const secret = opts.secret ?? 'fake-pusher-secret';
  const events: PusherEvent[] = [];
  const refused: FakePusher['refused'] = [];
  const terminated: string[] = [];
  const sockets = new Set<net.Socket>();
  let failure: { status: number; text: string } | null = null;

  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const method = req.method ?? 'GET';
      const rawUrl = req.url ?? '/';
      const q = rawUrl.indexOf('?');
      const path = q < 0 ? rawUrl : rawUrl.slice(0, q);
      const query = q < 0 ? '' : rawUrl.slice(q + 1);
      const body = Buffer.concat(chunks).toString('utf8');
      const answer = (status: number, text: string, type = 'text/plain') => {
        if (status >= 400) refused.push({ method, path, status, reason: text });
        res.writeHead(status, { 'content-type': type }).end(text);
      };

      if (failure) return answer(failure.status, failure.text);
      const denied = verify(method, path, query, body);
      if (denied) return answer(401, denied);

      if (method === 'POST' && path === `/apps/${appId}/events`) {
        let event: { name?: unknown; channels?: unknown; data?: unknown };
        try {
          event = JSON.parse(body);
        } catch {
          return answer(400, 'Request body is not valid JSON');
        }
        if (typeof event.name !== 'string' || !Array.isArray(event.channels) || typeof event.data !== 'string') {
          return answer(400, 'An event needs name, channels and data (a string)');
        }
        const limit = eventOverLimit(event.name, event.channels, event.data);
        if (limit) return answer(limit.status, limit.text);
        events.push({ name: event.name, channels: event.channels as string[], data: JSON.parse(event.data) });
        return answer(200, '{}', 'application/json');
      }
      const ending = new RegExp(`^/apps/${appId}/users/([^/]+)/terminate_connections$`).exec(path);
      if (method === 'POST' && ending) {
        terminated.push(decodeURIComponent(ending[1]!));
        return answer(200, '{}', 'application/json');
      }
      if (method === 'GET' && path === `/apps/${appId}/channels`) return answer(200, '{"channels":{}}', 'application/json');
      return answer(404, `Not found: ${method} ${path}`);
    });
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });

  /** Pusher's checks of a signed request; the refusal's text, or undefined when it passes. */
  function verify(method: string, path: string, query: string, body: string): string | undefined {
    // The SDK writes the values as they are (no escaping) and signs them that way.
    const params = new Map<string, string>();
    for (const pair of query.split('&').filter(Boolean)) {
      const eq = pair.indexOf('=');
      params.set(eq < 0 ? pair : pair.slice(0, eq), eq < 0 ? '' : pair.slice(eq + 1));
    }
    if (params.get('auth_key') !== key) return 'Unknown auth_key';
    const timestamp = Number(params.get('auth_timestamp'));
    if (!Number.isInteger(timestamp) || Math.abs(Date.now() / 1000 - timestamp) > TIMESTAMP_GRACE_S) {
      return `Timestamp expired: Given timestamp (${params.get('auth_timestamp')}) not within ${TIMESTAMP_GRACE_S}s of server time`;
    }
    if (params.get('auth_version') !== '1.0') return 'auth_version must be 1.0';
    if (body) {
      const md5 = createHash('md5').update(body, 'utf8').digest('hex');
      if (params.get('body_md5') !== md5) return 'The body_md5 parameter does not match the body';
    }
    const signature = params.get('auth_signature') ?? '';
    const signed = [...params.entries()]
      .filter(([k]) => k !== 'auth_signature')
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
      .map(([k, v]) => `${k}=${v}`)
      .join('&');
    const toSign = `${method}\n${path}\n${signed}`;
    const expected = createHmac('sha256', secret).update(toSign).digest('hex');
    if (signature.length !== expected.length || !timingSafeEqual(Buffer.from(signature), Buffer.from(expected))) {
      return `Invalid signature: you should have sent HmacSHA256Hex(${JSON.stringify(toSign)}, your_secret_key), but you sent "${signature}"`;
    }
    return undefined;
  }

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as net.AddressInfo;
  let closing: Promise<void> | undefined;

  return {
    url: `http://127.0.0.1:${port}`,
    port,
    appId,
    key,
    secret,
    events,
    terminated,
    refused,
    verifyUserAuth(socketId, userData, auth) {
      if (typeof userData !== 'string') return false;
      const expected = `${key}:${createHmac('sha256', secret).update(`${socketId}::user::${userData}`).digest('hex')}`;
      return typeof auth === 'string' && auth.length === expected.length && timingSafeEqual(Buffer.from(auth), Buffer.from(expected));
    },
    verifyChannelAuth(socketId, channel, auth) {
      const expected = `${key}:${createHmac('sha256', secret).update(`${socketId}:${channel}`).digest('hex')}`;
      return typeof auth === 'string' && auth.length === expected.length && timingSafeEqual(Buffer.from(auth), Buffer.from(expected));
    },
    env: (overrides = {}) => ({
      REALTIME_DRIVER: 'pusher',
      PUSHER_APP_ID: appId,
      PUSHER_KEY: key,
      PUSHER_SECRET: secret,
      PUSHER_HOST: '127.0.0.1',
      PUSHER_PORT: String(port),
      PUSHER_USE_TLS: 'false',
      ...overrides,
    }),
    failWith(status, text = 'Internal Server Error') {
      failure = status === null ? null : { status, text };
    },
    close: () =>
      (closing ??= new Promise<void>((resolve) => {
        server.close(() => resolve());
        for (const socket of sockets) socket.destroy(); // keep-alive connections too
      })),
  };
}

const MAX_CHANNELS = 100;
const CHANNEL_NAME = /^[A-Za-z0-9_\-=@,.;]{1,164}$/;
const MAX_EVENT_NAME = 200;
const MAX_DATA_BYTES = 10 * 1024;

/** Pusher's limits on one triggered event; the refusal, or undefined when it is within them. */
function eventOverLimit(name: string, channels: unknown[], data: string): { status: number; text: string } | undefined {
  if (channels.length === 0 || channels.length > MAX_CHANNELS) return { status: 400, text: `An event goes to 1 to ${MAX_CHANNELS} channels, not ${channels.length}` };
  const invalid = channels.find((c) => typeof c !== 'string' || !CHANNEL_NAME.test(c));
  if (invalid !== undefined) return { status: 400, text: `Invalid channel name: ${String(invalid)}` };
  if (name.length > MAX_EVENT_NAME) return { status: 400, text: `Event name too long (${name.length} > ${MAX_EVENT_NAME})` };
  if (Buffer.byteLength(data, 'utf8') > MAX_DATA_BYTES) return { status: 413, text: `Payload too large (${Buffer.byteLength(data, 'utf8')} bytes > ${MAX_DATA_BYTES})` };
  return undefined;
}
