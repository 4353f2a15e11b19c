import type { Config } from '../config.js';
import type { Role } from '../domain/model.js';
import type { Log } from '../logger.js';
import { CHANNELS, EVENTS, type RealtimeBroker, type RealtimeMessage, SESSIONS_CHANNEL, type SessionsEnded } from './types.js';

export type { RealtimeBroker, Notification, RealtimeMessage } from './types.js';

/**
 * The configured realtime driver. Only the chosen driver's code (and SDK) is loaded. A new driver
 * is a folder beside memory/, redis/ and pusher/, one case here, and it passes realtime/contract.test.ts.
 * `log` hears the trouble no caller does (a driver's own connections lost and restored).
 */
export async function createRealtime(config: Pick<Config, 'realtime'>, log: Log): Promise<RealtimeBroker> {
  const realtime = config.realtime;
  switch (realtime.driver) {
    case 'memory': {
      const { MemoryBroker } = await import('./memory/index.js');
      return new MemoryBroker();
    }
    case 'redis': {
      const { RedisBroker } = await import('./redis/index.js');
      return RedisBroker.connect(realtime, log);
    }
    case 'pusher': {
      const { PusherBroker } = await import('./pusher/index.js');
      return new PusherBroker(realtime);
    }
  }
}

/**
 * Specification part 6: a project changed, so project lists and dashboards refresh; in this order.
 * Call it after the change's activity entry is committed: streams read what they send from the
 * activity log (realtime/streams.ts). `ownerId` (the project's POC; null: nobody, e.g. an internal note's
 * owner who is a CLIENT) and `customerId` (its customer, whose CLIENTs see it) say who besides the admins
 * may see it; `internal` that it concerns an internal note (Pusher's routing: never a CLIENT's channel).
 */
export async function notifyProjectChanged(
  broker: RealtimeBroker,
  projectId: string,
  ownerId: string | null,
  customerId: string | null = null,
  options: { internal?: boolean } = {},
): Promise<void> {
  const internal = options.internal === true ? { internal: true } : {};
  await broker.publish({ channel: CHANNELS.PROJECTS, event: EVENTS.PROJECT_UPDATED, payload: { id: projectId }, ownerId, customerId, ...internal });
  await broker.publish({ channel: CHANNELS.DASHBOARD, event: EVENTS.STATS_UPDATED, payload: {}, ownerId, customerId, ...internal });
}

/** Ends the open streams of one session, or of every session of a user but one, on every instance. */
export function endSessions(broker: RealtimeBroker, ended: SessionsEnded): Promise<void> {
  return publishSignal(broker, { channel: SESSIONS_CHANNEL, event: 'session-ended', payload: ended });
}

/** A user's role, customer or active flag changed: their open streams are re-scoped (or ended) on every instance. */
export function userChanged(broker: RealtimeBroker, user: { id: string; role: Role; active: boolean; customerId: string | null }): Promise<void> {
  return publishSignal(broker, {
    channel: SESSIONS_CHANNEL,
    event: 'user-changed',
    payload: { userId: user.id, role: user.role, active: user.active, customerId: user.customerId },
  });
}

/**
 * A user's other fields changed (name, email, phone, …): nothing for the streams or other instances
 * (their session caches show it within SESSION_CACHE_MS), but this instance's cache forgets the user at once.
 */
export function userUpdatedHere(broker: RealtimeBroker, user: { id: string; role: Role; active: boolean; customerId: string | null }): void {
  const message: RealtimeMessage = { channel: SESSIONS_CHANNEL, event: 'user-changed', payload: { userId: user.id, role: user.role, active: user.active, customerId: user.customerId } };
  for (const listener of localListeners.get(broker) ?? []) listener(message);
}

function publishSignal(broker: RealtimeBroker, message: RealtimeMessage): Promise<void> {
  for (const listener of localListeners.get(broker) ?? []) listener(message);
  return broker.publish(message);
}

const localListeners = new WeakMap<RealtimeBroker, Set<(m: RealtimeMessage) => void>>();

/**
 * Calls `listener` with each session signal published through this broker by this process, before
 * it is handed to the transport: this instance's cache forgets a revoked session before the change's
 * answer goes out, whatever the transport's own delivery delay. Returns the unsubscribe function.
 */
export function onLocalSignal(broker: RealtimeBroker, listener: (m: RealtimeMessage) => void): () => void {
  let listeners = localListeners.get(broker);
  if (!listeners) localListeners.set(broker, (listeners = new Set()));
  listeners.add(listener);
  return () => listeners.delete(listener);
}

