import { useInfiniteQuery, useMutation, useQueryClient } from '@tanstack/react-query';
import { type FormEvent, useState } from 'react';
import { type Comment, api } from '../../api';
import { ErrorMessage, Field, QueryError } from '../../components';
import { MAX_LENGTH } from '../../../../src/domain/limits';
import { linkParts, mayWriteInternal } from '../../../../src/domain/comments';
import { formatDateTime, personName } from '../../format';
import { useUser } from '../../session';

/**
 * A project's comments: the thread, oldest first, and a form to add one. Under ['project', id], so
 * the realtime hook's project-updated refreshes it in every open window (web/src/realtime.ts).
 */
export function Comments({ project }: { project: { id: string; pocId: string } }) {
  const me = useUser();
  const key = ['project', project.id, 'comments'];
  const thread = useInfiniteQuery({
    queryKey: key,
    queryFn: ({ pageParam }) => api.comments(project.id, pageParam),
    initialPageParam: undefined as string | undefined,
    getNextPageParam: (last) => last.nextCursor ?? undefined,
  });
  const comments = thread.data?.pages.flatMap((p) => p.items) ?? [];
  return (
    <section className="card comments" aria-labelledby="comments-title">
      <h2 id="comments-title">Comments</h2>
      {!thread.data && <QueryError query={thread} what="The comments" />}
      {thread.isPending && <p className="muted">Loading…</p>}
      {thread.data && comments.length === 0 && <p className="muted">No comments yet.</p>}
      {comments.length > 0 && (
        <ol className="comment-list" aria-label="Comments, oldest first">
          {comments.map((c) => (
            <CommentItem key={c.id} comment={c} me={me} />
          ))}
        </ol>
      )}
      {thread.hasNextPage && (
        <button type="button" className="secondary" disabled={thread.isFetchingNextPage} onClick={() => void thread.fetchNextPage()}>
          {thread.isFetchingNextPage ? 'Loading…' : 'Show later comments'}
        </button>
      )}
      <CommentForm projectId={project.id} mayWriteInternal={mayWriteInternal(me, project)} />
    </section>
  );
}

function CommentItem({ comment: c, me }: { comment: Comment; me: { id: string } }) {
  return (
    <li className={c.internal ? 'comment comment-internal' : 'comment'} data-testid="comment">
      <p className="comment-meta">
        <strong>{personName(c.authorId, c.authorName, me) ?? 'Someone'}</strong> <time dateTime={c.createdAt}>{formatDateTime(c.createdAt)}</time>
        {c.internal && <span className="badge badge-internal">Internal</span>}
      </p>
      <p className="comment-body">
        {/* Text and links as React nodes, never HTML: what a person wrote is never markup. */}
        {linkParts(c.body).map((part, i) =>
          'link' in part ? (
            <a key={i} href={part.link} rel="noopener noreferrer nofollow" target="_blank">
              {part.link}
            </a>
          ) : (
            <span key={i}>{part.text}</span>
          ),
        )}
      </p>
    </li>
  );
}

function CommentForm({ projectId, mayWriteInternal }: { projectId: string; mayWriteInternal: boolean }) {
  const queryClient = useQueryClient();
  const [body, setBody] = useState('');
  const [internal, setInternal] = useState(false);
  const add = useMutation({
    mutationFn: () => api.addComment(projectId, { body, internal: mayWriteInternal && internal }),
    onSuccess: () => {
      setBody('');
      setInternal(false);
      void queryClient.invalidateQueries({ queryKey: ['project', projectId, 'comments'] });
    },
  });
  const submit = (e: FormEvent) => {
    e.preventDefault();
    if (!add.isPending) add.mutate();
  };
  const error = add.error instanceof Error && /^Comment /.test(add.error.message) ? add.error.message : undefined;
  return (
    <form className="stack comment-form" onSubmit={submit} noValidate>
      <Field label="Add a comment" error={error}>
        {(props) => <textarea {...props} value={body} rows={3} maxLength={MAX_LENGTH.body * 2} onChange={(e) => setBody(e.target.value)} />}
      </Field>
      {mayWriteInternal && (
        <div className="field choice">
          <label>
            <input type="checkbox" checked={internal} onChange={(e) => setInternal(e.target.checked)} /> Internal note (not shown to the customer)
          </label>
        </div>
      )}
      {!error && <ErrorMessage error={add.error} />}
      <div>
        <button type="submit" className="primary" disabled={add.isPending}>
          {add.isPending ? 'Posting…' : internal && mayWriteInternal ? 'Post internal note' : 'Post comment'}
        </button>
      </div>
    </form>
  );
}
