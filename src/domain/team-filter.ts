/** The team page's search and paging (GET /api/team?q=&role=&active=&limit=&cursor=) over the team in list order. */
export interface TeamFilter {
  /** Name or email contains it, ignoring case. */
  q?: string;
  role?: string;
  active?: boolean;
  limit: number;
  /** From a previous page: the members after it. */
  after?: { createdAt: string; id: string };
}

/**
 * The members that match, from just after `after`, at most limit + 1 of them (one more than a page,
 * so the caller knows whether another page follows). `members` is in list order: createdAt
 * descending, then id descending.
 */
export function filterTeam<T extends { id: string; name: string; email: string; role: string; active: boolean; createdAt: string }>(members: readonly T[], f: TeamFilter): T[] {
  const q = f.q?.trim().toLowerCase();
  const after = f.after;
  const out: T[] = [];
  for (const m of members) {
    if (after && !(m.createdAt < after.createdAt || (m.createdAt === after.createdAt && m.id < after.id))) continue;
    if (f.role !== undefined && m.role !== f.role) continue;
    if (f.active !== undefined && m.active !== f.active) continue;
    if (q && !m.name.toLowerCase().includes(q) && !m.email.toLowerCase().includes(q)) continue;
    out.push(m);
    if (out.length > f.limit) break;
  }
  return out;
}
