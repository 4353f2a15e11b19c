import { AppError, errors } from '../errors.js';
import { textRefusal } from './limits.js';
import type { Project } from './model.js';
import { type ProjectScope, type Viewer, maySeeProject } from './visibility.js';

/*
 * Comments on a project (interface.md, Comments): who may write which, what a body may be, and how
 * a body's links are found for display. Who may read them is the visibility rule (visibility.ts:
 * maySeeProject, and seesInternal for internal notes).
 */

/** A body as stored: trimmed of surrounding whitespace (a blank one is refused), the line breaks inside kept. */
export function commentBody(body: unknown): string | AppError {
  if (typeof body !== 'string') return errors.invalidField('body', 'is required');
  const trimmed = body.trim();
  return textRefusal('body', trimmed, true) ?? trimmed;
}

/** Internal notes are written by an ADMIN or by the project's owner when a POC (a CLIENT owner may not). */
export const mayWriteInternal = (viewer: Viewer, project: Pick<Project, 'pocId'>): boolean =>
  viewer.role === 'ADMIN' || (viewer.role === 'POC' && project.pocId === viewer.id);

/** Whether this viewer may comment on the project: null, or the refusal (404 for who may not see it, 403 for an internal note they may not write). */
export function decideComment(viewer: Viewer, project: (ProjectScope & Pick<Project, 'pocId'>) | null, internal: boolean): AppError | null {
  if (!project || !maySeeProject(viewer, project)) return errors.projectNotFound();
  if (internal && !mayWriteInternal(viewer, project)) return errors.forbidden();
  return null;
}

/** A piece of a comment's text: plain text, or a link (http or https) to show as one. */
export type TextPart = { text: string } | { link: string };

const LINK = /\bhttps?:\/\/[^\s<>"]+/gi;
/** Punctuation that ends a sentence rather than a link ("see https://x.example/a." → the link without the dot). */
const TRAILING = /[.,;:!?'")\]]+$/;

/** The text split into plain pieces and links, in order; joined back they are the text. Never HTML: the web app renders each piece as text or as an anchor. */
export function linkParts(text: string): TextPart[] {
  const parts: TextPart[] = [];
  let at = 0;
  for (const m of text.matchAll(LINK)) {
    let link = m[0];
    // A closing bracket that opens inside the link stays ("https://en.wikipedia.org/wiki/A_(b)").
    const trail = TRAILING.exec(link)?.[0] ?? '';
    if (trail && !(trail.startsWith(')') && link.includes('('))) link = link.slice(0, link.length - trail.length);
    if (link.length <= 'https://'.length) continue;
    if (m.index > at) parts.push({ text: text.slice(at, m.index) });
    parts.push({ link });
    at = m.index + link.length;
  }
  if (at < text.length) parts.push({ text: text.slice(at) });
  return parts;
}
