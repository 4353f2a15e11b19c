import { useQuery } from '@tanstack/react-query';
import { Link } from 'wouter';
import { DOCUMENT_TYPES, PROJECT_STATUSES, ROLES, api } from '../api';
import { ActivityList, ErrorMessage, PageTitle } from '../components';
import { DOCUMENT_SHORT_LABELS, ROLE_LABELS, STATUS_LABELS, formatNumber } from '../format';
import { useUser } from '../session';

function Tile({ label, value, href, testId }: { label: string; value: number; href?: string; testId: string }) {
  return (
    <div className="tile" data-testid={testId}>
      <dt>{href ? <Link href={href}>{label}</Link> : label}</dt>
      <dd>{formatNumber(value)}</dd>
    </div>
  );
}

/** Counts by status and type (live: they refresh on stats-updated) and the latest activity. */
export function DashboardPage() {
  const user = useUser();
  const stats = useQuery({ queryKey: ['stats'], queryFn: api.stats });
  const activity = useQuery({ queryKey: ['activity', { limit: 10 }], queryFn: () => api.activity({ limit: 10 }) });
  // Project names for the activity list (the entries carry the project's id, not its name).
  const projects = useQuery({ queryKey: ['projects', { limit: 200 }], queryFn: () => api.projects({ limit: 200 }) });
  const projectName = (id: string) => projects.data?.items.find((p) => p.id === id)?.name;

  return (
    <>
      <PageTitle>Dashboard</PageTitle>
      <p className="muted lead">Welcome, {user.name}. {user.role === 'ADMIN' ? 'Figures cover every project.' : 'Figures cover your projects.'}</p>
      <ErrorMessage error={stats.error} />
      {stats.isPending && <p className="muted">Loading figures…</p>}
      {stats.data && (
        <div className="dashboard-grid">
          <section className="card" aria-labelledby="projects-stats">
            <h2 id="projects-stats">
              Projects <span className="count">{formatNumber(stats.data.projects.total)}</span>
            </h2>
            <dl className="tiles">
              {PROJECT_STATUSES.map((s) => (
                <Tile key={s} label={STATUS_LABELS[s]} value={stats.data.projects.byStatus[s] ?? 0} href={`/projects?status=${s}`} testId={`projects-${s}`} />
              ))}
            </dl>
          </section>
          <section className="card" aria-labelledby="documents-stats">
            <h2 id="documents-stats">
              Documents <span className="count">{formatNumber(stats.data.documents.total)}</span>
            </h2>
            <dl className="tiles">
              {DOCUMENT_TYPES.map((t) => (
                <Tile key={t} label={DOCUMENT_SHORT_LABELS[t]} value={stats.data.documents.byType[t] ?? 0} testId={`documents-${t}`} />
              ))}
            </dl>
          </section>
          {stats.data.team && (
            <section className="card" aria-labelledby="team-stats">
              <h2 id="team-stats">
                Team <span className="count">{formatNumber(stats.data.team.active)} active</span>
              </h2>
              <dl className="tiles">
                {ROLES.map((r) => (
                  <Tile key={r} label={ROLE_LABELS[r]} value={stats.data.team?.byRole[r] ?? 0} href="/team" testId={`team-${r}`} />
                ))}
              </dl>
            </section>
          )}
        </div>
      )}
      <section className="card" aria-labelledby="recent-activity">
        <h2 id="recent-activity">Recent activity</h2>
        <ErrorMessage error={activity.error} />
        {activity.data && <ActivityList entries={activity.data.items} projectName={projectName} />}
      </section>
    </>
  );
}
