import type { Role } from '../domain/model.js';
import { CHANNELS, type Channel } from './types.js';

/** The user behind a stream, as of now (a role change re-scopes open streams). */
export interface Viewer {
  userId: string;
  role: Role;
}

/** Who may receive a project's events (interface.md, Realtime: Scope): admins all, anyone else their own projects. */
export const maySee = (viewer: Viewer, pocId: string | null): boolean => viewer.role === 'ADMIN' || (pocId !== null && pocId === viewer.userId);

/**
 * SSE event ids. The activity entry at position `seq` causes two events, project-updated then
 * stats-updated, with ids 2·seq−1 and 2·seq: increasing, the same on every instance, and stable
 * across restarts because `seq` is stored.
 */
export const eventId = (seq: number, channel: Channel): number => (channel === CHANNELS.PROJECTS ? seq * 2 - 1 : seq * 2);

/** The id that marks "everything up to and including the entry at `seq`". */
export const positionOf = (seq: number): number => seq * 2;

/** The log position an event id came from; undefined for anything we did not issue. */
export function seqOfEventId(raw: string | undefined): number | undefined {
  if (raw === undefined || !/^(0|[1-9]\d{0,15})$/.test(raw)) return undefined;
  const id = Number(raw);
  return Number.isSafeInteger(id) ? Math.ceil(id / 2) : undefined;
}

export type ReplayStart = { replay: true; afterId: number; fromSeq: number } | { replay: false };

/**
 * Whether a reconnecting client can be replayed to: its id must name an entry the log holds
 * (or 0, the start) written within the window; otherwise it gets `reset` and refetches.
 */
export function replayStart(lastEventId: string, entry: { writtenAt: string | undefined }, now: number, windowHours: number): ReplayStart {
  const seq = seqOfEventId(lastEventId);
  if (seq === undefined) return { replay: false };
  if (seq > 0 && (entry.writtenAt === undefined || Date.parse(entry.writtenAt) < now - windowHours * 3_600_000)) return { replay: false };
  // An odd id is a project-updated whose stats-updated may still be due: read from its own entry.
  return { replay: true, afterId: Number(lastEventId), fromSeq: Math.max(0, seq - 1) };
}
