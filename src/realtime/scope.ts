import { CHANNELS, type Channel } from './types.js';

// Who may receive a project's events (interface.md, Realtime: Scope) is who may see the project: domain/visibility.ts.

/**
 * Event numbers. The activity entry at position `seq` causes two events, project-updated then
 * stats-updated, numbered 2·seq−1 and 2·seq: increasing, the same on every instance, and stable
 * across restarts because `seq` is stored. No viewer sees these numbers: the ids on the wire are
 * sealed per viewer (event-ids.ts), so they tell nothing of other people's activity.
 */
export const eventId = (seq: number, channel: Channel): number => (channel === CHANNELS.PROJECTS ? seq * 2 - 1 : seq * 2);

/** The number that marks "everything up to and including the entry at `seq`". */
export const positionOf = (seq: number): number => seq * 2;

/** The log position an event number came from. */
export const seqOfEvent = (n: number): number => Math.ceil(n / 2);

export type ReplayStart = { replay: true; afterId: number; fromSeq: number } | { replay: false };

/**
 * Whether a reconnecting client can be replayed to: its id must be one issued to this viewer
 * (`n`, undefined otherwise) naming an entry the log holds (or 0, the start) written within the
 * window; otherwise it gets `reset` and refetches.
 */
export function replayStart(n: number | undefined, entry: { writtenAt: string | undefined }, now: number, windowHours: number): ReplayStart {
  if (n === undefined) return { replay: false };
  const seq = seqOfEvent(n);
  if (seq > 0 && (entry.writtenAt === undefined || Date.parse(entry.writtenAt) < now - windowHours * 3_600_000)) return { replay: false };
  // An odd number is a project-updated whose stats-updated may still be due: read from its own entry.
  return { replay: true, afterId: n, fromSeq: Math.max(0, seq - 1) };
}
