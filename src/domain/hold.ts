import { AppError, errors } from '../errors.js';
import { MAX_HOLD_REASON } from './limits.js';
import type { Actor, Project } from './model.js';
import { maySeeProject } from './visibility.js';

/** POST /api/projects/:id/hold and …/release (interface.md, "Holds, rush, reorders"). */
export type HoldAction = 'hold' | 'release';

/**
 * May this actor hold (or release) this project now? The first refusal that applies: 404 when the
 * actor may not see it, 403 unless an ADMIN or the owner, 409 on a DELIVERED or CANCELLED project,
 * 409 holding a held one or releasing one not held. Null: go ahead.
 */
export function decideHold(actor: Actor, project: Project, action: HoldAction): AppError | null {
  if (!maySeeProject(actor, project)) return errors.projectNotFound();
  if (actor.role !== 'ADMIN' && project.pocId !== actor.id) return errors.forbidden();
  if (project.status === 'DELIVERED' || project.status === 'CANCELLED') return errors.invalidTransition(action, project.status);
  if (action === 'hold' && project.hold) return errors.invalidTransition('hold', 'already on hold');
  if (action === 'release' && !project.hold) return errors.invalidTransition('release', 'not on hold');
  return null;
}

/** A hold's reason as sent: 1–500 characters once trimmed, else the 400 naming `reason`. */
export function holdReasonOf(value: unknown): string | AppError {
  if (typeof value !== 'string' || !value.trim()) return errors.invalidField('reason', 'is required');
  const reason = value.trim();
  if ([...reason].length > MAX_HOLD_REASON) return errors.invalidField('reason', `must be at most ${MAX_HOLD_REASON} characters`);
  return reason;
}

/** Whether the actor may put this project on hold or release it (what the web app offers). */
export const mayHold = (actor: Actor, project: Project): boolean => decideHold(actor, project, project.hold ? 'release' : 'hold') === null;
