import { useDraggable } from '@dnd-kit/core';
import { useState } from 'react';
import { Link } from 'wouter';
import { ApiError } from '../../api';
import { JobNumber, RushBadge, jobName } from '../../components/floor';
import { ACTION_LABELS, PI_LABELS, formatDay } from '../../format';
import { ProofBadge } from '../projects/proof-badge';
import type { BoardCard } from './api';
import { STATUS_TITLES } from './columns';
import { type Move, movesOf } from './moves';

export interface CardNote {
  text: string;
  /** The card's updatedAt it was said about: a later change (someone else's) makes it stale. */
  at: string;
}

/** One card: what the floor needs to see at a glance, a drag handle, and a menu of the moves the server allows. */
export function Card({ card, today, note, busy, onMove }: { card: BoardCard; today: string; note: CardNote | null; busy: boolean; onMove: (card: BoardCard, move: Move) => void }) {
  const moves = movesOf(card);
  const { attributes, listeners, setNodeRef, transform, isDragging } = useDraggable({ id: card.id, data: { card }, disabled: busy });
  const [menu, setMenu] = useState(false);
  const style = transform ? { transform: `translate3d(${transform.x}px, ${transform.y}px, 0)` } : undefined;
  const dueToday = card.dueDate === today;
  const menuId = `moves-${card.id}`;
  return (
    <li ref={setNodeRef} style={style} className={`board-card${isDragging ? ' dragging' : ''}${card.hold ? ' held' : ''}`} data-testid="board-card" data-id={card.id} aria-busy={busy || undefined}>
      <div className="board-card-top">
        <button type="button" className="drag-handle" aria-label={`Move ${jobName(card)}`} {...listeners} {...attributes}>
          ⠿
        </button>
        <JobNumber number={card.number} />
        <RushBadge rush={card.rush} />
      </div>
      <Link href={`/projects/${card.id}`} className="board-card-name strong-link">
        {card.name}
      </Link>
      <div className="muted board-card-customer">{card.customerName ?? 'No customer'}</div>
      <div className="board-card-facts">
        {card.dueDate && (
          <span className={`due${card.overdue ? ' overdue' : dueToday ? ' today' : ''}`}>
            Due <time dateTime={card.dueDate}>{formatDay(card.dueDate)}</time>
            {card.overdue && <span className="badge badge-overdue">Overdue</span>}
            {dueToday && <span className="badge badge-today">Today</span>}
          </span>
        )}
        <span>PI: {PI_LABELS[card.piStatus]}</span>
        <ProofBadge proof={card.proof} />
      </div>
      {card.hold && (
        <p className="hold-reason" data-testid="hold-reason">
          On hold: {card.hold.reason}
        </p>
      )}
      {note && (
        <p className="card-refusal" role="alert" data-testid="card-refusal">
          {note.text}
        </p>
      )}
      {moves.length > 0 && (
        <div className="board-card-menu">
          <button type="button" className="link-button" aria-expanded={menu} aria-controls={menuId} onClick={() => setMenu(!menu)} disabled={busy}>
            {busy ? 'Moving…' : 'Move…'}
          </button>
          {menu && (
            <ul id={menuId} className="move-menu" aria-label={`Moves for #${card.number}`}>
              {moves.map((m) => (
                <li key={m.action}>
                  <button
                    type="button"
                    className={m.action === 'cancel' ? 'link-button danger' : 'link-button'}
                    onClick={() => {
                      setMenu(false);
                      onMove(card, m);
                    }}
                  >
                    {m.to === 'CANCELLED' ? ACTION_LABELS.cancel : `${ACTION_LABELS[m.action as keyof typeof ACTION_LABELS]} → ${STATUS_TITLES[m.to]}`}
                  </button>
                </li>
              ))}
            </ul>
          )}
        </div>
      )}
    </li>
  );
}

/** What a refusal says on the card: the server's words. */
export const refusalText = (error: unknown) => (error instanceof ApiError ? error.message : 'The move failed. Try again.');
