import Pusher from 'pusher';
import type { RealtimeConfig } from '../../config.js';
import { Subscribers } from '../subscribers.js';
import { type Notification, type RealtimeBroker, type RealtimeMessage, SESSIONS_CHANNEL } from '../types.js';

type PusherSettings = Extract<RealtimeConfig, { driver: 'pusher' }>;

/** How long a trigger may take before it counts as failed. */
const TRIGGER_TIMEOUT_MS = 5_000;
/** How long the readiness probe may take. */
const CHECK_TIMEOUT_MS = 2_000;

/**
 * Notifications go to Pusher Channels, on private channels only the users who may see the project
 * can join (our POST /api/realtime/pusher-auth decides, see {@link pusherChannelsFor}):
 * `private-projects` and `private-dashboard` for the admins, and `private-user-<pocId>` for the
 * project's POC, and `private-customer-<customerId>` for the CLIENTs of its customer, with the literal event names (`project-updated` {id}, `stats-updated` {}). The public
 * `projects`/`dashboard` channels of older front ends get them too only with PUSHER_PUBLIC_CHANNELS=true
 * (anyone holding the app key then learns every project id).
 * Each message Pusher accepted is also handed to this instance's own subscribers, so GET /api/realtime
 * keeps working; SSE clients see only what their own instance sent — SSE across instances needs the redis driver.
 */
export class PusherBroker implements RealtimeBroker {
  readonly driver = 'pusher';
  readonly #subscribers = new Subscribers();
  readonly #pusher: Pusher;
  readonly #probe: Pusher;

  constructor(readonly settings: PusherSettings) {
    const base = { appId: settings.appId, key: settings.key, secret: settings.secret, useTLS: settings.useTLS };
    // PUSHER_HOST (with PUSHER_PORT) wins over PUSHER_CLUSTER, as in the SDK.
    const options: Pusher.Options = settings.host
      ? { ...base, host: settings.host, ...(settings.port === undefined ? {} : { port: String(settings.port) }) }
      : { ...base, cluster: settings.cluster! };
    this.#pusher = new Pusher({ ...options, timeout: TRIGGER_TIMEOUT_MS });
    this.#probe = new Pusher({ ...options, timeout: CHECK_TIMEOUT_MS });
  }

  async publish(message: RealtimeMessage): Promise<void> {
    this.#subscribers.assertOpen(message);
    if (message.channel === SESSIONS_CHANNEL) {
      this.#subscribers.deliver(message);
      // A subscription outlives its authorization: what a user may hear changed (role, customer, deactivated,
      // every session ended), so their Pusher connections are ended and rejoin only what they may now.
      const userId = message.event === 'user-changed' ? message.payload.userId : 'userId' in message.payload ? message.payload.userId : undefined;
      if (userId) await this.#terminate(userId);
      return;
    }
    const notification = message;
    try {
      const res = await this.#pusher.trigger(pusherChannelsFor(notification, this.settings.publicChannels), notification.event, notification.payload);
      await res.text(); // read to the end, so the connection is free for the next request
    } catch (err) {
      throw failure(`${notification.event} was not sent`, err, TRIGGER_TIMEOUT_MS);
    }
    // Local delivery keeps GET /api/realtime working on this instance; SSE across instances needs the redis driver.
    this.#subscribers.deliver(notification);
  }

  /** Pusher's channel authorization: the signature that lets this socket join the channel, or null when the user may not. */
  authorizeChannel(user: { id: string; role: string; customerId?: string | null }, socketId: string, channel: string): { auth: string } | null {
    if (!mayJoinPusherChannel(user, channel)) return null;
    return this.#pusher.authorizeChannel(socketId, channel);
  }

  /** Pusher's user authentication: the signature that signs this socket in as the user, so their connections can be ended. */
  authenticateUser(user: { id: string }, socketId: string): { auth: string; user_data: string } {
    return this.#pusher.authenticateUser(socketId, { id: user.id });
  }

  async #terminate(userId: string): Promise<void> {
    try {
      await (await this.#pusher.terminateUserConnections(userId)).text();
    } catch (err) {
      throw failure("the user's connections were not ended", err, TRIGGER_TIMEOUT_MS);
    }
  }

  subscribe(listener: (m: RealtimeMessage) => void): () => void {
    return this.#subscribers.add(listener);
  }

  /** A cheap signed call: the list of occupied channels. */
  async check(): Promise<void> {
    try {
      await (await this.#probe.get({ path: '/channels' })).text();
    } catch (err) {
      throw failure('channel list not read', err, CHECK_TIMEOUT_MS);
    }
  }

  async close(): Promise<void> {
    this.#subscribers.close();
  }
}

/** The private channel of one user (their own projects' events). */
export const userChannel = (userId: string) => `private-user-${userId}`;
/** The private channel of one customer's CLIENTs (their company's projects' events). */
export const customerChannel = (customerId: string) => `private-customer-${customerId}`;
/** The admins' private copy of one of our channels. */
export const adminChannel = (channel: string) => `private-${channel}`;

/** Where a notification goes on Pusher: the admins' private channel, the POC's own, and the public one only when asked for. */
export function pusherChannelsFor(n: Notification, publicChannels: boolean): string[] {
  const channels = [adminChannel(n.channel)];
  if (n.ownerId) channels.push(userChannel(n.ownerId));
  // An internal note's notifications never go where a CLIENT, or anyone holding the app key, could read them.
  if (n.customerId && !n.internal) channels.push(customerChannel(n.customerId));
  if (publicChannels && !n.internal) channels.push(n.channel);
  return channels;
}

/**
 * Whether a user may join a private channel of ours (Pusher's channel authorization): admins the
 * admins' channels, anyone their own, a CLIENT their customer's. A subscription, once made, lasts
 * until its connection ends: when a user's access changes, their connections are ended
 * (terminateUserConnections), which reaches the sockets signed in with Pusher's user authentication
 * (POST /api/realtime/pusher-user-auth); a front end that never signs in keeps what it joined until it reconnects.
 */
export function mayJoinPusherChannel(user: { id: string; role: string; customerId?: string | null }, channel: string): boolean {
  if (channel === userChannel(user.id)) return true;
  if (user.role === 'CLIENT' && user.customerId && channel === customerChannel(user.customerId)) return true;
  return user.role === 'ADMIN' && (channel === adminChannel('projects') || channel === adminChannel('dashboard'));
}

/** The SDK's RequestError as a plain Error whose message says what went wrong (status and Pusher's answer, or the network error). */
function failure(what: string, err: unknown, timeoutMs: number): Error {
  const e = err as { message?: string; status?: number; body?: string; error?: { name?: string; message?: string } };
  if (typeof e?.status === 'number') {
    const said = (e.body ?? '').trim().replace(/\s+/g, ' ').slice(0, 200);
    return new Error(`Pusher refused the request: ${what} (${e.status}${said ? ` ${said}` : ''})`, { cause: err });
  }
  const reason = e?.error?.name === 'AbortError' ? `no answer within ${timeoutMs} ms` : (e?.error?.message ?? e?.message ?? String(err));
  return new Error(`Pusher is unavailable: ${what} (${reason})`, { cause: err });
}
