import {
  DndContext,
  type DragEndEvent,
  type KeyboardCoordinateGetter,
  KeyboardSensor,
  PointerSensor,
  rectIntersection,
  useDroppable,
  useSensor,
  useSensors,
} from '@dnd-kit/core';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useMemo, useState } from 'react';
import { useSearch, useLocation } from 'wouter';
import { api } from '../../api';
import { PageTitle, QueryError } from '../../components';
import { formatNumber } from '../../format';
import { useUser } from '../../session';
import { type BoardCard, fetchBoard } from './api';
import { Card, type CardNote, refusalText } from './card';
import { STATUS_TITLES } from './columns';
import { BOARD_COLUMNS, type BoardColumn, type Move, moveTo } from './moves';
import './board.css';
import { jobName } from '../../components/floor';

/** Cards drawn per column before "Show all": 2,000 open projects stay smooth to scroll and drag. */
const SHOWN = 60;

/**
 * Arrow keys jump a picked-up card to the next column left or right (dnd-kit moves it by pixels
 * otherwise): the columns are the droppables, found by their place on screen.
 */
const byColumn: KeyboardCoordinateGetter = (event, { context: { droppableRects, collisionRect } }) => {
  if ((event.code !== 'ArrowRight' && event.code !== 'ArrowLeft') || !collisionRect) return undefined;
  event.preventDefault();
  const rects = [...droppableRects.values()].sort((a, b) => a.left - b.left);
  const centre = collisionRect.left + collisionRect.width / 2;
  const target = event.code === 'ArrowRight' ? rects.find((r) => r.left > centre) : [...rects].reverse().find((r) => r.left + r.width < centre);
  if (!target) return undefined;
  return { x: target.left + (target.width - collisionRect.width) / 2, y: target.top + 40 };
};

/** The board (issue 36): a column per status, cards in priority order, moved by the lifecycle actions the server allows. */
export function BoardPage() {
  const user = useUser();
  const queryClient = useQueryClient();
  const search = new URLSearchParams(useSearch());
  const [, navigate] = useLocation();
  const filter = { pocId: search.get('pocId') ?? '', customerId: search.get('customerId') ?? '' };
  const setFilter = (change: Partial<typeof filter>) => {
    const next = new URLSearchParams(Object.entries({ ...filter, ...change }).filter(([, v]) => v));
    navigate(`/board${next.size ? `?${next}` : ''}`, { replace: true });
  };
  // Under the realtime hook's ['projects'] key: another person's change refetches the board at once.
  const board = useQuery({ queryKey: ['projects', 'board', filter.pocId, filter.customerId], queryFn: () => fetchBoard(filter) });
  const isAdmin = user.role === 'ADMIN';
  const team = useQuery({ queryKey: ['team'], queryFn: api.team, enabled: isAdmin });
  const customers = useQuery({ queryKey: ['customers', 'board'], queryFn: () => api.customers({ limit: 200 }), enabled: isAdmin });
  const [notes, setNotes] = useState<Record<string, CardNote>>({});
  const [picked, setPicked] = useState<BoardColumn>('REQUESTED');
  const [all, setAll] = useState<Set<BoardColumn>>(new Set());
  const [status, setStatus] = useState('');

  const move = useMutation({
    mutationFn: ({ card, move }: { card: BoardCard; move: Move }) => api.act(card.id, move.action as Parameters<typeof api.act>[1]),
    onMutate: ({ card }) => setNotes(({ [card.id]: _, ...rest }) => rest),
    onSuccess: (_done, { card, move }) => {
      setStatus(`${jobName(card)} moved to ${STATUS_TITLES[move.to]}.`);
      return queryClient.invalidateQueries({ queryKey: ['projects'] });
    },
    onError: (error, { card }) => {
      setNotes((n) => ({ ...n, [card.id]: { text: refusalText(error), at: card.updatedAt } }));
      setStatus(`#${card.number} not moved: ${refusalText(error)}`);
      return queryClient.invalidateQueries({ queryKey: ['projects'] });
    },
  });
  const take = (card: BoardCard, m: Move) => {
    if (m.action === 'cancel' && !window.confirm(`Cancel ${jobName(card)}? This cannot be undone.`)) return;
    move.mutate({ card, move: m });
  };

  const columns = useMemo(() => {
    const by = Object.fromEntries(BOARD_COLUMNS.map((c) => [c, [] as BoardCard[]])) as Record<BoardColumn, BoardCard[]>;
    for (const card of board.data?.items ?? []) by[card.status as BoardColumn]?.push(card);
    return by;
  }, [board.data]);

  const sensors = useSensors(useSensor(PointerSensor, { activationConstraint: { distance: 6 } }), useSensor(KeyboardSensor, { coordinateGetter: byColumn }));
  const onDragEnd = ({ active, over }: DragEndEvent) => {
    const card = active.data.current?.card as BoardCard | undefined;
    if (!card || !over || over.id === card.status) return;
    const m = moveTo(card, String(over.id));
    if (m) return take(card, m);
    const text = card.hold ? `On hold: only cancelling is possible (${card.hold.reason}).` : `It cannot move to ${STATUS_TITLES[over.id as BoardColumn]} now.`;
    setNotes((n) => ({ ...n, [card.id]: { text, at: card.updatedAt } }));
  };
  const titleOf = (id: unknown) => {
    const card = board.data?.items.find((c) => c.id === id);
    return card ? jobName(card) : 'The card';
  };

  return (
    <>
      <PageTitle>Board</PageTitle>
      <form className="filters board-filters" onSubmit={(e) => e.preventDefault()}>
        {isAdmin && (
          <div className="field">
            <label htmlFor="board-poc">Point of contact</label>
            <select id="board-poc" value={filter.pocId} onChange={(e) => setFilter({ pocId: e.target.value })}>
              <option value="">Everyone</option>
              {team.data
                ?.filter((m) => m.role !== 'CLIENT')
                .map((m) => (
                  <option key={m.id} value={m.id}>
                    {m.name}
                  </option>
                ))}
            </select>
          </div>
        )}
        {isAdmin && (
          <div className="field">
            <label htmlFor="board-customer">Customer</label>
            <select id="board-customer" value={filter.customerId} onChange={(e) => setFilter({ customerId: e.target.value })}>
              <option value="">All customers</option>
              {customers.data?.items.map((c) => (
                <option key={c.id} value={c.id}>
                  {c.name}
                </option>
              ))}
            </select>
          </div>
        )}
        <div className="field board-picker">
          <label htmlFor="board-column">Column</label>
          <select id="board-column" value={picked} onChange={(e) => setPicked(e.target.value as BoardColumn)}>
            {BOARD_COLUMNS.map((c) => (
              <option key={c} value={c}>
                {STATUS_TITLES[c]} ({formatNumber(columns[c].length)})
              </option>
            ))}
          </select>
        </div>
      </form>
      <p className="visually-hidden" role="status">
        {status}
      </p>
      {!board.data && <QueryError query={board} what="The board" />}
      {board.isPending && <p className="muted">Loading the board…</p>}
      {board.data && (
        <DndContext
          sensors={sensors}
          collisionDetection={rectIntersection}
          onDragEnd={onDragEnd}
          accessibility={{
            screenReaderInstructions: {
              draggable: 'Press space to pick the card up, the arrow keys to choose a column, space again to drop it there, escape to put it back. The Move menu on each card does the same.',
            },
            announcements: {
              onDragStart: ({ active }) => `Picked up ${titleOf(active.id)}.`,
              onDragOver: ({ active, over }) => (over ? `${titleOf(active.id)} is over ${STATUS_TITLES[over.id as BoardColumn]}.` : `${titleOf(active.id)} is over no column.`),
              onDragEnd: ({ active, over }) => (over ? `${titleOf(active.id)} dropped on ${STATUS_TITLES[over.id as BoardColumn]}.` : `${titleOf(active.id)} put back.`),
              onDragCancel: ({ active }) => `${titleOf(active.id)} put back.`,
            },
          }}
        >
          <div className="board">
            {BOARD_COLUMNS.map((c) => (
              <Column key={c} column={c} picked={picked === c}>
                {(all.has(c) ? columns[c] : columns[c].slice(0, SHOWN)).map((card) => (
                  <Card
                    key={card.id}
                    card={card}
                    today={board.data.today}
                    busy={move.isPending && move.variables?.card.id === card.id}
                    note={notes[card.id]?.at === card.updatedAt ? notes[card.id]! : null}
                    onMove={take}
                  />
                ))}
                {!all.has(c) && columns[c].length > SHOWN && (
                  <li>
                    <button type="button" className="secondary" onClick={() => setAll(new Set([...all, c]))}>
                      Show all {formatNumber(columns[c].length)}
                    </button>
                  </li>
                )}
              </Column>
            ))}
          </div>
        </DndContext>
      )}
    </>
  );
}

function Column({ column, picked, children }: { column: BoardColumn; picked: boolean; children: React.ReactNode }) {
  const { setNodeRef, isOver } = useDroppable({ id: column });
  const titleId = `column-${column}`;
  return (
    <section ref={setNodeRef} className={`board-column${picked ? ' picked' : ''}${isOver ? ' over' : ''}`} aria-labelledby={titleId} data-column={column}>
      <h2 id={titleId}>{STATUS_TITLES[column]}</h2>
      <ul className="board-cards">{children}</ul>
    </section>
  );
}
