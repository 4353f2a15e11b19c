import { useInfiniteQuery, useQuery } from '@tanstack/react-query';
import { type FormEvent, useState } from 'react';
import { ProofBadge } from './proof-badge';
import { Link, useSearchParams } from 'wouter';
import { type PiStatus, type Stats, api } from '../../api';
import { PageTitle, QueryError, StatusBadge } from '../../components';
import { PI_LABELS, STAGES, STAGE_FILTERS, STAGE_LABELS, type Stage, formatDate, formatDay, formatNumber, personName } from '../../format';
import { OverdueBadge } from '../../components/job-fields';
import { FloorBadges, JobNumber, jobName } from '../../components/floor';
import { useUser } from '../../session';

const PAGE_SIZE = 20;

/** The projects the user may see: filter by status, search by name, more on demand (live: refreshes on project-updated). */
export function ProjectsPage() {
  const user = useUser();
  const [params, setParams] = useSearchParams();
  const status = STAGES.find((s) => s === params.get('status')) ?? '';
  const q = params.get('q') ?? '';
  const due = DUE_FILTERS.find((d) => d === params.get('due')) ?? '';
  const piStatus = PI_STATUSES.find((s) => s === params.get('piStatus')) ?? '';
  const customerId = params.get('customerId') ?? '';
  // The floor's marks: held or rush jobs only (the dashboard's tiles link here).
  const held = params.get('held') === 'true' ? 'true' : '';
  const rush = params.get('rush') === 'true' ? 'true' : '';
  const sort = SORTS.find((s) => s === params.get('sort')) ?? '';
  const [search, setSearch] = useState(q);
  const customers = useQuery({ queryKey: ['customers', { active: 'all', limit: 200 }], queryFn: () => api.customers({ active: 'all', limit: 200 }) });
  // The list's filter as the API takes it: also the CSV's.
  const filter = { ...(status ? STAGE_FILTERS[status] : {}), q, due, piStatus, customerId, held, rush, sort };

  const projects = useInfiniteQuery({
    queryKey: ['projects', { status, q, due, piStatus, customerId, held, rush, sort }],
    queryFn: ({ pageParam }) => api.projects({ ...filter, limit: PAGE_SIZE, cursor: pageParam }),
    initialPageParam: undefined as string | undefined,
    getNextPageParam: (last) => last.nextCursor ?? undefined,
  });
  const items = projects.data?.pages.flatMap((p) => p.items) ?? [];
  // The total, from the dashboard's figures, when the list is not narrowed by a search.
  const narrowed = Boolean(q || due || piStatus || customerId || held || rush);
  const stats = useQuery({ queryKey: ['stats'], queryFn: api.stats, enabled: !narrowed });
  const total = !narrowed && stats.data ? totalOf(stats.data, status) : null;

  const setFilter = (next: { status?: string; q?: string; due?: string; piStatus?: string; customerId?: string; held?: string; rush?: string; sort?: string }) => {
    const merged = { status, q, due, piStatus, customerId, held, rush, sort, ...next };
    setParams(Object.fromEntries(Object.entries(merged).filter(([, v]) => v)), { replace: true });
  };
  const submit = (e: FormEvent) => {
    e.preventDefault();
    setFilter({ q: search.trim() });
  };
  const filtered = Boolean(status || narrowed);

  return (
    <>
      <PageTitle
        actions={
          <>
            <a className="button secondary" href={api.projectsCsvUrl(filter)} download data-testid="download-csv">
              Download CSV
            </a>
            <Link href="/projects/new" className="button primary">
              New project
            </Link>
          </>
        }
      >
        Projects
      </PageTitle>
      <form className="filters" role="search" onSubmit={submit}>
        <div className="field">
          <label htmlFor="project-status">Status</label>
          <select id="project-status" value={status} onChange={(e) => setFilter({ status: e.target.value })}>
            <option value="">All statuses</option>
            {STAGES.map((s) => (
              <option key={s} value={s}>
                {STAGE_LABELS[s]}
              </option>
            ))}
          </select>
        </div>
        <div className="field">
          <label htmlFor="project-due">Due</label>
          <select id="project-due" value={due} onChange={(e) => setFilter({ due: e.target.value })}>
            <option value="">Any time</option>
            {DUE_FILTERS.map((d) => (
              <option key={d} value={d}>
                {DUE_LABELS[d]}
              </option>
            ))}
          </select>
        </div>
        <div className="field">
          <label htmlFor="project-floor">Hold and rush</label>
          <select
            id="project-floor"
            value={held ? 'held' : rush ? 'rush' : ''}
            onChange={(e) => setFilter({ held: e.target.value === 'held' ? 'true' : '', rush: e.target.value === 'rush' ? 'true' : '' })}
          >
            <option value="">Any</option>
            <option value="held">On hold</option>
            <option value="rush">Rush</option>
          </select>
        </div>
        <div className="field">
          <label htmlFor="project-pi">PI</label>
          <select id="project-pi" value={piStatus} onChange={(e) => setFilter({ piStatus: e.target.value })}>
            <option value="">Any PI status</option>
            {PI_STATUSES.map((s) => (
              <option key={s} value={s}>
                {PI_LABELS[s]}
              </option>
            ))}
          </select>
        </div>
        {(customers.data?.items.length ?? 0) > 0 && (
          <div className="field">
            <label htmlFor="project-customer">Customer</label>
            <select id="project-customer" value={customerId} onChange={(e) => setFilter({ customerId: e.target.value })}>
              <option value="">All customers</option>
              {customers.data?.items.map((c) => (
                <option key={c.id} value={c.id}>
                  {c.name}
                </option>
              ))}
            </select>
          </div>
        )}
        <div className="field">
          <label htmlFor="project-sort">Sort</label>
          <select id="project-sort" value={sort} onChange={(e) => setFilter({ sort: e.target.value })}>
            <option value="">Newest first</option>
            <option value="due">Due date, earliest first</option>
            <option value="priority">Priority: rush first, held last</option>
          </select>
        </div>
        <div className="field grow">
          <label htmlFor="project-search">Job number, name, reference or POC</label>
          <input id="project-search" type="search" value={search} onChange={(e) => setSearch(e.target.value)} placeholder="e.g. #1042 or catalogue" />
        </div>
        <button type="submit" className="secondary">
          Search
        </button>
        {filtered && (
          <button
            type="button"
            className="link-button"
            onClick={() => {
              setSearch('');
              setParams({}, { replace: true });
            }}
          >
            Clear filters
          </button>
        )}
      </form>

      {!projects.data && <QueryError query={projects} what="The projects" />}
      {projects.isPending && <p className="muted">Loading projects…</p>}
      {projects.isSuccess && !items.length && <p className="empty">{filtered ? 'No project matches these filters.' : 'No projects yet.'}</p>}
      {items.length > 0 && (
        <div className="card flush table-scroll">
          <table className="table responsive">
            <caption className="visually-hidden">Projects{status ? `, ${STAGE_LABELS[status]}` : ''}{q ? `, job number, name, reference or POC matching “${q}”` : ''}</caption>
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">Status</th>
                <th scope="col">Customer</th>
                <th scope="col">Due</th>
                <th scope="col">PI</th>
                {user.role === 'ADMIN' && <th scope="col">Point of contact</th>}
                <th scope="col">Created</th>
              </tr>
            </thead>
            <tbody>
              {items.map((p) => (
                <tr key={p.id}>
                  <td data-label="Name" className="name-cell">
                    <Link href={`/projects/${p.id}`} className="strong-link" title={jobName(p)}>
                      <JobNumber number={p.number} /> {p.name}
                    </Link>
                  </td>
                  <td data-label="Status">
                    <span className="badge-row">
                      <StatusBadge project={p} /> <FloorBadges project={p} /> <ProofBadge proof={p.proof} />
                    </span>
                  </td>
                  <td data-label="Customer">{p.customerName ?? '—'}</td>
                  <td data-label="Due" data-testid="due-cell">
                    {p.dueDate ? <time dateTime={p.dueDate}>{formatDay(p.dueDate)}</time> : '—'} {p.overdue && <OverdueBadge />}
                  </td>
                  <td data-label="PI">{PI_LABELS[p.piStatus]}</td>
                  {user.role === 'ADMIN' && <td data-label="Point of contact">{personName(p.pocId, p.pocName, user) ?? '—'}</td>}
                  <td data-label="Created">
                    <time dateTime={p.createdAt}>{formatDate(p.createdAt)}</time>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      <div className="pager">
        {items.length > 0 && (
          <span className="muted" role="status">
            Showing {formatNumber(items.length)}
            {projects.hasNextPage && total !== null && total > items.length ? ` of ${formatNumber(total)}` : ''} {items.length === 1 ? 'project' : 'projects'}
            {projects.hasNextPage ? '' : ' (all)'}
          </span>
        )}
        {projects.hasNextPage && (
          <button type="button" className="secondary" onClick={() => void projects.fetchNextPage()} disabled={projects.isFetchingNextPage}>
            {projects.isFetchingNextPage ? 'Loading…' : 'Show more'}
          </button>
        )}
      </div>
    </>
  );
}

/** How many projects a stage filter lists, by the dashboard's figures. */
function totalOf(stats: Stats, stage: Stage | ''): number {
  const p = stats.projects;
  if (!stage) return p.total;
  if (stage === 'REJECTED') return p.rejected;
  if (stage === 'REQUESTED') return p.byStatus.REQUESTED - p.rejected;
  return p.byStatus[stage];
}

const DUE_FILTERS = ['overdue', 'today', 'week'] as const;
const SORTS = ['due', 'priority'] as const;
const DUE_LABELS: Record<(typeof DUE_FILTERS)[number], string> = { overdue: 'Overdue', today: 'Due today', week: 'Due this week' };
const PI_STATUSES = Object.keys(PI_LABELS) as PiStatus[];
