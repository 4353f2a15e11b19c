import type { User } from '../domain/model.js';
import { onLocalSignal } from '../realtime/index.js';
import { type RealtimeBroker, type RealtimeMessage, SESSIONS_CHANNEL } from '../realtime/types.js';

/** What a session cookie resolved to: the live session's user and its expiry, as the database answered. */
export interface CachedSession {
  user: User;
  expiresAt: string;
}

interface Entry extends CachedSession {
  /** Date.now() when the database answered: the entry is used for at most SESSION_CACHE_MS after it. */
  resolvedAt: number;
  /** The broker's signal epoch then: a different one now means signals may have been missed since. */
  epoch: number;
}

/**
 * A session cookie's resolution, kept for a short burst of requests (SESSION_CACHE_MS) so that they
 * need not each read the session and its user. Revocation stays immediate: every session signal
 * (signed out, password changed, deactivated, role or customer or any field of the user changed, an
 * API token revoked) forgets the entries it concerns, the ones published here before the publish
 * resolves (`onLocalSignal`) and the other instances' as they arrive. Entries are kept only while
 * the broker says it hears every instance's signals (`signalEpoch`); a gap drops them all. Bounded:
 * at most `maxEntries`, the least recently used going first, and none past its session's expiry.
 */
export class SessionCache {
  readonly #entries = new Map<string, Entry>();

  constructor(
    private readonly options: { ttlMs: number; maxEntries: number; epoch: () => number | null; now?: () => number },
  ) {}

  #now(): number {
    return (this.options.now ?? Date.now)();
  }

  /** The cached resolution of a token's hash, or undefined (unknown, too old, past its expiry, or signals possibly missed since). */
  get(tokenHash: string): CachedSession | undefined {
    const entry = this.#entries.get(tokenHash);
    if (!entry) return undefined;
    const now = this.#now();
    if (now - entry.resolvedAt >= this.options.ttlMs || now >= Date.parse(entry.expiresAt) || entry.epoch !== this.options.epoch()) {
      this.#entries.delete(tokenHash);
      return undefined;
    }
    // Map order is insertion order: moved to the end, it is the most recently used.
    this.#entries.delete(tokenHash);
    this.#entries.set(tokenHash, entry);
    return entry;
  }

  /**
   * Keeps a resolution read from the database at `resolvedAt` (taken before the read, so a signal
   * that came during it is not overtaken: see `forget*`), unless signals cannot be relied on now.
   */
  set(tokenHash: string, session: CachedSession, resolvedAt: number, epoch: number | null): void {
    if (epoch === null || epoch !== this.options.epoch() || resolvedAt <= this.#forgottenAt) return;
    this.#entries.delete(tokenHash);
    this.#entries.set(tokenHash, { ...session, resolvedAt, epoch });
    if (this.#entries.size > this.options.maxEntries) this.#entries.delete(this.#entries.keys().next().value!);
  }

  /** The session's sliding expiry moved (the database has the new one): a kept entry follows it. */
  renewed(tokenHash: string, expiresAt: string): void {
    const entry = this.#entries.get(tokenHash);
    if (entry) entry.expiresAt = expiresAt;
  }

  /** When something was last forgotten: a read that started before it may have seen the state before the change. */
  #forgottenAt = -Infinity;

  /** The epoch to hand to `set` for a read starting now. */
  epoch(): number | null {
    return this.options.epoch();
  }

  /** Drops what a session signal concerns (other messages are ignored). */
  apply(message: RealtimeMessage): void {
    if (message.channel !== SESSIONS_CHANNEL) return;
    const p = (message.payload ?? {}) as Record<string, unknown>;
    if (typeof p.tokenHash === 'string') this.forgetSession(p.tokenHash);
    else if (typeof p.userId === 'string') this.forgetUser(p.userId, typeof p.exceptTokenHash === 'string' ? p.exceptTokenHash : undefined);
  }

  forgetSession(tokenHash: string): void {
    this.#forgottenAt = this.#now();
    this.#entries.delete(tokenHash);
  }

  forgetUser(userId: string, exceptTokenHash?: string): void {
    this.#forgottenAt = this.#now();
    for (const [hash, entry] of this.#entries) if (entry.user.id === userId && hash !== exceptTokenHash) this.#entries.delete(hash);
  }

  get size(): number {
    return this.#entries.size;
  }
}

/**
 * The session cache of one instance, fed by its broker's session signals (this instance's and every
 * other's), or null when SESSION_CACHE_MS is 0 or the driver cannot tell that it hears every
 * instance's signals (Pusher: signals stay within an instance).
 */
export function sessionCacheFor(broker: RealtimeBroker, options: { ttlMs: number; maxEntries: number }): { cache: SessionCache; close(): void } | null {
  const signalEpoch = broker.signalEpoch?.bind(broker);
  if (options.ttlMs <= 0 || !signalEpoch) return null;
  const cache = new SessionCache({ ...options, epoch: signalEpoch });
  const unsubscribe = [broker.subscribe((m) => cache.apply(m)), onLocalSignal(broker, (m) => cache.apply(m))];
  return {
    cache,
    close: () => {
      for (const u of unsubscribe) u();
    },
  };
}
