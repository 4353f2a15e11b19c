import Pusher from 'pusher';
import type { RealtimeConfig } from '../../config.js';
import { Subscribers } from '../subscribers.js';
import type { Notification, RealtimeBroker } from '../types.js';

type PusherSettings = Extract<RealtimeConfig, { driver: 'pusher' }>;

/** How long a trigger may take before it counts as failed. */
const TRIGGER_TIMEOUT_MS = 5_000;
/** How long the readiness probe may take. */
const CHECK_TIMEOUT_MS = 2_000;

/**
 * Notifications go to Pusher Channels (browsers subscribe there), with the literal channel and
 * event names: `trigger("projects", "project-updated", {id})`, `trigger("dashboard", "stats-updated", {})`.
 * Each one Pusher accepted is also handed to this instance's own subscribers, so GET /api/realtime
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

  async publish(notification: Notification): Promise<void> {
    try {
      const res = await this.#pusher.trigger(notification.channel, notification.event, notification.payload);
      await res.text(); // read to the end, so the connection is free for the next request
    } catch (err) {
      throw failure(`${notification.event} was not sent`, err, TRIGGER_TIMEOUT_MS);
    }
    // Local delivery keeps GET /api/realtime working on this instance; SSE across instances needs the redis driver.
    this.#subscribers.deliver(notification);
  }

  subscribe(listener: (n: Notification) => void): () => void {
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
    this.#subscribers.clear();
  }
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
