import { AppError, errors } from '../errors.js';
import type { ActivityAction } from './activity.js';
import type { Actor, Approval, Pi, PiStatus, Project, ProjectStatus } from './model.js';
import { maySeeProject } from './visibility.js';

/**
 * The day-to-day lifecycle of a project, as one table: for each action, who may take it, from
 * which state, and what it changes. The specification shows no transitions; these are ours
 * (README, "Project lifecycle"). An ADMIN can still correct any field with PATCH /api/projects/:id.
 */
export const PROJECT_ACTIONS = [
  'approve',
  'reject',
  'resubmit',
  'submit-pi',
  'verify-pi',
  'reject-pi',
  'start-printing',
  'dispatch',
  'deliver',
  'cancel',
] as const;
export type ProjectAction = (typeof PROJECT_ACTIONS)[number];

/** 'owner': the project's POC only, an admin included when they own it (it is their request to make). */
type Who = 'admin' | 'admin-or-owner' | 'owner';

interface ActionRule {
  who: Who;
  /** Which state the rule reads when it refuses ("Cannot approve a project that is PRINTING"). */
  describeState: (p: Project) => string;
  allowedFrom: (p: Project) => boolean;
  /** The owner (not an admin) may act only in these states; defaults to allowedFrom. */
  ownerAllowedFrom?: (p: Project) => boolean;
  apply: (p: Project, actor: Actor, now: string, note: string | null, pi: Pi | undefined) => ProjectChange;
  /** What the activity log calls it (domain/activity.ts). */
  activity: ActivityAction;
}

/** The fields an action sets. */
export interface ProjectChange {
  status?: ProjectStatus;
  piStatus?: PiStatus;
  approval?: Approval;
  /** submit-pi's figures (checked by domain/pi.ts), replacing a rejected PI's. */
  pi?: Pi;
}

const status = (p: Project) => p.status;
/** A PI action refused because of the project's status names that status, not the PI's (which would be one it starts from). */
const piUnless =
  (...blocking: ProjectStatus[]) =>
  (p: Project) =>
    blocking.includes(p.status) ? p.status : `PI ${p.piStatus}`;
const decided = (s: Approval['status'], actor: Actor, now: string, note: string | null): Approval => ({
  status: s,
  note,
  decidedById: actor.id,
  decidedAt: now,
});

export const LIFECYCLE: Record<ProjectAction, ActionRule> = {
  approve: {
    who: 'admin',
    describeState: status,
    allowedFrom: (p) => p.status === 'REQUESTED',
    apply: (_p, actor, now, note) => ({ status: 'APPROVED', approval: decided('APPROVED', actor, now, note) }),
    activity: 'PROJECT_APPROVED',
  },
  reject: {
    who: 'admin',
    describeState: (p) => (p.status === 'REQUESTED' ? 'already rejected' : p.status),
    allowedFrom: (p) => p.status === 'REQUESTED' && p.approval?.status !== 'REJECTED',
    apply: (_p, actor, now, note) => ({ approval: decided('REJECTED', actor, now, note) }),
    activity: 'PROJECT_REJECTED',
  },
  // A rejected request, corrected, goes back to the admins: the approval is pending again.
  resubmit: {
    who: 'owner',
    describeState: (p) => (p.status === 'REQUESTED' ? 'awaiting a decision' : p.status),
    allowedFrom: (p) => p.status === 'REQUESTED' && p.approval?.status === 'REJECTED',
    apply: () => ({ approval: { status: 'PENDING', note: null, decidedById: null, decidedAt: null } }),
    activity: 'APPROVAL_REQUESTED',
  },
  'submit-pi': {
    who: 'admin-or-owner',
    describeState: piUnless('CANCELLED', 'DELIVERED'),
    allowedFrom: (p) =>
      (p.piStatus === 'PENDING' || p.piStatus === 'REJECTED') && p.status !== 'CANCELLED' && p.status !== 'DELIVERED',
    // verify-pi and reject-pi keep the figures; a rejected PI comes back with new ones.
    apply: (_p, _actor, _now, _note, pi) => ({ piStatus: 'SUBMITTED', ...(pi && { pi }) }),
    activity: 'PI_SUBMITTED',
  },
  'verify-pi': {
    who: 'admin',
    describeState: piUnless('CANCELLED'),
    allowedFrom: (p) => p.piStatus === 'SUBMITTED' && p.status !== 'CANCELLED',
    apply: () => ({ piStatus: 'VERIFIED' }),
    activity: 'PI_VERIFIED',
  },
  'reject-pi': {
    who: 'admin',
    describeState: piUnless('CANCELLED'),
    allowedFrom: (p) => p.piStatus === 'SUBMITTED' && p.status !== 'CANCELLED',
    apply: () => ({ piStatus: 'REJECTED' }),
    activity: 'PI_REJECTED',
  },
  'start-printing': {
    who: 'admin',
    describeState: (p) => (p.status === 'APPROVED' ? `APPROVED with PI ${p.piStatus}` : p.status),
    allowedFrom: (p) => p.status === 'APPROVED' && p.piStatus === 'VERIFIED',
    apply: () => ({ status: 'PRINTING' }),
    activity: 'PRINTING_STARTED',
  },
  dispatch: {
    who: 'admin',
    describeState: status,
    allowedFrom: (p) => p.status === 'PRINTING',
    apply: () => ({ status: 'DISPATCHED' }),
    activity: 'PROJECT_DISPATCHED',
  },
  deliver: {
    who: 'admin-or-owner',
    describeState: status,
    allowedFrom: (p) => p.status === 'DISPATCHED',
    apply: () => ({ status: 'DELIVERED' }),
    activity: 'PROJECT_DELIVERED',
  },
  cancel: {
    who: 'admin-or-owner',
    describeState: status,
    allowedFrom: (p) => p.status === 'REQUESTED' || p.status === 'APPROVED' || p.status === 'PRINTING',
    // Once printing has started, only the shop can call it off.
    ownerAllowedFrom: (p) => p.status === 'REQUESTED' || p.status === 'APPROVED',
    apply: () => ({ status: 'CANCELLED' }),
    activity: 'PROJECT_CANCELLED',
  },
};

/**
 * May this actor take this action on this project now? Returns the change to apply, or the
 * refusal: 404 when the actor may not see the project (domain/visibility.ts), 403 when the role
 * may not take the action (or one only the owner may take, or one for admins and the owner), 409
 * when the project is not in a state the action starts from.
 */
export function decideProjectAction(
  actor: Actor,
  project: Project,
  action: ProjectAction,
  now: string,
  note: string | null = null,
  pi?: Pi,
): { change: ProjectChange; activity: ActivityAction } | AppError {
  const rule = LIFECYCLE[action];
  const refusal = refusalOf(actor, project, action);
  if (refusal === 'not-found') return errors.projectNotFound();
  if (refusal === 'forbidden') return errors.forbidden();
  if (refusal === 'held') return errors.onHold(project.hold!.reason);
  if (refusal === 'state') return errors.invalidTransition(action.replace('-', ' '), rule.describeState(project));
  return { change: rule.apply(project, actor, now, note, pi), activity: rule.activity };
}

/**
 * The rules of decideProjectAction as the kind of refusal, or null: no error is built, so asking it
 * for every action of 2,000 projects (the board) costs microseconds, not an Error's stack each.
 */
function refusalOf(actor: Actor, project: Project, action: ProjectAction): 'not-found' | 'forbidden' | 'held' | 'state' | null {
  const rule = LIFECYCLE[action];
  const isAdmin = actor.role === 'ADMIN';
  const isOwner = project.pocId === actor.id;
  if (!maySeeProject(actor, project)) return 'not-found';
  // Seeing is not acting: whoever may see the project acts only as their role and ownership allow.
  if (!isAdmin && rule.who === 'admin') return 'forbidden';
  if (rule.who === 'owner' && !isOwner) return 'forbidden';
  if (rule.who === 'admin-or-owner' && !isAdmin && !isOwner) return 'forbidden';
  // A hold stops everything but calling the job off (interface.md, "Holds, rush, reorders").
  if (project.hold && action !== 'cancel') return 'held';
  const allowed = !isAdmin && rule.ownerAllowedFrom ? rule.ownerAllowedFrom(project) : rule.allowedFrom(project);
  return allowed ? null : 'state';
}

/** The actions this actor may take on this project right now (for clients to offer). */
export const availableActions = (actor: Actor, project: Project): ProjectAction[] => PROJECT_ACTIONS.filter((a) => refusalOf(actor, project, a) === null);

/** The states in which the owner may still change the details: until printing starts (interface.md, "The job itself"). */
export const OWNER_EDITS_DETAILS_IN: readonly ProjectStatus[] = ['REQUESTED', 'APPROVED'];

/**
 * May this actor change the project's details, its name, description and job (PATCH
 * /api/projects/:id/details)? An admin always; the owner until printing starts (REQUESTED, awaiting
 * a decision or rejected, so that a rejected request can be corrected before asking again, or
 * APPROVED); anyone else who may see the project 403, anyone who may not 404. Returns null, or the refusal.
 */
export function decideDetailsEdit(actor: Actor, project: Project): AppError | null {
  if (actor.role === 'ADMIN') return null;
  if (!maySeeProject(actor, project)) return errors.projectNotFound();
  if (project.pocId !== actor.id) return errors.forbidden();
  return OWNER_EDITS_DETAILS_IN.includes(project.status) ? null : errors.invalidTransition('edit', project.status);
}
