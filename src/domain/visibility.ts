import type { Project, User } from './model.js';

/*
 * Who may see a project: the one rule behind every project list and lookup, the activity log, the
 * dashboard's figures, the realtime streams (live and replayed) and the emails' recipients
 * (interface.md, additions of 2026-11-24: an ADMIN sees everything; anyone else the projects whose
 * pocId is theirs; a CLIENT also those of the customer they belong to). Queries
 * use its SQL twin, db/visibility.ts: change the two together; test/visibility.test.ts runs the
 * twin on both databases over the cases of visibility.test.ts and fails when they disagree.
 *
 * Seeing is not acting: lifecycle actions and detail edits have their own rules on top of this one
 * (project-lifecycle.ts), and the specification's upload checks 5–6 are its own ownership rules,
 * untouched by this one (upload-policy.ts).
 */

/** What the rule reads of the user who looks. Made from the session's user by viewerOf, so a field the rule comes to need is added in one place. */
export type Viewer = Pick<User, 'id' | 'role'> & Partial<Pick<User, 'customerId'>>;

/** What the rule reads of a project (a customer left out is none). */
export type ProjectScope = Pick<Project, 'pocId'> & Partial<Pick<Project, 'customerId'>>;

/** The viewer a user is: only the fields the rule reads (a stream keeps it while the user's record moves on). */
export const viewerOf = (user: Viewer): Viewer => ({ id: user.id, role: user.role, customerId: user.customerId ?? null });

/** The customer whose projects this viewer sees besides their own: only a CLIENT's customer widens what they see. */
export const customerSeenBy = (viewer: Viewer): string | null => (viewer.role === 'CLIENT' ? (viewer.customerId ?? null) : null);

/** Sees every project, and what belongs to none (activity entries about anything but a project). */
export const seesEverything = (viewer: Viewer): boolean => viewer.role === 'ADMIN';

/** May this viewer see this project? A project that no longer exists (null) only those who see everything. */
export function maySeeProject(viewer: Viewer, project: ProjectScope | null): boolean {
  if (seesEverything(viewer)) return true;
  if (project === null) return false;
  if (project.pocId === viewer.id) return true;
  const customerId = customerSeenBy(viewer);
  return customerId !== null && (project.customerId ?? null) === customerId;
}

/**
 * Sees what is internal (interface.md, Comments: internal notes are among the shop's people): the
 * shop's roles, ADMIN and POC, on the projects they may see; never a CLIENT.
 */
export const INTERNAL_ROLES: readonly Viewer['role'][] = ['ADMIN', 'POC'];
export const seesInternal = (viewer: Viewer): boolean => INTERNAL_ROLES.includes(viewer.role);

/**
 * May this viewer see this activity entry: an internal one only who sees internal notes; one about
 * a project, with the project; any other, only those who see everything.
 */
export const maySeeEntry = (viewer: Viewer, entry: { entityType: string; internal?: boolean }, project: ProjectScope | null): boolean =>
  (entry.internal === true && !seesInternal(viewer)) ? false : entry.entityType === 'project' ? maySeeProject(viewer, project) : seesEverything(viewer);
