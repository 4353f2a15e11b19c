import { type Project, type ProjectAction, request } from '../../api';

/** A card as GET /api/board answers it: the project with the actions the signed-in user may take now. */
export type BoardCard = Project & { allowedActions: ProjectAction[] };
export interface Board {
  today: string;
  deliveredSince: string;
  items: BoardCard[];
}

export const fetchBoard = (filter: { pocId?: string; customerId?: string }) => {
  const q = new URLSearchParams(Object.entries(filter).filter((e): e is [string, string] => Boolean(e[1])));
  return request<Board>('GET', `/api/board${q.size ? `?${q}` : ''}`);
};
