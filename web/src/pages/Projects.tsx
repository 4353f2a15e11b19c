import { useInfiniteQuery, useQuery } from '@tanstack/react-query';
import { type FormEvent, useState } from 'react';
import { Link, useSearchParams } from 'wouter';
import { type Stats, api } from '../api';
import { PageTitle, QueryError, StatusBadge } from '../components';
import { PI_LABELS, STAGES, STAGE_FILTERS, STAGE_LABELS, type Stage, formatDate, formatNumber, personName } from '../format';
import { useUser } from '../session';

const PAGE_SIZE = 20;

/** The projects the user may see: filter by status, search by name, more on demand (live: refreshes on project-updated). */
export function ProjectsPage() {
  const user = useUser();
  const [params, setParams] = useSearchParams();
  const status = STAGES.find((s) => s === params.get('status')) ?? '';
  const q = params.get('q') ?? '';
  const [search, setSearch] = useState(q);

  const projects = useInfiniteQuery({
    queryKey: ['projects', { status, q }],
    queryFn: ({ pageParam }) => api.projects({ ...(status ? STAGE_FILTERS[status] : {}), q, limit: PAGE_SIZE, cursor: pageParam }),
    initialPageParam: undefined as string | undefined,
    getNextPageParam: (last) => last.nextCursor ?? undefined,
  });
  const items = projects.data?.pages.flatMap((p) => p.items) ?? [];
  // The total, from the dashboard's figures, when the list is not narrowed by a search.
  const stats = useQuery({ queryKey: ['stats'], queryFn: api.stats, enabled: !q });
  const total = !q && stats.data ? totalOf(stats.data, status) : null;

  const setFilter = (next: { status?: string; q?: string }) => {
    const merged = { status, q, ...next };
    setParams(Object.fromEntries(Object.entries(merged).filter(([, v]) => v)), { replace: true });
  };
  const submit = (e: FormEvent) => {
    e.preventDefault();
    setFilter({ q: search.trim() });
  };
  const filtered = Boolean(status || q);

  return (
    <>
      <PageTitle
        actions={
          <Link href="/projects/new" className="button primary">
            New project
          </Link>
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
        <div className="field grow">
          <label htmlFor="project-search">Name contains</label>
          <input id="project-search" type="search" value={search} onChange={(e) => setSearch(e.target.value)} placeholder="e.g. catalogue" />
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
            <caption className="visually-hidden">Projects{status ? `, ${STAGE_LABELS[status]}` : ''}{q ? `, name contains “${q}”` : ''}</caption>
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">Status</th>
                <th scope="col">PI</th>
                {user.role === 'ADMIN' && <th scope="col">Point of contact</th>}
                <th scope="col">Created</th>
              </tr>
            </thead>
            <tbody>
              {items.map((p) => (
                <tr key={p.id}>
                  <td data-label="Name" className="name-cell">
                    <Link href={`/projects/${p.id}`} className="strong-link" title={p.name}>
                      {p.name}
                    </Link>
                  </td>
                  <td data-label="Status">
                    <StatusBadge project={p} />
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
