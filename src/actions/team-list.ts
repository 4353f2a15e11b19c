import { createHash } from 'node:crypto';
import { setImmediate as nextTurn } from 'node:timers/promises';
import type { Cursor } from '../db/rows.js';
import type { Store } from '../db/store.js';
import { presentTeamMember } from '../presenters/index.js';

/** Rows per read: each read (and its serialization) is a few milliseconds on the event loop, then other requests get their turn. */
const PAGE_ROWS = 500;
/** A team that keeps changing while it is read is answered as read, uncached, after this many tries. */
const READ_ATTEMPTS = 3;

export type TeamMemberView = ReturnType<typeof presentTeamMember>;
/** GET /api/team's answer at one team version: the members, their JSON and its ETag. */
export interface TeamSnapshot {
  version: number;
  members: readonly TeamMemberView[];
  body: Buffer;
  etag: string;
}

/**
 * The team list, built once per team version and reused by every request until a user changes.
 * Whether the copy is current costs one primary-key read (the version the database bumps in the
 * same transaction as any change, on whichever instance), so a change made anywhere shows in the
 * next answer. Building reads the team in pages, yielding between them, so no request waits behind
 * one long synchronous read of thousands of rows (SQLite's reads block the event loop).
 */
export class TeamList {
  #current: TeamSnapshot | undefined;
  #building: { version: number; snapshot: Promise<TeamSnapshot> } | undefined;

  constructor(private readonly store: Store) {}

  async snapshot(): Promise<TeamSnapshot> {
    const version = await this.store.users.teamVersion();
    if (this.#current?.version === version) return this.#current;
    // Requests arriving while it is built share the one build.
    if (this.#building?.version === version) return this.#building.snapshot;
    const building = { version, snapshot: this.#build(version) };
    this.#building = building;
    try {
      return await building.snapshot;
    } finally {
      if (this.#building === building) this.#building = undefined;
    }
  }

  async #build(version: number): Promise<TeamSnapshot> {
    for (let attempt = 1; ; attempt++) {
      const { members, parts } = await this.#read();
      const now = await this.store.users.teamVersion();
      const snapshot = makeSnapshot(now === version ? version : Number.NaN, members, parts);
      if (now === version) {
        if (!this.#current || !(this.#current.version > version)) this.#current = snapshot;
        return snapshot;
      }
      // Changed while being read: the pages may straddle the change. Read again at the new version.
      if (attempt === READ_ATTEMPTS) return snapshot;
      version = now;
    }
  }

  async #read(): Promise<{ members: TeamMemberView[]; parts: string[] }> {
    const members: TeamMemberView[] = [];
    const parts: string[] = [];
    let after: Cursor | undefined;
    for (;;) {
      const page = (await this.store.users.listPage(after, PAGE_ROWS)).map(presentTeamMember);
      if (page.length) {
        members.push(...page);
        parts.push(JSON.stringify(page).slice(1, -1));
      }
      if (page.length < PAGE_ROWS) return { members, parts };
      const last = page[page.length - 1]!;
      after = { createdAt: last.createdAt, id: last.id };
      await nextTurn();
    }
  }
}

function makeSnapshot(version: number, members: TeamMemberView[], parts: string[]): TeamSnapshot {
  const body = Buffer.from(`[${parts.join(',')}]`);
  const etag = `"${createHash('sha256').update(body).digest('base64url').slice(0, 27)}"`;
  return { version, members, body, etag };
}
