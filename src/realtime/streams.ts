import type { LoggedChange } from '../db/activity.js';
import type { Store } from '../db/store.js';
import type { Role } from '../domain/model.js';
import type { Log } from '../logger.js';
import { type Viewer, maySeeEntry, seesEverything, viewerOf } from '../domain/visibility.js';
import { randomBytes } from 'node:crypto';
import { EventIds } from './event-ids.js';
import { onLocalSignal } from './index.js';
import { eventId, positionOf, replayStart, seqOfEvent } from './scope.js';
import { CHANNELS, type Channel, END_REASONS, type EndReason, EVENTS, type RealtimeBroker, type RealtimeMessage, SESSIONS_CHANNEL, type SessionsEnded } from './types.js';
import { nowMs } from '../clock.js';

/** The expiry of a token that has none. */
const NEVER = '9999-12-31T23:59:59.999Z';

/** What the hub writes to one open stream: server-sent-event text, formatted once for every stream it goes to. */
export interface StreamSink {
  write(text: string): void;
  /** Writes the last text, then ends the stream. */
  end(text: string): void;
  /** Closes without a word (shutdown, or a client too slow to keep up: it reconnects and is replayed to). */
  close(): void;
}

/** Server-sent-event messages (the text/event-stream format); ids as the viewer sees them (event-ids.ts). */
export const sse = {
  event: (id: string, event: string, data: unknown) => `id: ${id}\nevent: ${event}\ndata: ${JSON.stringify(data)}\n\n`,
  /** Moves the client's Last-Event-ID without an event; with ping, also the keep-alive comment. */
  position: (id: string, ping = false) => `${ping ? ': ping\n' : ''}id: ${id}\n\n`,
  sessionEnded: (reason: EndReason) => `event: session-ended\ndata: ${JSON.stringify({ reason })}\n\n`,
};

export interface StreamRequest {
  /** The user behind the stream (viewerOf); a change of role or customer re-scopes it. */
  viewer: Viewer;
  tokenHash: string;
  expiresAt: string;
  /** Opened with an API token (tokenHash is the token's): a password change does not end it. */
  apiToken?: boolean;
  channels: Set<Channel>;
  /** Last-Event-ID of a reconnecting client. */
  lastEventId?: string;
  sink: StreamSink;
}

export interface HubOptions {
  replay: { windowHours: number; maxEvents: number };
  log: Pick<Log, 'warn'>;
  /** How often every stream gets a ping carrying the current position. */
  pingMs?: number;
  /** How often the log is read even without a notification (a safety net for a lost one). */
  pollMs?: number;
}

interface OpenStream {
  readonly request: StreamRequest;
  viewer: Viewer;
  /** The highest event number written; nothing at or below it is written again. */
  lastSent: number;
  /** Changes that arrived while the stream's replay was being read. */
  pending: LoggedChange[] | null;
  expiry?: NodeJS.Timeout;
  ended: boolean;
}

/** A change's two messages per viewer, formatted once however many of the viewer's streams they go to (ids are sealed per viewer). */
const frameCache = new WeakMap<LoggedChange, Map<string, Record<Channel, string>>>();
function framesOf(change: LoggedChange, viewerId: string, ids: EventIds): Record<Channel, string> {
  let byViewer = frameCache.get(change);
  if (!byViewer) frameCache.set(change, (byViewer = new Map()));
  let frames = byViewer.get(viewerId);
  if (!frames) {
    frames = {
      projects: sse.event(ids.encode(viewerId, eventId(change.seq, CHANNELS.PROJECTS)), EVENTS.PROJECT_UPDATED, { channel: CHANNELS.PROJECTS, payload: { id: change.projectId } }),
      dashboard: sse.event(ids.encode(viewerId, eventId(change.seq, CHANNELS.DASHBOARD)), EVENTS.STATS_UPDATED, { channel: CHANNELS.DASHBOARD, payload: {} }),
    };
    byViewer.set(viewerId, frames);
  }
  return frames;
}

/** The secret the event ids are sealed with: one per database, so the same on every instance and across restarts. */
const EVENT_ID_SECRET = 'realtime-event-ids';

/**
 * The most streams one user may hold open on one instance (issue 33, item 17: one CLIENT opened
 * 1,000). A person with the web app open in a few dozen windows stays under it; the next one is
 * refused (429), not the oldest closed: the web app retries a refused stream with a growing wait,
 * so a window gets its stream back as another closes, where closing the oldest would make the
 * windows take the streams from one another in turn.
 */
export const MAX_STREAMS_PER_USER = 32;

/** Changes read from the log per query. */
const BATCH = 500;
/** Node's timers hold at most 2^31−1 ms (24.8 days). */
const MAX_TIMER_MS = 2 ** 31 - 1;

/**
 * The open realtime streams of this process. The activity log is the event log: a notification
 * (from this or any instance) only says "read the log", and the hub reads the entries after its
 * position once for all its streams, in order, then writes each stream what its user may see at
 * that moment (domain/visibility.ts, judging the project as it is now). So a
 * stream's events are ordered and gap-free, a reconnecting stream is replayed from the same log,
 * and filtering costs no query per stream.
 *
 * Streams end with their session: logout, deactivation and password changes arrive as session
 * signals (from any instance), expiry by a timer per stream, and a periodic sweep (the `realtime
 * session sweep` job, REALTIME_SESSION_SWEEP_MS: jobs.ts) catches a signal lost in an outage.
 */
export class StreamHub {
  readonly #streams = new Set<OpenStream>();
  readonly #byUser = new Map<string, Set<OpenStream>>();
  readonly #byToken = new Map<string, Set<OpenStream>>();
  /** Every change up to here has been handed to every stream. */
  #seq = 0;
  /** Changes were announced while no stream was open, and not read: #seq is behind the log. */
  #behind = false;
  /** The catch-up under way: every stream opening meanwhile waits for it, not only the first. */
  #catchingUp: Promise<void> | null = null;
  #reading: Promise<void> | null = null;
  #readAgain = false;
  #timers: NodeJS.Timeout[] = [];
  #unsubscribe: (() => void) | undefined;
  #closed = false;
  #ids: EventIds | undefined;
  /** Streams held per user, counted from the request's admission (before the stream is open) to its connection's close. */
  readonly #held = new Map<string, number>();

  constructor(
    private readonly store: Store,
    private readonly broker: RealtimeBroker,
    private readonly options: HubOptions,
  ) {}

  async start(): Promise<void> {
    const secret = await this.store.secrets.getOrCreate(EVENT_ID_SECRET, () => randomBytes(32).toString('base64'));
    this.#ids = new EventIds(Buffer.from(secret, 'base64'));
    this.#seq = await this.store.activity.latestSeq();
    // This instance's own signals reach its streams at once, even when the transport cannot carry
    // them (Redis down): the transport's copy that may follow finds them ended already.
    const unsubscribe = [this.broker.subscribe((m) => this.#receive(m)), onLocalSignal(this.broker, (m) => this.#receive(m))];
    this.#unsubscribe = () => unsubscribe.forEach((u) => u());
    const every = (ms: number, fn: () => void) => {
      const t = setInterval(fn, ms);
      t.unref();
      this.#timers.push(t);
    };
    every(this.options.pingMs ?? 20_000, () => this.#ping());
    every(this.options.pollMs ?? 5_000, () => {
      if (this.#streams.size) this.#read();
    });
  }

  /** The id a stream's viewer sees for an event number. */
  #idFor(stream: OpenStream, n: number): string {
    return this.#ids!.encode(stream.viewer.id, n);
  }

  /**
   * Takes one of the user's stream places (MAX_STREAMS_PER_USER), counted at once so parallel
   * requests cannot pass the cap together: a release function to call when the connection closes
   * (once), or null when the user holds them all.
   */
  admit(userId: string, max = MAX_STREAMS_PER_USER): (() => void) | null {
    const held = this.#held.get(userId) ?? 0;
    if (held >= max) return null;
    this.#held.set(userId, held + 1);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const left = (this.#held.get(userId) ?? 1) - 1;
      if (left > 0) this.#held.set(userId, left);
      else this.#held.delete(userId);
    };
  }

  /** Open streams (for metrics and tests). */
  get size(): number {
    return this.#streams.size;
  }

  /** Opens a stream: replays what a reconnecting client missed, then live events. Resolves once it is live. */
  async open(request: StreamRequest): Promise<{ close(): void }> {
    const stream: OpenStream = { request, viewer: viewerOf(request.viewer), lastSent: 0, pending: [], ended: false };
    const handle = { close: () => this.#forget(stream) };
    if (this.#closed) {
      request.sink.close();
      return handle;
    }
    // Changes announced while no stream was open were not read (nobody to hand them to): catch up first.
    if (this.#behind || this.#catchingUp) await this.#catchUp().catch((err: unknown) => this.options.log.warn({ err }, 'realtime could not read the log position'));
    // Subscribed first (#add; live changes wait in pending), then read, then drop what was already written: no gap, no duplicate.
    this.#add(stream);
    // A change announced during the catch-up found no stream and was not read: read it now, for this one.
    if (this.#behind) this.#read();
    this.#armExpiry(stream, request.expiresAt);
    // Everything up to here was read on its notification; a lost one is caught by the poll.
    const seqAtOpen = this.#seq;
    let base = 0;
    try {
      // The session as it is now: a logout, deactivation or role change that raced this request found no stream to end or re-scope.
      await this.#check([stream]);
      if (stream.ended) return handle;
      base = await this.#baseOf(stream, seqAtOpen);
      if (request.lastEventId === undefined) {
        stream.lastSent = positionOf(base);
        this.#write(stream, sse.position(this.#idFor(stream, stream.lastSent)));
      } else {
        await this.#replay(stream, request.lastEventId, base);
      }
    } catch (err) {
      this.options.log.warn({ err }, 'realtime could not open the stream from the log; the client is told to refetch');
      stream.lastSent = Math.max(stream.lastSent, positionOf(base));
      this.#write(stream, sse.event(this.#idFor(stream, positionOf(base)), 'reset', {}));
    }
    const pending = stream.pending ?? [];
    stream.pending = null;
    for (const change of pending) this.#send(stream, change);
    return handle;
  }

  /**
   * Where a stream starts: for a viewer who sees everything, at the log's position; anyone else at
   * the latest change they may see, so that what a stream says of its position tells nothing of
   * other people's activity.
   */
  #baseOf(stream: OpenStream, seqAtOpen: number): Promise<number> {
    if (seesEverything(stream.viewer)) return Promise.resolve(seqAtOpen);
    return this.store.activity.latestSeqFor(stream.viewer, seqAtOpen);
  }

  /** Ends every stream without a word (shutdown) and stops listening. */
  close(): void {
    this.#closed = true;
    this.#unsubscribe?.();
    for (const t of this.#timers) clearInterval(t);
    for (const stream of [...this.#streams]) {
      this.#forget(stream);
      stream.request.sink.close();
    }
  }

  async #replay(stream: OpenStream, lastEventId: string, base: number): Promise<void> {
    const { windowHours, maxEvents } = this.options.replay;
    const { channels } = stream.request;
    // Only an id issued to this viewer names a position; anything else is reset without a look at the log.
    const n = this.#ids!.decode(stream.viewer.id, lastEventId);
    const seq = n === undefined ? undefined : seqOfEvent(n);
    const writtenAt = seq ? await this.store.activity.seqWrittenAt(seq) : undefined;
    const start = replayStart(n, { writtenAt }, nowMs(), windowHours);
    if (start.replay) {
      const changes = await this.store.activity.changesAfter(start.fromSeq, maxEvents + 1, stream.viewer);
      const due = changes.flatMap((c) => [...channels].map((ch) => eventId(c.seq, ch))).filter((id) => id > start.afterId);
      if (due.length <= maxEvents) {
        stream.lastSent = start.afterId;
        for (const change of changes) this.#send(stream, change);
        return;
      }
    }
    // Too old, too many or not ours: the client refetches what it shows; what comes after follows live.
    stream.lastSent = positionOf(base);
    this.#write(stream, sse.event(this.#idFor(stream, stream.lastSent), 'reset', {}));
  }

  #receive(message: RealtimeMessage): void {
    if (message.channel === SESSIONS_CHANNEL) this.#signal(message.event, message.payload as unknown);
    // One read per change: its stats-updated always follows its project-updated.
    else if (message.channel === CHANNELS.PROJECTS) this.#read();
  }

  /** The hub's position moves to the end of the log, without reading what it passes (no stream was open to be told). */
  #catchUp(): Promise<void> {
    return (this.#catchingUp ??= (async () => {
      this.#behind = false;
      try {
        const latest = await this.store.activity.latestSeq();
        // A read under way (a stream opened meanwhile) hands out what it reads and moves #seq itself.
        if (!this.#reading) this.#seq = Math.max(this.#seq, latest);
      } catch (err) {
        this.#behind = true; // the next stream tries again
        throw err;
      } finally {
        this.#catchingUp = null;
      }
    })());
  }

  /**
   * Reads the log after the hub's position and hands each change to every stream; one reader at a
   * time, again if asked meanwhile. With no stream open there is nobody to hand a change to: the
   * read waits for the next stream (one query per change less on an instance nobody watches).
   */
  #read(): void {
    if (!this.#streams.size) {
      this.#behind = true;
      return;
    }
    this.#behind = false;
    if (this.#reading) {
      this.#readAgain = true;
      return;
    }
    this.#reading = (async () => {
      do {
        this.#readAgain = false;
        for (;;) {
          const changes = await this.store.activity.changesAfter(this.#seq, BATCH);
          for (const change of changes) {
            this.#seq = change.seq;
            for (const stream of this.#streams) {
              if (stream.pending) stream.pending.push(change);
              else this.#send(stream, change);
            }
          }
          if (changes.length < BATCH) break;
        }
      } while (this.#readAgain && !this.#closed);
    })()
      .catch((err: unknown) => this.options.log.warn({ err }, 'realtime could not read the activity log; retrying on the next notification'))
      .finally(() => {
        this.#reading = null;
      });
  }

  /** Writes one change's events to a stream, if its user may see the entry now (the project; an internal note's, not a CLIENT) and has not had them yet. */
  #send(stream: OpenStream, change: LoggedChange): void {
    if (stream.ended || !maySeeEntry(stream.viewer, { entityType: 'project', internal: change.internal }, change.project)) return;
    const { channels } = stream.request;
    const frames = framesOf(change, stream.viewer.id, this.#ids!);
    for (const channel of [CHANNELS.PROJECTS, CHANNELS.DASHBOARD] as const) {
      if (!channels.has(channel)) continue;
      const id = eventId(change.seq, channel);
      if (id <= stream.lastSent) continue;
      stream.lastSent = id;
      this.#write(stream, frames[channel]);
    }
  }

  /** A sink that throws (a socket gone bad, a client far behind) loses its stream, never the others. */
  #write(stream: OpenStream, text: string): void {
    try {
      stream.request.sink.write(text);
    } catch (err) {
      this.options.log.warn({ err }, 'a realtime stream failed; closed');
      this.#forget(stream);
      stream.request.sink.close();
    }
  }

  #ping(): void {
    const position = positionOf(this.#seq);
    for (const stream of this.#streams) {
      if (stream.pending) continue;
      // Everything up to the hub's position has been handed to the stream, so the reconnect of a viewer who sees
      // everything may start there; anyone else's position moves only with their own events (it would tell when others' changes happen).
      if (seesEverything(stream.viewer) && position > stream.lastSent) stream.lastSent = position;
      this.#write(stream, sse.position(this.#idFor(stream, stream.lastSent), true));
    }
  }

  #signal(event: string, payload: unknown): void {
    const p = (payload ?? {}) as Record<string, unknown>;
    if (event === 'session-ended' && END_REASONS.includes(p.reason as EndReason)) {
      const ended = p as SessionsEnded;
      const streams = 'tokenHash' in ended ? this.#byToken.get(ended.tokenHash) : this.#byUser.get(ended.userId);
      for (const stream of [...(streams ?? [])]) {
        if ('userId' in ended && ended.exceptTokenHash === stream.request.tokenHash) continue;
        // API tokens outlive a password change (they are revoked one by one, or by deactivation).
        if ('userId' in ended && ended.reason === 'password-changed' && stream.request.apiToken) continue;
        this.#end(stream, ended.reason);
      }
    } else if (event === 'user-changed' && typeof p.userId === 'string') {
      for (const stream of [...(this.#byUser.get(p.userId) ?? [])]) {
        if (p.active === false) this.#end(stream, 'deactivated');
        else if (typeof p.role === 'string') {
          // A signal from an older instance carries no customer: the stream keeps the one it had.
          const customerId = p.customerId === undefined ? stream.viewer.customerId : (p.customerId as string | null);
          stream.viewer = viewerOf({ id: stream.viewer.id, role: p.role as Role, customerId });
        }
      }
    }
  }

  #end(stream: OpenStream, reason: EndReason): void {
    if (stream.ended) return;
    this.#forget(stream);
    try {
      stream.request.sink.end(sse.sessionEnded(reason));
    } catch {
      stream.request.sink.close();
    }
  }

  /** At the session's expiry, one look at the session: ended, or moved on (sliding expiry), or gone. */
  #armExpiry(stream: OpenStream, expiresAt: string): void {
    clearTimeout(stream.expiry);
    const delay = Math.min(MAX_TIMER_MS, Math.max(0, Date.parse(expiresAt) - nowMs()) + 50);
    stream.expiry = setTimeout(() => void this.#check([stream]), delay);
    stream.expiry.unref();
  }

  /** One query for the sessions of all open streams; ends those whose session is over, re-scopes changed roles. Never rejects (a failure is logged). */
  async sweep(): Promise<void> {
    if (this.#streams.size) await this.#check([...this.#streams]);
  }

  async #check(streams: OpenStream[]): Promise<void> {
    try {
      for (let i = 0; i < streams.length; i += BATCH) {
        const chunk = streams.slice(i, i + BATCH);
        const sessions = new Map<string, { expiresAt: string; role: Role; active: boolean; customerId: string | null }>(
          (await this.store.sessions.findMany([...new Set(chunk.filter((s) => !s.request.apiToken).map((s) => s.request.tokenHash))])).map((s) => [s.tokenHash, s]),
        );
        // Streams opened with an API token: a revoked token is as good as no session.
        for (const t of await this.store.apiTokens.findMany([...new Set(chunk.filter((s) => s.request.apiToken).map((s) => s.request.tokenHash))])) {
          if (!t.revoked) sessions.set(t.tokenHash, { expiresAt: t.expiresAt ?? NEVER, role: t.role, active: t.active, customerId: t.customerId });
        }
        const now = nowMs();
        for (const stream of chunk) {
          if (stream.ended) continue;
          const session = sessions.get(stream.request.tokenHash);
          if (!session) {
            const user = await this.store.users.findById(stream.viewer.id);
            this.#end(stream, user && !user.active ? 'deactivated' : 'signed-out');
          } else if (!session.active) this.#end(stream, 'deactivated');
          else if (Date.parse(session.expiresAt) <= now) this.#end(stream, 'expired');
          else {
            stream.viewer = viewerOf({ id: stream.viewer.id, role: session.role, customerId: session.customerId });
            this.#armExpiry(stream, session.expiresAt);
          }
        }
      }
    } catch (err) {
      this.options.log.warn({ err }, 'realtime could not check the open streams’ sessions; trying again later');
    }
  }

  #add(stream: OpenStream): void {
    this.#streams.add(stream);
    const index = (map: Map<string, Set<OpenStream>>, key: string) => {
      let set = map.get(key);
      if (!set) map.set(key, (set = new Set()));
      set.add(stream);
    };
    index(this.#byUser, stream.viewer.id);
    index(this.#byToken, stream.request.tokenHash);
  }

  #forget(stream: OpenStream): void {
    stream.ended = true;
    clearTimeout(stream.expiry);
    if (!this.#streams.delete(stream)) return;
    const unindex = (map: Map<string, Set<OpenStream>>, key: string) => {
      const set = map.get(key);
      set?.delete(stream);
      if (set?.size === 0) map.delete(key);
    };
    unindex(this.#byUser, stream.viewer.id);
    unindex(this.#byToken, stream.request.tokenHash);
  }
}
