import type { Deps } from '../deps.js';
import type { Actor, ProjectWithNames } from '../domain/model.js';
import { type PiInput, parsePi } from '../domain/pi.js';
import { AppError } from '../errors.js';
import { runProjectAction } from './projects.js';

export interface SubmitPiInput extends PiInput {
  note?: string | null;
}

/**
 * POST /api/projects/:id/submit-pi: the PI's number, amount (minor units), currency (CURRENCY when
 * none) and validity, checked (domain/pi.ts), then the lifecycle step with its rules (who, from
 * which state: domain/project-lifecycle.ts); a rejected PI submitted again has its figures replaced.
 */
export async function submitPi(deps: Pick<Deps, 'store' | 'realtime' | 'config' | 'log'>, actor: Actor, id: string, input: SubmitPiInput): Promise<ProjectWithNames> {
  const figures = parsePi(input, deps.config.currency);
  if (figures instanceof AppError) throw figures;
  const note = typeof input.note === 'string' && input.note.trim() ? input.note.trim() : null;
  return runProjectAction(deps, actor, id, 'submit-pi', note, figures);
}
