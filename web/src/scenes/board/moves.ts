/**
 * Which column a board card may move to (issue 36), as a pure function of what the server answered
 * for it: its status, its `allowedActions` and its hold. Nothing here decides whether an action is
 * allowed: an action the server did not offer is never a move. This only names the column each
 * offered action leads to, so a drop on a column can be turned into that action. (No imports: the
 * root project's tests load it under NodeNext resolution.)
 */

export const BOARD_COLUMNS = ['REQUESTED', 'APPROVED', 'PRINTING', 'DISPATCHED', 'DELIVERED'] as const;
export type BoardColumn = (typeof BOARD_COLUMNS)[number];

/** The column each column-moving action ends in. Other actions (PI, reject, resubmit) keep the card where it is. */
const LEADS_TO: Record<string, BoardColumn> = { approve: 'APPROVED', 'start-printing': 'PRINTING', dispatch: 'DISPATCHED', deliver: 'DELIVERED' };

export interface Movable {
  status: string;
  allowedActions: readonly string[];
  hold: unknown;
}

export interface Move {
  action: string;
  /** The column the card lands in; CANCELLED takes it off the board. */
  to: BoardColumn | 'CANCELLED';
}

/** Every move the card may make now, columns first in board order, cancel last. */
export function movesOf(card: Movable): Move[] {
  const offered = new Set(card.allowedActions);
  // A held card moves only by cancelling (interface.md, "Holds"): the server refuses the rest, so the board does not offer them.
  const moves: Move[] = card.hold
    ? []
    : BOARD_COLUMNS.flatMap((to) => Object.entries(LEADS_TO).filter(([action, col]) => col === to && col !== card.status && offered.has(action)).map(([action]) => ({ action, to })));
  if (offered.has('cancel')) moves.push({ action: 'cancel', to: 'CANCELLED' });
  return moves;
}

/** The move that takes the card to this column, or null when none is offered (the drop is refused). */
export const moveTo = (card: Movable, column: string): Move | null => movesOf(card).find((m) => m.to === column) ?? null;
