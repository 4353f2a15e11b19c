import type { Deps } from '../deps.js';
import { nowIso, todayOf } from '../deps.js';
import type { ProjectFields, ProjectFilter } from '../db/projects.js';
import {
  type Actor,
  type ApprovalStatus,
  type Payment,
  type PiFigures,
  type PiStatus,
  type FileUploadWithNames,
  type Project,
  type ProjectStatus,
  type ProjectWithNames,
  APPROVAL_STATUSES,
  PI_STATUSES,
  PROJECT_STATUSES,
  isOneOf,
} from '../domain/model.js';
import { type DueFilter, dueRange, isCalendarDate } from '../domain/due.js';
import { JOB_FIELDS, type JobChange, type JobField, type LineDraft, jobChanges, parseJob, resolveLines } from '../domain/job.js';
import { type ProjectAction, decideDetailsEdit, decideProjectAction } from '../domain/project-lifecycle.js';
import { printingHold } from '../domain/proofs.js';
import { textRefusal } from '../domain/limits.js';
import { piCurrencyRefusal } from '../domain/pi.js';
import { maySeeProject } from '../domain/visibility.js';
import { AppError, errors } from '../errors.js';
import { newId } from '../ids.js';
import { queueProjectEmails } from '../mail/outbox.js';
import { notifyProjectChanged } from '../realtime/index.js';
import { recordProjectActivity } from './record-activity.js';

/** After a project change is committed: the same two notifications as an upload. A failed publish is logged, the change stands. */
export async function announce(deps: Pick<Deps, 'realtime' | 'log'>, project: Pick<Project, 'id' | 'pocId' | 'customerId'>): Promise<void> {
  await notifyProjectChanged(deps.realtime, project.id, project.pocId, project.customerId).catch((err: unknown) => deps.log.error({ err }, 'realtime notification failed'));
}

export interface NewProject extends Partial<Record<JobField, unknown>> {
  name?: unknown;
  description?: unknown;
  pocId?: unknown;
  customerId?: unknown;
  rush?: unknown;
}

/**
 * A project's customer as sent: null (none), or the id of a customer (an unknown one is a 400). A
 * CLIENT may name only their own company (or none): a project put under another company would be
 * shown to that company's people.
 */
async function customerOf(deps: Pick<Deps, 'store'>, actor: Actor, value: unknown): Promise<string | null> {
  if (value === null || value === '') return null;
  if (typeof value !== 'string') throw errors.invalidField('customerId', 'must be the id of a customer or null');
  const customer = await deps.store.customers.findById(value);
  if (!customer) throw errors.invalidField('customerId', 'must be the id of a customer');
  if (actor.role === 'CLIENT' && customer.id !== actor.customerId) throw errors.invalidField('customerId', 'must be your own company');
  return customer.id;
}

/**
 * Who owns an order a CLIENT places: their company's account manager, active; 409 when the CLIENT
 * is attached to no company or the company has no active account manager.
 */
export async function accountManagerFor(deps: Pick<Deps, 'store'>, actor: Actor): Promise<string> {
  if (!actor.customerId) throw errors.notAttachedToCompany();
  const customer = await deps.store.customers.findById(actor.customerId);
  if (!customer) throw errors.notAttachedToCompany();
  const manager = customer.accountManagerId ? await deps.store.users.findById(customer.accountManagerId) : undefined;
  if (!manager || !manager.active || (manager.role !== 'POC' && manager.role !== 'ADMIN')) throw errors.noAccountManager();
  return manager.id;
}

/** The job's fields of a request, checked (domain/job.ts), or its refusal thrown. */
function jobOf(input: Partial<Record<JobField, unknown>>): JobChange {
  const job = parseJob(input);
  if (job instanceof AppError) throw job;
  return job;
}

/** POST /api/projects: an ADMIN may name any active user as POC; anyone else owns what they create. The job's fields are optional. */
export async function createProject(deps: Pick<Deps, 'store' | 'realtime' | 'config' | 'log'>, actor: Actor, input: NewProject): Promise<ProjectWithNames> {
  const name = typeof input.name === 'string' ? input.name.trim() : '';
  const description = typeof input.description === 'string' ? input.description : null;
  const refusal = textRefusal('name', name, true) ?? textRefusal('description', description);
  if (refusal) throw refusal;
  const { items: drafts, ...job } = jobOf(input);
  // A new project has no lines yet: any id sent is refused.
  const lines = drafts ? resolveLines(drafts, [], newId) : [];
  if (lines instanceof AppError) throw lines;
  let pocId = actor.id;
  let accountManaged = false;
  if (actor.role === 'CLIENT') {
    // A customer's person orders for their company, and the company's account manager owns the order.
    pocId = await accountManagerFor(deps, actor);
    accountManaged = true;
  } else if (actor.role === 'ADMIN' && typeof input.pocId === 'string' && input.pocId) {
    const poc = await deps.store.users.findById(input.pocId);
    if (!poc || !poc.active) throw errors.invalidField('pocId', 'must be the id of an active user');
    pocId = poc.id;
  }
  const rush = rushOf(input.rush) ?? false;
  // A CLIENT's project is always their company's (customerId ignored).
  const customerId = actor.role === 'CLIENT' ? actor.customerId! : input.customerId !== undefined ? await customerOf(deps, actor, input.customerId) : null;
  const now = nowIso();
  const project: Project = {
    id: newId(),
    name,
    description: description?.trim() || null,
    pocId,
    status: 'REQUESTED',
    piStatus: 'PENDING',
    approval: null,
    customerId,
    createdAt: now,
    updatedAt: now,
    number: 0,
    rush,
    hold: null,
    repeatOfId: null,
  };
  const created = await deps.store.transaction(async (store) => {
    project.number = await store.projects.insert({ ...project, ...job });
    await store.projectItems.replace(project.id, lines);
    // The account manager hears of an order placed by the customer's people as an admin does (mail/rules.ts).
    const details = { name: project.name, pocId, ...(accountManaged && { accountManagerId: pocId }) };
    await recordProjectActivity(store, actor, project.id, 'PROJECT_CREATED', details, now);
    await queueProjectEmails(store, deps.config.mail.batchSeconds, { actor, project, action: 'PROJECT_CREATED', details, at: now });
    // Read back with the POC's name, as every other answer carries it.
    return (await store.projects.findWithNames(project.id))!;
  });
  await announce(deps, created);
  return created;
}

/** `rush` as sent: a boolean, or undefined when not sent; anything else the 400 naming it. */
function rushOf(value: unknown): boolean | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== 'boolean') throw errors.invalidField('rush', 'must be true or false');
  return value;
}

/** The most days dueFrom and dueTo may be apart (interface.md, "Holds, rush, reorders"). */
const DUE_SPAN_DAYS = 366;

/** dueFrom and dueTo checked: dates, each alone or together not inverted and at most DUE_SPAN_DAYS apart; else the 400 naming the parameter. */
export function checkDueBetween(f: { dueFrom?: string; dueTo?: string }): void {
  if (f.dueFrom !== undefined && !isCalendarDate(f.dueFrom)) throw errors.invalidField('dueFrom', 'must be a date, YYYY-MM-DD');
  if (f.dueTo !== undefined && !isCalendarDate(f.dueTo)) throw errors.invalidField('dueTo', 'must be a date, YYYY-MM-DD');
  if (f.dueFrom !== undefined && f.dueTo !== undefined) {
    const days = (Date.parse(`${f.dueTo}T00:00:00Z`) - Date.parse(`${f.dueFrom}T00:00:00Z`)) / 86_400_000;
    if (days < 0) throw errors.invalidField('dueTo', 'must not be before dueFrom');
    if (days > DUE_SPAN_DAYS) throw errors.invalidField('dueTo', `must be at most ${DUE_SPAN_DAYS} days after dueFrom`);
  }
}

/** GET /api/projects: the projects the actor may see; `due` chooses by due date against today in the shop's time zone. */
export const listProjects = (deps: Pick<Deps, 'store' | 'config' | 'clock'>, actor: Actor, { due, ...filter }: Omit<ProjectFilter, 'dueRange'> & { due?: DueFilter }) => {
  checkDueBetween(filter);
  return deps.store.projects.list(actor, { ...filter, dueRange: due && dueRange(due, todayOf(deps)) });
};

/** One project the actor may see, with its documents and payments (newest first); 404 otherwise. */
export async function getProject(deps: Pick<Deps, 'store'>, actor: Actor, id: string): Promise<{ project: ProjectWithNames; files: FileUploadWithNames[]; payments: Payment[] }> {
  const project = await deps.store.projects.findWithNames(id);
  if (!project || !maySeeProject(actor, project)) throw errors.projectNotFound();
  const [files, payments] = await Promise.all([deps.store.files.listForProject(id), deps.store.payments.listForProject(id)]);
  return { project, files, payments };
}

export interface ProjectPatch extends Partial<Record<JobField, unknown>> {
  name?: string;
  description?: string | null;
  pocId?: string;
  customerId?: string | null;
  status?: string;
  piStatus?: string;
  approval?: { status?: string; note?: string | null };
  rush?: boolean;
}

/** A validated change: the project's own fields, and the job's lines when sent (the whole list). */
interface Change {
  fields: ProjectFields;
  lines?: LineDraft[];
}

/** PATCH /api/projects/:id (ADMIN): corrections, any valid value, the job's fields too. Writes PROJECT_UPDATED with the changed fields. */
export async function patchProject(deps: Pick<Deps, 'store' | 'realtime' | 'log'>, actor: Actor, id: string, patch: ProjectPatch): Promise<ProjectWithNames> {
  if (actor.role !== 'ADMIN') throw errors.forbidden();
  return updateProject(deps, actor, id, await validatePatch(deps, patch, actor), () => null);
}

/** What PATCH /api/projects/:id/details may change: the name, the description and the job. */
export type DetailsPatch = Pick<ProjectPatch, 'name' | 'description' | 'customerId' | 'rush' | JobField>;

/**
 * PATCH /api/projects/:id/details: the name, the description and the job, by an admin at any time
 * or by the owner until printing starts (domain/project-lifecycle.ts, decideDetailsEdit). Writes
 * PROJECT_UPDATED like PATCH.
 */
export async function editProjectDetails(deps: Pick<Deps, 'store' | 'realtime' | 'log'>, actor: Actor, id: string, patch: DetailsPatch): Promise<ProjectWithNames> {
  const { name, description, customerId, reference, dueDate, deliveryAddress, items, rush } = patch;
  const change = await validatePatch(deps, { name, description, customerId, reference, dueDate, deliveryAddress, items, rush }, actor);
  return updateProject(deps, actor, id, change, (current) => decideDetailsEdit(actor, current));
}

/**
 * Sets the fields on the locked project when `refusal` finds nothing against it, and the lines when
 * sent and different; PROJECT_UPDATED names what changed (the due date's old and new value, which
 * lines: domain/job.ts, jobChanges); then the notifications.
 */
async function updateProject(
  deps: Pick<Deps, 'store' | 'realtime' | 'log'>,
  actor: Actor,
  id: string,
  { fields, lines: drafts }: Change,
  refusal: (current: Project) => AppError | null,
): Promise<ProjectWithNames> {
  const now = nowIso();
  const updated = await deps.store.transaction(async (store) => {
    const current = await store.projects.findById(id, { forUpdate: true });
    if (!current) throw errors.projectNotFound();
    const refused = refusal(current);
    if (refused) throw refused;
    // The job as it is (the row is locked: no change can come between this read and the write).
    const before = (await store.projects.findWithNames(id))!;
    const lines = drafts && resolveLines(drafts, before.items, newId);
    if (lines instanceof AppError) throw lines;
    const job = jobChanges(before, { reference: fields.reference, dueDate: fields.dueDate, deliveryAddress: fields.deliveryAddress, items: lines });
    if (lines && job.changed.includes('items')) await store.projectItems.replace(id, lines);
    const project = await store.projects.update(id, fields, now);
    const changed = changedFields(current, fields);
    // The customer's move, by id (names change; the ids say whose it was and is).
    const customer = changed.includes('customerId') ? { customerId: { from: current.customerId, to: fields.customerId ?? null } } : {};
    await recordProjectActivity(store, actor, id, 'PROJECT_UPDATED', { changed: [...changed, ...job.changed], ...job.details, ...customer }, now);
    return project!;
  });
  await announce(deps, updated);
  return updated;
}

async function validatePatch(deps: Pick<Deps, 'store'>, p: ProjectPatch, actor: Actor): Promise<Change> {
  const f: ProjectFields = {};
  const refusal =
    (p.name !== undefined ? textRefusal('name', p.name, true) : null) ?? textRefusal('description', p.description) ?? textRefusal('note', p.approval?.note);
  if (refusal) throw refusal;
  const { items: lines, ...job } = jobOf(p);
  Object.assign(f, job);
  if (p.name !== undefined) f.name = p.name.trim();
  if (p.description !== undefined) f.description = p.description?.trim() || null;
  if (p.pocId !== undefined) {
    const poc = await deps.store.users.findById(p.pocId);
    if (!poc || !poc.active) throw errors.invalidField('pocId', 'must be the id of an active user');
    f.pocId = poc.id;
  }
  if (p.customerId !== undefined) f.customerId = await customerOf(deps, actor, p.customerId);
  if (p.rush !== undefined) f.rush = rushOf(p.rush);
  if (p.status !== undefined) f.status = enumField<ProjectStatus>('status', PROJECT_STATUSES, p.status);
  if (p.piStatus !== undefined) f.piStatus = enumField<PiStatus>('piStatus', PI_STATUSES, p.piStatus);
  if (p.approval !== undefined) {
    f.approval = {
      status: enumField<ApprovalStatus>('approval.status', APPROVAL_STATUSES, p.approval.status),
      note: p.approval.note?.trim() || null,
      decidedById: actor.id,
      decidedAt: nowIso(),
    };
  }
  return { fields: f, lines };
}

function enumField<T extends string>(field: string, values: readonly T[], v: unknown): T {
  if (!isOneOf(values, v)) throw errors.invalidField(field, `must be one of ${values.join(', ')}`);
  return v;
}

/** The project's own fields that differ (the job's are compared by jobChanges). */
function changedFields(current: Project, f: ProjectFields): string[] {
  const jobFields: readonly string[] = JOB_FIELDS;
  return (Object.keys(f) as (keyof ProjectFields)[])
    .filter((k): k is Exclude<keyof ProjectFields, JobField | 'pi' | 'hold'> => !jobFields.includes(k) && k !== 'pi' && k !== 'hold')
    .filter((k) => JSON.stringify(f[k]) !== JSON.stringify(current[k]));
}

/**
 * POST /api/projects/:id/<action>: one lifecycle step, by the rules of domain/project-lifecycle.ts.
 * submit-pi comes with the PI's figures (actions/submit-pi.ts checks them), kept on the project
 * and in the activity entry.
 */
export async function runProjectAction(
  deps: Pick<Deps, 'store' | 'realtime' | 'config' | 'log'>,
  actor: Actor,
  id: string,
  action: ProjectAction,
  note: string | null,
  figures?: PiFigures,
): Promise<ProjectWithNames> {
  const tooLong = textRefusal('note', note);
  if (tooLong) throw tooLong;
  // A PI is never submitted without its figures (interface.md, "The PI and payments").
  if (action === 'submit-pi' && !figures) throw errors.invalidField('number', 'is required');
  const now = nowIso();
  const updated = await deps.store.transaction(async (store) => {
    const current = await store.projects.findById(id, { forUpdate: true });
    if (!current) throw errors.projectNotFound();
    const pi = action === 'submit-pi' && figures ? { ...figures, submittedAt: now, submittedById: actor.id } : undefined;
    const decision = decideProjectAction(actor, current, action, now, note, pi);
    if (decision instanceof AppError) throw decision;
    // interface.md, Proofs: after the action's other rules, printing waits for the latest proof's approval.
    if (action === 'start-printing') {
      const held = printingHold((await store.proofs.latest(id, { forUpdate: true })) ?? null);
      if (held) throw held;
    }
    if (pi) {
      const currencyRefusal = piCurrencyRefusal(pi.currency, await store.payments.currencyOf(id));
      if (currencyRefusal) throw currencyRefusal;
    }
    const project = await store.projects.update(id, decision.change, now);
    const details: Record<string, unknown> = { from: { status: current.status, piStatus: current.piStatus }, to: { status: project!.status, piStatus: project!.piStatus } };
    if (pi) Object.assign(details, { number: pi.number, amount: pi.amount, currency: pi.currency, validUntil: pi.validUntil });
    if (note) details.note = note;
    await recordProjectActivity(store, actor, id, decision.activity, details, now);
    await queueProjectEmails(store, deps.config.mail.batchSeconds, { actor, project: project!, action: decision.activity, details, at: now });
    return project!;
  });
  await announce(deps, updated);
  return updated;
}
