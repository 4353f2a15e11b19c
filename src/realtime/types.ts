/** The literal channel and event names of interface.md, used by every driver. */
export const CHANNELS = { PROJECTS: 'projects', DASHBOARD: 'dashboard' } as const;
export const EVENTS = { PROJECT_UPDATED: 'project-updated', STATS_UPDATED: 'stats-updated' } as const;

export type Channel = (typeof CHANNELS)[keyof typeof CHANNELS];

export interface Notification {
  channel: Channel;
  event: string;
  payload: Record<string, unknown>;
}

/**
 * Carries notifications to every subscriber of the service (SSE streams of this process, and of
 * other instances for the drivers that fan out).
 */
export interface RealtimeBroker {
  readonly driver: string;
  /** Resolves once the notification is handed to the transport; rejects when it cannot be. */
  publish(notification: Notification): Promise<void>;
  /** Calls listener for every notification published anywhere; returns the unsubscribe function. */
  subscribe(listener: (n: Notification) => void): () => void;
  /** Throws when the transport cannot be reached (readiness). */
  check(): Promise<void>;
  close(): Promise<void>;
  /** For drivers with connections of their own: where to report trouble no caller hears of (warn). */
  useLogger?(log: RealtimeLogger): void;
}

/** The part of the service's (pino) logger a driver uses. */
export interface RealtimeLogger {
  warn(obj: object, msg: string): void;
  info(msg: string): void;
}
