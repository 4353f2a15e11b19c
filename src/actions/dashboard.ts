import { type Deps, todayOf } from '../deps.js';
import { dueRange } from '../domain/due.js';
import { type Actor, DOCUMENT_TYPES, PROJECT_STATUSES, ROLES } from '../domain/model.js';

const zeroes = (keys: readonly string[]) => Object.fromEntries(keys.map((k) => [k, 0])) as Record<string, number>;
/** A total as a JSON number while it is exact (up to 2^53 - 1), else as its digits: never rounded. */
const exactNumber = (n: bigint): number | string => (n <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(n) : n.toString());
const sum = (r: Record<string, number>) => Object.values(r).reduce((a, b) => a + b, 0);

/**
 * GET /api/dashboard/stats: the figures of the projects the actor may see (domain/visibility.ts);
 * what is due, by the due filters of the project list (domain/due.ts); team figures for ADMINs.
 */
export async function dashboardStats(deps: Pick<Deps, 'store' | 'config' | 'clock'>, actor: Actor) {
  const today = todayOf(deps);
  const [byStatus, rejected, byType, due, awaitingVerification, { held, rush }] = await Promise.all([
    deps.store.stats.projectsByStatus(actor),
    deps.store.stats.rejectedRequests(actor),
    deps.store.stats.documentsByType(actor),
    deps.store.stats.dueCounts(actor, today, dueRange('week', today).through!),
    deps.store.stats.piAwaitingVerification(actor),
    deps.store.stats.heldAndRush(actor),
  ]);
  const projects = { ...zeroes(PROJECT_STATUSES), ...byStatus };
  const documents = { ...zeroes(DOCUMENT_TYPES), ...byType };
  const stats: Record<string, unknown> = {
    // REQUESTED counts every open request; `rejected` says how many of them an admin has rejected.
    projects: { total: sum(projects), byStatus: projects, rejected },
    documents: { total: sum(documents), byType: documents },
    // Open projects: overdue, due today, due today or in the next 6 days (today's among them).
    due,
    pi: { awaitingVerification } as Record<string, unknown>,
    // interface.md, Proofs: open projects whose latest proof waits for the customer, or came back with changes.
    proofs: await deps.store.proofs.counts(actor),
    // Open projects on hold, and rush ones (interface.md, "Holds, rush, reorders").
    held,
    rush,
  };
  if (actor.role === 'ADMIN') {
    // The money still owed, per currency, in minor units: the shop's figure, not a POC's or a client's.
    const owed = await deps.store.stats.outstanding(actor);
    (stats.pi as Record<string, unknown>).outstanding = Object.fromEntries(owed.map((o) => [o.currency, { amount: exactNumber(o.amount), projects: o.projects }]));
    const rows = await deps.store.stats.team();
    const byRole = zeroes(ROLES);
    for (const r of rows) byRole[r.role] = (byRole[r.role] ?? 0) + r.n;
    stats.team = { total: sum(byRole), active: rows.filter((r) => r.active).reduce((a, r) => a + r.n, 0), byRole };
  }
  return stats;
}
