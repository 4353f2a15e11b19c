import { type Project, api } from '../../api';

/**
 * The jobs due in [from, to] (interface.md: GET /api/projects with dueFrom/dueTo, sort=due), every
 * page. Kept to the range here as well, and stopped at the first later date, so the answer is right
 * even from a service that orders by due date without the range filter.
 */
export async function fetchDue(from: string, to: string): Promise<Project[]> {
  const found: Project[] = [];
  let cursor: string | undefined;
  for (;;) {
    const page = await api.projects({ dueFrom: from, dueTo: to, sort: 'due', limit: 200, cursor } as Parameters<typeof api.projects>[0]);
    let past = false;
    for (const p of page.items) {
      if (!p.dueDate || p.dueDate > to) past = true;
      else if (p.dueDate >= from) found.push(p);
    }
    if (past || !page.nextCursor) return found;
    cursor = page.nextCursor;
  }
}
