import type { Deps } from '../deps.js';
import { nowIso } from '../deps.js';
import { commentBody, decideComment } from '../domain/comments.js';
import type { Actor, Comment, User } from '../domain/model.js';
import { maySeeProject, seesInternal, viewerOf } from '../domain/visibility.js';
import type { Page } from '../db/rows.js';
import { AppError, errors } from '../errors.js';
import { newId } from '../ids.js';
import { queueProjectEmails } from '../mail/outbox.js';
import { notifyProjectChanged } from '../realtime/index.js';
import { presentComment } from '../presenters/index.js';
import { recordProjectActivity } from './record-activity.js';

/** GET /api/projects/:id/comments: the thread, oldest first; internal notes only for who sees them (the SQL twin); 404 for who may not see the project. */
export async function listComments(deps: Pick<Deps, 'store'>, actor: Actor, projectId: string, f: { limit: number; cursor?: string }): Promise<Page<Comment>> {
  const project = await deps.store.projects.findById(projectId);
  if (!project || !maySeeProject(actor, project)) throw errors.projectNotFound();
  return deps.store.comments.list(viewerOf(actor), projectId, f);
}

/**
 * POST /api/projects/:id/comments: the comment, its COMMENT_ADDED entry (never the text) and its
 * emails (the text in the outbox's copy) in one commit, then the two notifications. Who may see the
 * project is asked first, so someone who may not gets 404 whatever they sent.
 */
export async function addComment(
  deps: Pick<Deps, 'store' | 'realtime' | 'config' | 'log'>,
  actor: Pick<User, 'id' | 'role' | 'name'>,
  projectId: string,
  input: { body?: unknown; internal?: unknown },
): Promise<Comment> {
  const internal = input.internal === true;
  const now = nowIso();
  const { comment, ownerId, customerId } = await deps.store.transaction(async (store) => {
    const project = await store.projects.findById(projectId);
    const refusal = decideComment(actor, project ?? null, internal);
    if (refusal) throw refusal;
    const body = commentBody(input.body);
    if (body instanceof AppError) throw body;
    const comment: Comment = { id: newId(), projectId, authorId: actor.id, authorName: actor.name, body, internal, createdAt: now };
    await store.comments.insert(comment);
    await recordProjectActivity(store, actor, projectId, 'COMMENT_ADDED', { commentId: comment.id, internal }, now, {
      internal,
      concerned: { data: { comment: presentComment(comment) } },
    });
    await queueProjectEmails(store, deps.config.mail.batchSeconds, { actor, project: project!, action: 'COMMENT_ADDED', details: { commentId: comment.id, internal, body }, at: now });
    // Pusher's owner channel carries an internal note's notifications only when the owner sees internal notes (not a CLIENT).
    const owner = internal ? await store.users.findById(project!.pocId) : undefined;
    return { comment, ownerId: internal && !(owner && seesInternal(viewerOf(owner))) ? null : project!.pocId, customerId: project!.customerId };
  });
  await notifyProjectChanged(deps.realtime, projectId, ownerId, customerId, { internal }).catch((err: unknown) => deps.log.error({ err }, 'realtime notification failed'));
  return comment;
}
