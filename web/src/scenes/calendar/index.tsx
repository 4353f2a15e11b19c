import { DndContext, type DragEndEvent, KeyboardSensor, PointerSensor, pointerWithin, useDraggable, useDroppable, useSensor, useSensors } from '@dnd-kit/core';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useMemo, useState } from 'react';
import { Link, useLocation, useSearch } from 'wouter';
import { ApiError, type Project, api } from '../../api';
import { PageTitle, QueryError } from '../../components';
import { todayIso } from '../../format';
import { fetchDue } from './api';
import { addDays, addMonths, dayOfMonth, daysOf, formatLongDay, formatMonth, formatWeekday, monthOf } from './dates';
import './calendar.css';
import { FloorBadges, JobNumber, jobName } from '../../components/floor';

type View = 'month' | 'week';
/** Jobs drawn in a month's day before "+N more" (the day's list shows them all). */
const IN_CELL = 3;

/** The calendar (issue 36): jobs by due date, a month or a week; a job moved to another day gets that due date where the rules allow. */
export function CalendarPage() {
  const search = new URLSearchParams(useSearch());
  const [, navigate] = useLocation();
  const view: View = search.get('view') === 'week' ? 'week' : 'month';
  const anchor = /^\d{4}-\d{2}-\d{2}$/.test(search.get('date') ?? '') ? search.get('date')! : todayIso();
  const go = (change: { view?: View; date?: string }) => navigate(`/calendar?view=${change.view ?? view}&date=${change.date ?? anchor}`, { replace: true });
  const days = daysOf(view, anchor);
  const from = days[0]!;
  const to = days[days.length - 1]!;
  const queryClient = useQueryClient();
  // Under the realtime hook's ['projects'] key: someone else's change redraws the calendar.
  const due = useQuery({ queryKey: ['projects', 'calendar', from, to], queryFn: () => fetchDue(from, to) });
  const byDay = useMemo(() => {
    const map = new Map<string, Project[]>();
    for (const p of due.data ?? []) map.set(p.dueDate!, [...(map.get(p.dueDate!) ?? []), p]);
    return map;
  }, [due.data]);
  const [chosen, setChosen] = useState<string | null>(null);
  const [notes, setNotes] = useState<Record<string, { text: string; at: string }>>({});
  const [status, setStatus] = useState('');
  const today = todayIso();

  const move = useMutation({
    mutationFn: ({ job, day }: { job: Project; day: string }) => api.editDetails(job.id, { dueDate: day }),
    onMutate: ({ job }) => setNotes(({ [job.id]: _, ...rest }) => rest),
    onSuccess: (_p, { job, day }) => {
      setStatus(`${jobName(job)} is now due ${formatLongDay(day)}.`);
      return queryClient.invalidateQueries({ queryKey: ['projects'] });
    },
    onError: (error, { job }) => {
      const text = error instanceof ApiError ? error.message : 'The due date was not changed. Try again.';
      setNotes((n) => ({ ...n, [job.id]: { text, at: job.updatedAt } }));
      setStatus(`#${job.number} not moved: ${text}`);
    },
  });
  const sensors = useSensors(useSensor(PointerSensor, { activationConstraint: { distance: 6 } }), useSensor(KeyboardSensor));
  const onDragEnd = ({ active, over }: DragEndEvent) => {
    const job = active.data.current?.job as Project | undefined;
    if (job && over && over.id !== job.dueDate) move.mutate({ job, day: String(over.id) });
  };
  const noteOf = (job: Project) => (notes[job.id]?.at === job.updatedAt ? notes[job.id]!.text : null);
  const step = (n: number) => go({ date: view === 'week' ? addDays(anchor, 7 * n) : addMonths(anchor, n) });

  return (
    <>
      <PageTitle>Calendar</PageTitle>
      <div className="calendar-bar">
        <div className="segmented" role="group" aria-label="View">
          <button type="button" aria-pressed={view === 'month'} onClick={() => go({ view: 'month' })}>
            Month
          </button>
          <button type="button" aria-pressed={view === 'week'} onClick={() => go({ view: 'week', date: chosen ?? anchor })}>
            Week
          </button>
        </div>
        <button type="button" className="secondary" onClick={() => step(-1)} aria-label={view === 'week' ? 'Previous week' : 'Previous month'}>
          ‹
        </button>
        <h2 className="calendar-title" aria-live="polite">
          {view === 'month' ? formatMonth(anchor) : `${formatLongDay(from)} – ${formatLongDay(to)}`}
        </h2>
        <button type="button" className="secondary" onClick={() => step(1)} aria-label={view === 'week' ? 'Next week' : 'Next month'}>
          ›
        </button>
        <button type="button" className="link-button" onClick={() => go({ date: today })}>
          Today
        </button>
      </div>
      <p className="visually-hidden" role="status">
        {status}
      </p>
      {!due.data && <QueryError query={due} what="The calendar" />}
      <DndContext sensors={sensors} collisionDetection={pointerWithin} onDragEnd={onDragEnd}>
        <div className={`calendar calendar-${view}`} role="group" aria-label={view === 'month' ? formatMonth(anchor) : 'Week'} aria-busy={due.isPending}>
          {days.slice(0, 7).map((d) => (
            <div key={d} className="calendar-weekday" aria-hidden="true">
              {formatWeekday(d)}
            </div>
          ))}
          {days.map((d) => {
            const jobs = byDay.get(d) ?? [];
            const shown = view === 'week' ? jobs : jobs.slice(0, IN_CELL);
            return (
              <Day key={d} day={d} outside={view === 'month' && monthOf(d) !== monthOf(anchor)} today={d === today} chosen={d === chosen}>
                {view === 'week' && (
                  <span className="week-day-name" aria-hidden="true">
                    {formatWeekday(d)}
                  </span>
                )}
                <button type="button" className="day-button" onClick={() => setChosen(d)} aria-label={`${formatLongDay(d)}: ${jobs.length} ${jobs.length === 1 ? 'job' : 'jobs'}`}>
                  {dayOfMonth(d)}
                </button>
                <ul className="day-jobs">
                  {shown.map((job) => (
                    <Job key={job.id} job={job} note={noteOf(job)} />
                  ))}
                  {jobs.length > shown.length && (
                    <li>
                      <button type="button" className="link-button" onClick={() => setChosen(d)}>
                        +{jobs.length - shown.length} more
                      </button>
                    </li>
                  )}
                </ul>
              </Day>
            );
          })}
        </div>
      </DndContext>
      {chosen && <DayList day={chosen} jobs={byDay.get(chosen) ?? []} noteOf={noteOf} busy={move.isPending} onMove={(job, day) => move.mutate({ job, day })} onClose={() => setChosen(null)} />}
    </>
  );
}

function Day({ day, outside, today, chosen, children }: { day: string; outside: boolean; today: boolean; chosen: boolean; children: React.ReactNode }) {
  const { setNodeRef, isOver } = useDroppable({ id: day });
  return (
    <div ref={setNodeRef} className={`calendar-day${outside ? ' outside' : ''}${today ? ' is-today' : ''}${chosen ? ' chosen' : ''}${isOver ? ' over' : ''}`} data-day={day}>
      {children}
    </div>
  );
}

/** The marks a job carries wherever it is shown. */
function Marks({ job }: { job: Project }) {
  return (
    <>
      <FloorBadges project={job} />
      {job.overdue && <span className="badge badge-overdue">Overdue</span>}
    </>
  );
}

function Job({ job, note }: { job: Project; note: string | null }) {
  const { attributes, listeners, setNodeRef, transform, isDragging } = useDraggable({ id: job.id, data: { job } });
  const style = transform ? { transform: `translate3d(${transform.x}px, ${transform.y}px, 0)` } : undefined;
  return (
    <li ref={setNodeRef} style={style} className={`calendar-job${isDragging ? ' dragging' : ''}`} data-testid="calendar-job" data-id={job.id}>
      <span className="drag-handle" {...listeners} {...attributes} aria-label={`Move ${jobName(job)} to another day`} role="button">
        <JobNumber number={job.number} />
      </span>{' '}
      <Link href={`/projects/${job.id}`} className="job-name">
        {job.name}
      </Link>{' '}
      <Marks job={job} />
      {note && (
        <span className="card-refusal" role="alert">
          {note}
        </span>
      )}
    </li>
  );
}

/** A day's jobs, each with its due date to change by keyboard: the refusal beside the job it is about. */
function DayList({ day, jobs, noteOf, busy, onMove, onClose }: { day: string; jobs: Project[]; noteOf: (j: Project) => string | null; busy: boolean; onMove: (job: Project, day: string) => void; onClose: () => void }) {
  return (
    <section className="card day-list" aria-labelledby="day-list-title">
      <h2 id="day-list-title">Due {formatLongDay(day)}</h2>
      {jobs.length === 0 && <p className="muted">Nothing due this day.</p>}
      <ul>
        {jobs.map((job) => (
          <DayListJob key={job.id} job={job} note={noteOf(job)} busy={busy} onMove={onMove} />
        ))}
      </ul>
      <button type="button" className="secondary" onClick={onClose}>
        Close
      </button>
    </section>
  );
}

function DayListJob({ job, note, busy, onMove }: { job: Project; note: string | null; busy: boolean; onMove: (job: Project, day: string) => void }) {
  const [day, setDay] = useState(job.dueDate ?? '');
  const inputId = `due-${job.id}`;
  return (
    <li data-testid="day-job" data-id={job.id}>
      <Link href={`/projects/${job.id}`}>
        {jobName(job)}
      </Link>{' '}
      <span className="muted">{job.customerName ?? ''}</span> <Marks job={job} />
      <form
        className="inline-form"
        onSubmit={(e) => {
          e.preventDefault();
          if (day && day !== job.dueDate) onMove(job, day);
        }}
      >
        <label htmlFor={inputId}>Due date</label>
        <input id={inputId} type="date" value={day} onChange={(e) => setDay(e.target.value)} required />
        <button type="submit" className="secondary" disabled={busy}>
          Move
        </button>
      </form>
      {note && (
        <p className="card-refusal" role="alert" data-testid="day-refusal">
          {note}
        </p>
      )}
    </li>
  );
}
