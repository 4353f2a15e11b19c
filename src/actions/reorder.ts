import type { Deps } from '../deps.js';
import { nowIso } from '../deps.js';
import { isCalendarDate } from '../domain/due.js';
import { textRefusal } from '../domain/limits.js';
import type { Actor, Project, ProjectWithNames } from '../domain/model.js';
import { decideReorder } from '../domain/reorder.js';
import { errors } from '../errors.js';
import { newId } from '../ids.js';
import { queueProjectEmails } from '../mail/outbox.js';
import { accountManagerFor, announce } from './projects.js';
import { recordProjectActivity } from './record-activity.js';

/**
 * POST /api/projects/:id/reorder {dueDate?, reference?} (interface.md, "Holds, rush, reorders"): a
 * new REQUESTED project with the original's name, description, customer, delivery address and lines
 * (new ids), and nothing else of it. Owned by the original's owner when active; else by the
 * customer's account manager when a CLIENT asks; else by the caller.
 */
export async function reorderProject(
  deps: Pick<Deps, 'store' | 'realtime' | 'config' | 'log'>,
  actor: Actor,
  id: string,
  input: { dueDate?: unknown; reference?: unknown },
): Promise<ProjectWithNames> {
  const original = await deps.store.projects.findWithNames(id);
  if (!original) throw errors.projectNotFound();
  const refusal = decideReorder(actor, original);
  if (refusal) throw refusal;
  const dueDate = input.dueDate ?? null;
  if (dueDate !== null && !isCalendarDate(dueDate)) throw errors.invalidField('dueDate', 'must be a date, YYYY-MM-DD');
  const reference = typeof input.reference === 'string' ? input.reference.trim() || null : null;
  if (input.reference !== undefined && input.reference !== null && typeof input.reference !== 'string') throw errors.invalidField('reference', 'must be text');
  const tooLong = textRefusal('reference', reference);
  if (tooLong) throw tooLong;
  const owner = await deps.store.users.findById(original.pocId);
  const pocId = owner?.active ? owner.id : actor.role === 'CLIENT' ? await accountManagerFor(deps, actor) : actor.id;
  const now = nowIso();
  const project: Project = {
    id: newId(),
    name: original.name,
    description: original.description,
    pocId,
    status: 'REQUESTED',
    piStatus: 'PENDING',
    approval: null,
    customerId: original.customerId,
    createdAt: now,
    updatedAt: now,
    number: 0,
    rush: false,
    hold: null,
    repeatOfId: original.id,
  };
  const created = await deps.store.transaction(async (store) => {
    project.number = await store.projects.insert({ ...project, reference, dueDate: dueDate as string | null, deliveryAddress: original.deliveryAddress });
    await store.projectItems.replace(
      project.id,
      original.items.map((l) => ({ ...l, id: newId() })),
    );
    const details = { name: project.name, pocId, repeatOf: original.id };
    await recordProjectActivity(store, actor, project.id, 'PROJECT_CREATED', details, now);
    await queueProjectEmails(store, deps.config.mail.batchSeconds, { actor, project, action: 'PROJECT_CREATED', details, at: now });
    return (await store.projects.findWithNames(project.id))!;
  });
  await announce(deps, created);
  return created;
}
