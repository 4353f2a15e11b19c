import { sql } from 'kysely';
import type { Comment } from '../domain/model.js';
import type { DB } from './index.js';
import { type Cursor, type Page, decodeCursor, page } from './rows.js';
import { type Scope, internalShownTo } from './visibility.js';

/** Rows after the cursor's, in (created_at, id) order: the thread is read oldest first. */
const newerThan = (c: Cursor) =>
  sql<boolean>`(comments.created_at > ${c.createdAt} or (comments.created_at = ${c.createdAt} and comments.id > ${c.id}))`;

/** Comments on projects (migration 019). Who may see the project is checked by the caller; which comments of it, here (internal ones, db/visibility.ts). */
export function commentsRepo(db: DB) {
  return {
    async insert(c: Omit<Comment, 'authorName'>): Promise<void> {
      await db
        .insertInto('comments')
        .values({ id: c.id, project_id: c.projectId, author_id: c.authorId, body: c.body, internal: c.internal, created_at: c.createdAt })
        .execute();
    },
    /** One project's thread, oldest first, with each author's name; internal notes only for a scope that sees them. */
    async list(scope: Scope, projectId: string, f: { limit: number; cursor?: string }): Promise<Page<Comment>> {
      const cursor = decodeCursor(f.cursor);
      const rows = await db
        .selectFrom('comments')
        .leftJoin('users as author', 'author.id', 'comments.author_id')
        .selectAll('comments')
        .select('author.name as author_name')
        .where('comments.project_id', '=', projectId)
        .where(internalShownTo(scope))
        .$if(cursor !== undefined, (q) => q.where(newerThan(cursor!)))
        .orderBy('comments.created_at')
        .orderBy('comments.id')
        .limit(f.limit + 1)
        .execute();
      return page(
        rows.map((r) => ({
          id: r.id,
          projectId: r.project_id,
          authorId: r.author_id,
          authorName: r.author_name,
          body: r.body,
          internal: Boolean(r.internal),
          createdAt: r.created_at,
        })),
        f.limit,
      );
    },
  };
}
