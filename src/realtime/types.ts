import type { Role } from '../domain/model.js';

/** The literal channel and event names of interface.md, used by every driver. */
export const CHANNELS = { PROJECTS: 'projects', DASHBOARD: 'dashboard' } as const;
export const EVENTS = { PROJECT_UPDATED: 'project-updated', STATS_UPDATED: 'stats-updated' } as const;
/** Between instances only, never to a browser: sessions that ended and users whose role changed. */
export const SESSIONS_CHANNEL = 'sessions';

export type Channel = (typeof CHANNELS)[keyof typeof CHANNELS];

/** Why a session ended, as the last event of its streams says (interface.md, Realtime). */
export const END_REASONS = ['signed-out', 'deactivated', 'password-changed', 'expired'] as const;
export type EndReason = (typeof END_REASONS)[number];

/** The specification's notifications (part 6): project-updated {id} on projects, stats-updated {} on dashboard. */
export interface Notification {
  channel: Channel;
  event: string;
  payload: Record<string, unknown>;
  /** The project's POC: who besides the admins may receive it (Pusher's private channel of that user); never sent to a viewer. */
  ownerId?: string | null;
  /** The project's customer: its CLIENTs may receive it too (Pusher's private channel of that customer); never sent to a viewer. */
  customerId?: string | null;
  /** About an internal note: only for the shop's people (Pusher: never a public channel); never sent to a viewer. */
  internal?: boolean;
}

/** A change to who may hold a stream or see what, for the streams of every instance. */
export type SessionSignal =
  | { channel: typeof SESSIONS_CHANNEL; event: 'session-ended'; payload: SessionsEnded }
  | { channel: typeof SESSIONS_CHANNEL; event: 'user-changed'; payload: { userId: string; role: Role; active: boolean; customerId?: string | null } };

/** One session (by its token's hash), or every session of a user but one. */
export type SessionsEnded = { reason: EndReason } & ({ tokenHash: string } | { userId: string; exceptTokenHash?: string });

export type RealtimeMessage = Notification | SessionSignal;

/**
 * Carries messages to every subscriber of the service (the SSE streams of this process, and of
 * other instances for the drivers that fan out). Every driver passes the contract in
 * realtime/contract.test.ts, and is made by the factory in realtime/index.ts, the one place a
 * driver is chosen. Connection trouble never escapes as an unhandled `'error'` event.
 */
export interface RealtimeBroker {
  readonly driver: string;
  /**
   * Resolves once the message is handed to the transport; rejects when it cannot be, within a
   * bound (seconds), never waiting for a transport that is away. Messages published one after
   * the other (each awaited) reach each subscriber once, in that order, session signals
   * included; subscribers get the channel, event and payload (`ownerId` is the transport's routing).
   * Rejects once the broker is closed.
   */
  publish(message: RealtimeMessage): Promise<void>;
  /**
   * Calls listener for every message published anywhere; returns the unsubscribe function. A
   * listener that throws stops neither the other listeners nor the broker. Once the broker is
   * closed it registers nothing (the listener is never called).
   */
  subscribe(listener: (m: RealtimeMessage) => void): () => void;
  /** Throws when the transport cannot be reached (readiness), within a bound. */
  check(): Promise<void>;
  /**
   * Drivers that hand every instance's session signals to this one's subscribers: a number that
   * stays the same for as long as none can have been missed, or null while some may be (no
   * subscription). What lets an instance keep a session's resolution for a moment (http/session-cache.ts);
   * absent: signals may stay within an instance (Pusher), nothing is kept.
   */
  signalEpoch?(): number | null;
  /** Releases every connection and timer of the broker, so nothing of it keeps the process alive. Closing twice is fine. */
  close(): Promise<void>;
  /**
   * Drivers whose browsers subscribe elsewhere (Pusher's private channels): the signature that lets
   * a socket join a channel, or null when this user may not.
   */
  authorizeChannel?(user: { id: string; role: string; customerId?: string | null }, socketId: string, channel: string): { auth: string } | null;
  /** Pusher's user authentication (its sockets can then be ended when the user's access changes). */
  authenticateUser?(user: { id: string }, socketId: string): { auth: string; user_data: string };
}
