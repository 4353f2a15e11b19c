import { useMutation, useQueryClient } from '@tanstack/react-query';
import { type FormEvent, useId, useState } from 'react';
import { Link, useLocation } from 'wouter';
import type { Project, ProjectDetail } from '../../api';
import { api } from '../../api';
import { ErrorMessage } from '../../components';
import { FloorBadges, JobNumber } from '../../components/floor';
import { formatDateTime, personName } from '../../format';
import { useUser } from '../../session';
import { MAX_HOLD_REASON } from '../../../../src/domain/limits';

/** Under the title: Rush and Held, and the job this one repeats. */
export function TitleBadges({ project: p }: { project: Project }) {
  if (!p.rush && !p.hold && !p.repeatOf) return null;
  return (
    <div className="title-badges" data-testid="title-badges">
      <FloorBadges project={p} />
      {p.repeatOf && (
        <span className="muted small-text" data-testid="repeat-of">
          Reorder of{' '}
          <Link href={`/projects/${p.repeatOf.id}`}>
            <JobNumber number={p.repeatOf.number} /> {p.repeatOf.name}
          </Link>
        </span>
      )}
    </div>
  );
}

/** A held project says so at the top of its page, with the reason, to everyone who may see it. */
export function HoldBanner({ project: p }: { project: Project }) {
  const me = useUser();
  if (!p.hold) return null;
  const by = personName(p.hold.byId, p.hold.byName, me);
  return (
    <div className="hold-banner" role="status" data-testid="hold-banner">
      <p>
        <strong>On hold:</strong> <span className="hold-reason-text">{p.hold.reason}</span>
      </p>
      <p className="muted small-text">
        Since <time dateTime={p.hold.since}>{formatDateTime(p.hold.since)}</time>
        {by ? `, by ${by}` : ''}. Every step but cancelling waits until it is released.
      </p>
    </div>
  );
}

/**
 * The floor's controls, offered as the service says (canHold, canEditDetails, canReorder): hold
 * with a reason or release, the rush flag, and a reorder in one click. Nothing when none applies.
 */
export function FloorControls({ project: p }: { project: ProjectDetail }) {
  if (!p.canHold && !p.canEditDetails && !p.canReorder) return null;
  return (
    <section className="card floor-controls" aria-labelledby="floor-title" data-testid="floor-controls">
      <h2 id="floor-title">
        The floor: <JobNumber number={p.number} />
      </h2>
      {p.canEditDetails && <RushToggle project={p} />}
      {p.canHold && (p.hold ? <ReleaseForm project={p} /> : <HoldForm project={p} />)}
      {p.canReorder && <ReorderButton project={p} />}
    </section>
  );
}

/** After a change: the project again (its page, the lists and the board show it). */
function useRefresh(id: string) {
  const queryClient = useQueryClient();
  return () => {
    void queryClient.invalidateQueries({ queryKey: ['project', id] });
    void queryClient.invalidateQueries({ queryKey: ['projects'] });
  };
}

function RushToggle({ project: p }: { project: ProjectDetail }) {
  const queryClient = useQueryClient();
  // What was just chosen, shown until the project's answer says it (or the change is refused).
  const [chosen, setChosen] = useState<boolean | null>(null);
  const change = useMutation({
    mutationFn: (rush: boolean) => api.editDetails(p.id, { rush }),
    onSuccess: async () => {
      void queryClient.invalidateQueries({ queryKey: ['projects'] });
      await queryClient.invalidateQueries({ queryKey: ['project', p.id] });
    },
    onSettled: () => setChosen(null),
  });
  const checked = chosen ?? p.rush;
  return (
    <div className="field">
      <label className="rush-toggle">
        <input type="checkbox" checked={checked} onChange={(e) => {
            if (change.isPending) return;
            setChosen(e.target.checked);
            change.mutate(e.target.checked);
          }} aria-describedby={`rush-hint-${p.id}`} />
        Rush job
      </label>
      <p className="hint" id={`rush-hint-${p.id}`}>
        Rush jobs come first in the priority order (held jobs last), with a Rush mark everywhere.
      </p>
      <ErrorMessage error={change.error} />
    </div>
  );
}

function HoldForm({ project: p }: { project: ProjectDetail }) {
  const refresh = useRefresh(p.id);
  const id = useId();
  const [reason, setReason] = useState('');
  const [blank, setBlank] = useState(false);
  const hold = useMutation({
    mutationFn: () => api.hold(p.id, reason.trim()),
    onSuccess: () => {
      setReason('');
      refresh();
    },
  });
  const submit = (e: FormEvent) => {
    e.preventDefault();
    setBlank(!reason.trim());
    if (reason.trim() && !hold.isPending) hold.mutate();
  };
  return (
    <form onSubmit={submit} noValidate aria-label="Put the project on hold">
      <hr />
      <div className={blank ? 'field has-error' : 'field'}>
        <label htmlFor={id}>Reason for the hold</label>
        <input
          id={id}
          value={reason}
          onChange={(e) => setReason(e.target.value)}
          maxLength={MAX_HOLD_REASON}
          autoComplete="off"
          placeholder="e.g. Waiting for the logo in vector"
          aria-invalid={blank}
          aria-describedby={blank ? `${id}-error` : undefined}
        />
        {blank && (
          <p className="field-error" id={`${id}-error`}>
            Say why the job is held: everyone who sees the project reads it.
          </p>
        )}
      </div>
      <ErrorMessage error={hold.error} />
      <div className="button-row">
        <button type="submit" className="secondary" aria-disabled={hold.isPending}>
          {hold.isPending ? 'Holding…' : 'Put on hold'}
        </button>
      </div>
    </form>
  );
}

function ReleaseForm({ project: p }: { project: ProjectDetail }) {
  const refresh = useRefresh(p.id);
  const id = useId();
  const [note, setNote] = useState('');
  const release = useMutation({
    mutationFn: () => api.release(p.id, note.trim() || undefined),
    onSuccess: () => {
      setNote('');
      refresh();
    },
  });
  const submit = (e: FormEvent) => {
    e.preventDefault();
    if (!release.isPending) release.mutate();
  };
  return (
    <form onSubmit={submit} aria-label="Release the hold">
      <hr />
      <div className="field">
        <label htmlFor={id}>Note (optional)</label>
        <input id={id} value={note} onChange={(e) => setNote(e.target.value)} maxLength={2000} autoComplete="off" placeholder="e.g. Logo received" />
      </div>
      <ErrorMessage error={release.error} />
      <div className="button-row">
        <button type="submit" className="primary" aria-disabled={release.isPending}>
          {release.isPending ? 'Releasing…' : 'Release the hold'}
        </button>
      </div>
    </form>
  );
}

/** One click: a new request with this job's name, customer, address and lines; its page opens. */
function ReorderButton({ project: p }: { project: ProjectDetail }) {
  const queryClient = useQueryClient();
  const [, navigate] = useLocation();
  const reorder = useMutation({
    mutationFn: () => api.reorder(p.id),
    onSuccess: (created) => {
      void queryClient.invalidateQueries({ queryKey: ['projects'] });
      navigate(`/projects/${created.id}`);
    },
  });
  return (
    <div>
      <hr />
      <div className="button-row">
        <button type="button" className="secondary" onClick={() => !reorder.isPending && reorder.mutate()} aria-disabled={reorder.isPending}>
          {reorder.isPending ? 'Reordering…' : 'Reorder'}
        </button>
      </div>
      <p className="hint">A new request with the same job and lines, to approve and price again.</p>
      <ErrorMessage error={reorder.error} />
    </div>
  );
}
