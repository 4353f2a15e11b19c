import type { Deps } from '../deps.js';
import { nowIso } from '../deps.js';
import { type HoldAction, decideHold, holdReasonOf } from '../domain/hold.js';
import { textRefusal } from '../domain/limits.js';
import type { Actor, ProjectWithNames } from '../domain/model.js';
import { AppError, errors } from '../errors.js';
import { queueProjectEmails } from '../mail/outbox.js';
import { announce } from './projects.js';
import { recordProjectActivity } from './record-activity.js';

/**
 * POST /api/projects/:id/hold {reason} and …/release {note?} (interface.md, "Holds, rush,
 * reorders"): decided on the locked row (domain/hold.ts), then PROJECT_HELD or PROJECT_RELEASED,
 * the emails and the two notifications, as a lifecycle action writes them.
 */
export async function holdOrRelease(
  deps: Pick<Deps, 'store' | 'realtime' | 'config' | 'log'>,
  actor: Actor,
  id: string,
  action: HoldAction,
  body: { reason?: unknown; note?: unknown },
): Promise<ProjectWithNames> {
  let details: Record<string, unknown>;
  let reason: string | null = null;
  if (action === 'hold') {
    const checked = holdReasonOf(body.reason);
    if (checked instanceof AppError) throw checked;
    reason = checked;
    details = { reason };
  } else {
    if (body.note !== undefined && body.note !== null && typeof body.note !== 'string') throw errors.invalidField('note', 'must be text');
    const note = typeof body.note === 'string' && body.note.trim() ? body.note.trim() : null;
    const refusal = textRefusal('note', note);
    if (refusal) throw refusal;
    details = { note };
  }
  const now = nowIso();
  const updated = await deps.store.transaction(async (store) => {
    const current = await store.projects.findById(id, { forUpdate: true });
    if (!current) throw errors.projectNotFound();
    const refused = decideHold(actor, current, action);
    if (refused) throw refused;
    const project = (await store.projects.update(id, { hold: reason === null ? null : { reason, since: now, byId: actor.id } }, now))!;
    const activity = action === 'hold' ? 'PROJECT_HELD' : 'PROJECT_RELEASED';
    await recordProjectActivity(store, actor, id, activity, details, now);
    await queueProjectEmails(store, deps.config.mail.batchSeconds, { actor, project, action: activity, details, at: now });
    return project;
  });
  await announce(deps, updated);
  return updated;
}
