import { Redis, type RedisOptions } from 'ioredis';
import type { RealtimeConfig } from '../../config.js';
import { Subscribers } from '../subscribers.js';
import type { Log } from '../../logger.js';
import { CHANNELS, type RealtimeBroker, type RealtimeMessage, SESSIONS_CHANNEL } from '../types.js';

type RedisSettings = Extract<RealtimeConfig, { driver: 'redis' }>;

/** How long start-up waits for both connections (and the subscription) before giving up. */
const START_TIMEOUT_MS = 10_000;
/** TCP connect timeout of each attempt. */
const CONNECT_TIMEOUT_MS = 5_000;
/** How long a command (PUBLISH, PING, SUBSCRIBE) may wait for its answer on a connection that looks alive. */
const COMMAND_TIMEOUT_MS = 2_000;

/**
 * Many instances: every message goes through Redis pub/sub, on `<prefix>:projects`,
 * `<prefix>:dashboard` and `<prefix>:sessions`, as JSON `{"event", "payload"}` (a notification only tells each instance to read the activity log, see realtime/streams.ts). One connection publishes, one subscribes;
 * each instance hands what its subscriber receives to its own listeners, its own notifications
 * included (so each arrives exactly once, in the order Redis delivers it).
 *
 * While Redis is away nothing waits for it: publish and check fail at once (no offline queue, a
 * command in flight fails when its connection drops, an unanswered one after COMMAND_TIMEOUT_MS,
 * which also drops the silent connection), and both connections reconnect in the background; the
 * subscriber subscribes again on each new connection, and check() fails until it has.
 */
export class RedisBroker implements RealtimeBroker {
  readonly driver = 'redis';
  readonly #subscribers = new Subscribers();
  readonly #publisher: Redis;
  readonly #subscriber: Redis;
  /** Redis channel name → our channel. */
  readonly #channels: Map<string, RealtimeMessage['channel']>;
  readonly #serviceLog: Log;
  /** Set once connect() succeeded: trouble during start-up is connect()'s to report (it fails), not the log's. */
  #started = false;
  #closing = false;
  /** The first connection error, which says more than the rejection of connect() ("Connection is closed."). */
  #firstError: unknown;
  /** Counts the subscriber's connections; a subscription counts only for the connection it was made on. */
  #connection = 0;
  #subscribed = false;
  #subscribing: { connection: number; done: Promise<void> } | undefined;

  private constructor(
    private readonly settings: RedisSettings,
    log: Log,
  ) {
    this.#serviceLog = log;
    this.#channels = new Map(([...Object.values(CHANNELS), SESSIONS_CHANNEL] as const).map((c) => [`${settings.channelPrefix}:${c}`, c]));
    const options: RedisOptions = {
      lazyConnect: true,
      connectTimeout: CONNECT_TIMEOUT_MS,
      commandTimeout: COMMAND_TIMEOUT_MS,
      // A connection that stops answering (a network partition) is dropped and made again.
      socketTimeout: COMMAND_TIMEOUT_MS,
      // Fail fast instead of queueing while disconnected; a command in flight when the connection
      // drops fails at once and is never sent again later.
      enableOfflineQueue: false,
      maxRetriesPerRequest: 0,
      autoResendUnfulfilledCommands: false,
      // The subscriber subscribes again itself on every connection (see #subscribe), so it knows when it is live.
      autoResubscribe: false,
      retryStrategy: (attempt) => Math.min(attempt * 250, 2_000),
    };
    this.#publisher = new Redis(settings.url, { ...options, connectionName: 'print-orders-publisher' });
    this.#subscriber = new Redis(settings.url, { ...options, connectionName: 'print-orders-subscriber' });
    this.#watch(this.#publisher, 'publisher');
    this.#watch(this.#subscriber, 'subscriber');

    this.#subscriber.on('message', (channel: string, message: string) => this.#receive(channel, message));
    this.#subscriber.on('close', () => {
      this.#connection++;
      this.#subscribed = false;
    });
    this.#subscriber.on('ready', () => {
      this.#subscribe().catch(() => {}); // reported in #subscribe
    });
  }

  /** Connects both connections and subscribes; rejects with a clear message (no credentials) when Redis cannot be used within START_TIMEOUT_MS. */
  static async connect(settings: RedisSettings, log: Log): Promise<RedisBroker> {
    const broker = new RedisBroker(settings, log);
    let timer: NodeJS.Timeout | undefined;
    try {
      await Promise.race([
        (async () => {
          await Promise.all([broker.#publisher.connect(), broker.#subscriber.connect()]);
          await broker.#subscribe();
        })(),
        new Promise((_, reject) => {
          timer = setTimeout(() => reject(new Error(`no answer within ${START_TIMEOUT_MS} ms`)), START_TIMEOUT_MS);
        }),
      ]);
    } catch (err) {
      await broker.close();
      const cause = broker.#firstError ?? err;
      throw new Error(`Could not connect to Redis at ${withoutCredentials(settings.url)}: ${messageOf(cause)}`, { cause });
    } finally {
      clearTimeout(timer);
    }
    broker.#started = true;
    return broker;
  }

  /** Where connection trouble is reported (warn): nowhere until started. */
  get #log(): Log | undefined {
    return this.#started ? this.#serviceLog : undefined;
  }

  async publish(message: RealtimeMessage): Promise<void> {
    this.#subscribers.assertOpen(message);
    const text = JSON.stringify({ event: message.event, payload: message.payload });
    try {
      await this.#publisher.publish(`${this.settings.channelPrefix}:${message.channel}`, text);
    } catch (err) {
      throw new Error(`Redis is unavailable: ${message.event} was not published (${reasonOf(this.#publisher, err)})`, { cause: err });
    }
  }

  subscribe(listener: (m: RealtimeMessage) => void): () => void {
    return this.#subscribers.add(listener);
  }

  /** The subscriber's connection while it is subscribed: a new connection may have missed messages in between. */
  signalEpoch(): number | null {
    return this.#subscribed ? this.#connection : null;
  }

  async check(): Promise<void> {
    if (!this.#subscribed) throw new Error(`Redis is unavailable: subscriber not subscribed, ${this.#subscriber.status}`);
    // The subscriber's PING also proves its subscription went through: Redis answers in order.
    const [published, subscribed] = await Promise.allSettled([this.#publisher.ping(), this.#subscriber.ping()]);
    for (const [role, connection, result] of [['publisher', this.#publisher, published], ['subscriber', this.#subscriber, subscribed]] as const) {
      if (result.status === 'rejected') {
        throw new Error(`Redis is unavailable: ${role} ${reasonOf(connection, result.reason)}`, { cause: result.reason });
      }
    }
  }

  async close(): Promise<void> {
    this.#closing = true;
    this.#subscribers.close();
    await Promise.all([this.#publisher, this.#subscriber].map(quit));
  }

  /** Subscribes on the subscriber's current connection (once per connection). */
  #subscribe(): Promise<void> {
    const connection = this.#connection;
    if (this.#subscribing?.connection === connection) return this.#subscribing.done;
    const done = this.#subscriber.subscribe(...this.#channels.keys()).then(
      () => {
        if (this.#connection === connection) this.#subscribed = true;
      },
      (err: unknown) => {
        if (this.#closing || this.#connection !== connection) throw err;
        this.#log?.warn({ err }, 'Redis subscriber could not subscribe; reconnecting');
        // A fresh connection subscribes again.
        this.#subscriber.disconnect(true);
        throw err;
      },
    );
    this.#subscribing = { connection, done };
    return done;
  }

  #receive(redisChannel: string, message: string): void {
    const channel = this.#channels.get(redisChannel);
    if (!channel) return;
    let received: RealtimeMessage;
    try {
      const parsed = JSON.parse(message) as { event?: unknown; payload?: unknown };
      if (typeof parsed.event !== 'string' || !parsed.payload || typeof parsed.payload !== 'object') throw new Error('not {event, payload}');
      // The shape of a sessions payload is checked where it is used (realtime/streams.ts).
      received = { channel, event: parsed.event, payload: parsed.payload } as RealtimeMessage;
    } catch (err) {
      this.#log?.warn({ err, channel: redisChannel }, 'ignored a malformed message from Redis');
      return;
    }
    this.#subscribers.deliver(received, (err) => this.#log?.warn({ err }, 'a realtime listener failed'));
  }

  /** Handles a connection's errors (never unhandled) and logs each outage once: when it starts and when it ends. */
  #watch(connection: Redis, role: string): void {
    let down = false;
    const lost = (err?: unknown) => {
      if (down || this.#closing || !this.#log) return;
      down = true;
      this.#log.warn({ err }, `Redis ${role} connection lost; reconnecting`);
    };
    connection.on('error', (err: unknown) => {
      this.#firstError ??= err;
      lost(err);
    });
    connection.on('close', () => lost());
    connection.on('ready', () => {
      if (!down) return;
      down = false;
      this.#log?.info(`Redis ${role} connection restored`);
    });
  }
}

async function quit(connection: Redis): Promise<void> {
  if (connection.status === 'ready') {
    try {
      await connection.quit();
      return;
    } catch {
      // fall through: drop it
    }
  }
  connection.disconnect();
}

const messageOf = (err: unknown): string => (err instanceof Error ? err.message : String(err));

/** Why a command failed, in words: a connection that is not up says so rather than quoting ioredis. */
function reasonOf(connection: Redis, err: unknown): string {
  if (connection.status !== 'ready') return `not connected, ${connection.status}`;
  return messageOf(err) === 'Command timed out' ? `no answer within ${COMMAND_TIMEOUT_MS} ms` : messageOf(err);
}

/** The URL as it can be shown: no user name or password. */
function withoutCredentials(url: string): string {
  try {
    const u = new URL(url);
    return `${u.protocol}//${u.host}${u.pathname === '/' ? '' : u.pathname}`;
  } catch {
    return 'REDIS_URL';
  }
}
