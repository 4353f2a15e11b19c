import { useQueryClient } from '@tanstack/react-query';
import { type ReactNode, useEffect, useId, useRef, useSyncExternalStore } from 'react';
import { Link } from 'wouter';
import { type ActivityEntry, ApiError, type Project } from '../api';
import { FIELD_LABELS } from '../../../src/domain/labels';
import { STAGE_LABELS, activityLabel, formatBytes, formatDateTime, personName, stageOf } from '../format';
import { isOutage } from '../query';
import { useLive } from '../realtime';
import { useUser } from '../session';

/** The page's title in the tab and its one h1, which takes the focus when the page opens (for keyboard and screen reader users). */
export function PageTitle({ children, actions }: { children: string; actions?: ReactNode }) {
  const ref = useRef<HTMLHeadingElement>(null);
  useEffect(() => {
    document.title = `${children} · Print orders`;
  }, [children]);
  useEffect(() => {
    ref.current?.focus({ preventScroll: true });
  }, []);
  return (
    <div className="page-title">
      <h1 ref={ref} tabIndex={-1}>
        {children}
      </h1>
      {actions && <div className="page-actions">{actions}</div>}
    </div>
  );
}

/** An error as the API phrased it. */
export function ErrorMessage({ error, id }: { error: unknown; id?: string }) {
  if (!error) return null;
  return (
    <p className="error" role="alert" id={id}>
      {error instanceof Error ? error.message : String(error)}
    </p>
  );
}

/**
 * A form's buttons: the submit, marked busy while the form is sent (aria-disabled, so it keeps the
 * focus) and then showing `busyLabel` when given; Cancel when there is one. `wide` spans a form grid.
 */
export function FormActions({ label, busyLabel, pending, onCancel, wide }: { label: string; busyLabel?: string; pending: boolean; onCancel?: () => void; wide?: boolean }) {
  return (
    <div className={wide ? 'form-actions span-all' : 'form-actions'}>
      <button type="submit" className="primary" aria-disabled={pending}>
        {pending && busyLabel ? busyLabel : label}
      </button>
      {onCancel && (
        <button type="button" className="secondary" onClick={onCancel}>
          Cancel
        </button>
      )}
    </div>
  );
}

/** Under a form grid: the API's refusal of the whole form and, once it is done, what was done. */
export function FormOutcome({ error, done }: { error: unknown; done?: string | null }) {
  return (
    <div className="span-all">
      <ErrorMessage error={error} />
      {done && (
        <p className="success" role="status">
          {done}
        </p>
      )}
    </div>
  );
}

/** The project's stage: its status, or Rejected for a request an admin has rejected. */
export function StatusBadge({ project }: { project: Pick<Project, 'status' | 'approval'> }) {
  const stage = stageOf(project);
  return <span className={`badge badge-${stage.toLowerCase()}`}>{STAGE_LABELS[stage]}</span>;
}

/**
 * A query that has nothing to show: its error, and a way to ask again. (A query that has data
 * keeps showing it; an outage is announced once, by ConnectionNotice.)
 */
export function QueryError({ query, what }: { query: { error: unknown; refetch: () => unknown; isFetching: boolean }; what: string }) {
  if (!query.error) return null;
  return (
    <div className="error" role="alert">
      <p className="error-text">{isOutage(query.error) ? `${what} could not be loaded: the service cannot be reached.` : errorText(query.error)}</p>
      <button type="button" className="secondary small" onClick={() => void query.refetch()} aria-disabled={query.isFetching}>
        {query.isFetching ? 'Trying…' : 'Try again'}
      </button>
    </div>
  );
}

const errorText = (error: unknown) => (error instanceof Error ? error.message : String(error));

/** Whether some request on screen failed because the service could not be reached. */
function useOutage(): boolean {
  const queryClient = useQueryClient();
  const cache = queryClient.getQueryCache();
  return useSyncExternalStore(
    (l) => cache.subscribe(l),
    () => cache.getAll().some((q) => q.state.status === 'error' && isOutage(q.state.error) && q.getObserversCount() > 0),
  );
}

/** "Connection lost, retrying": the pages keep their last data meanwhile, and refresh by themselves once it is back. */
export function ConnectionNotice() {
  const live = useLive();
  const outage = useOutage();
  if (live.state !== 'reconnecting' && !outage) return null;
  return (
    <div className="connection-notice" role="status" data-testid="connection-notice">
      <span>Connection to the service lost. What you see may be out of date; retrying by itself.</span>
      <button type="button" className="secondary small" onClick={live.retry}>
        Retry now
      </button>
    </div>
  );
}

interface FieldProps {
  label: string;
  error?: string | undefined;
  hint?: string;
  children: (props: { id: string; 'aria-invalid': boolean; 'aria-describedby': string | undefined }) => ReactNode;
}

/** A labelled form control with its hint and the API's error for it right below, tied by aria-describedby. */
export function Field({ label, error, hint, children }: FieldProps) {
  const id = useId();
  const described = [error ? `${id}-error` : null, hint ? `${id}-hint` : null].filter(Boolean).join(' ') || undefined;
  return (
    <div className={error ? 'field has-error' : 'field'}>
      <label htmlFor={id}>{label}</label>
      {children({ id, 'aria-invalid': Boolean(error), 'aria-describedby': described })}
      {hint && (
        <p className="hint" id={`${id}-hint`}>
          {hint}
        </p>
      )}
      {error && (
        <p className="field-error" id={`${id}-error`}>
          {error}
        </p>
      )}
    </div>
  );
}

/** The field a message starts with ("Name is required" → name), by the labels the API uses. */
const FIELD_BY_LABEL = new Map(Object.entries(FIELD_LABELS).map(([field, label]) => [label.toLowerCase(), field]));

/**
 * Places an API refusal next to the field it is about: "Email already exists" by the email, "Name
 * is required" by the name, "Name, email and password are required" by each of those left
 * blank. Anything else belongs to the whole form.
 */
export function placeError(err: unknown, values: Record<string, string>): { fields: Record<string, string>; form: string | null } {
  if (!(err instanceof Error)) return { fields: {}, form: null };
  const message = err.message;
  if (/^Email already exists$/i.test(message)) return { fields: { email: message }, form: null };
  if (/^Name, email and password are required$/.test(message)) {
    const blank = ['name', 'email', 'password'].filter((f) => !values[f]?.trim());
    if (blank.length) return { fields: Object.fromEntries(blank.map((f) => [f, message])), form: null };
  }
  for (const [label, field] of FIELD_BY_LABEL) {
    if (message.toLowerCase().startsWith(`${label} `) && field in values) return { fields: { [field]: message }, form: null };
  }
  if (err instanceof ApiError && /last active admin/i.test(message) && 'role' in values) return { fields: { role: message }, form: null };
  return { fields: {}, form: message };
}

/** What an activity entry's details say, in a few words. */
function detailsOf(entry: ActivityEntry): string | null {
  const d = entry.details;
  const parts: string[] = [];
  if (typeof d.filename === 'string') parts.push(typeof d.size === 'number' ? `${d.filename} (${formatBytes(d.size)})` : d.filename);
  if (Array.isArray(d.changed) && d.changed.length) parts.push(`changed ${d.changed.join(', ')}`);
  if (typeof d.note === 'string') parts.push(`note: “${d.note}”`);
  if (typeof d.reason === 'string') parts.push(`reason: “${d.reason}”`);
  return parts.length ? parts.join(' · ') : null;
}

/** A list of activity entries, newest first; `projectName` links each to its project when given. */
export function ActivityList({ entries, projectName }: { entries: ActivityEntry[]; projectName?: (id: string) => string | undefined }) {
  const me = useUser();
  if (!entries.length) return <p className="muted">No activity yet.</p>;
  return (
    <ol className="activity">
      {entries.map((e) => {
        const details = detailsOf(e);
        return (
          <li key={e.id}>
            <div>
              <strong>{personName(e.userId, e.userName, me) ?? (typeof e.details.byName === 'string' ? e.details.byName : 'Someone else')}</strong> {activityLabel(e.action)}
              {projectName && e.entityType === 'project' && (
                <>
                  {' '}
                  <span className="muted">in</span> <Link href={`/projects/${e.entityId}`}>{projectName(e.entityId) ?? 'a project'}</Link>
                </>
              )}
              {details && <div className="muted small-text">{details}</div>}
            </div>
            <time dateTime={e.createdAt} className="muted small-text">
              {formatDateTime(e.createdAt)}
            </time>
          </li>
        );
      })}
    </ol>
  );
}
