import { AppError, errors } from '../errors.js';
import type { Actor, Project } from './model.js';
import { maySeeProject } from './visibility.js';

/**
 * May this actor reorder this project (POST /api/projects/:id/reorder; interface.md, "Holds,
 * rush, reorders")? An ADMIN, the owner, or a CLIENT of the project's customer; anyone else 404
 * (as one who may not see it); not from a CANCELLED project (409). Null: go ahead. Who will own
 * the new project is the action's to find (it reads the users).
 */
export function decideReorder(actor: Actor, project: Project): AppError | null {
  if (!maySeeProject(actor, project)) return errors.projectNotFound();
  const isClientOfIt = actor.role === 'CLIENT' && actor.customerId != null && actor.customerId === project.customerId;
  if (actor.role !== 'ADMIN' && project.pocId !== actor.id && !isClientOfIt) return errors.projectNotFound();
  if (project.status === 'CANCELLED') return errors.invalidTransition('reorder', 'CANCELLED');
  return null;
}

/** Whether the web app offers "Reorder" on the project page. */
export const mayReorder = (actor: Actor, project: Project): boolean => decideReorder(actor, project) === null;
