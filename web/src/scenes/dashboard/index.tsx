import { useQuery } from '@tanstack/react-query';
import { Link } from 'wouter';
import { DOCUMENT_TYPES, ROLES, type Stats, api } from '../../api';
import { ActivityList, PageTitle, QueryError, StatusBadge } from '../../components';
import { DOCUMENT_SHORT_LABELS, ROLE_LABELS, STAGES, STAGE_LABELS, type Stage, formatDate, formatDay, formatMoney, formatNumber, personName } from '../../format';
import { OverdueBadge } from '../../components/job-fields';
import { FloorBadges, jobName } from '../../components/floor';
import { ReportHeadline } from '../reports/Headline';
import { useUser } from '../../session';

function Tile({ label, value, href, testId, alert = false }: { label: string; value: number; href?: string; testId: string; alert?: boolean }) {
  return (
    <div className={alert ? 'tile tile-alert' : 'tile'} data-testid={testId}>
      <dt>{href ? <Link href={href}>{label}</Link> : label}</dt>
      <dd>{formatNumber(value)}</dd>
    </div>
  );
}

/** Projects at each stage: a rejected request is counted apart from those awaiting a decision. */
const stageCount = (stats: Stats, stage: Stage): number =>
  stage === 'REJECTED' ? stats.projects.rejected : stage === 'REQUESTED' ? stats.projects.byStatus.REQUESTED - stats.projects.rejected : stats.projects.byStatus[stage];

/** Counts by stage and type (live: they refresh on stats-updated), what awaits the user, and the latest activity. */
export function DashboardPage() {
  const user = useUser();
  const isAdmin = user.role === 'ADMIN';
  const stats = useQuery({ queryKey: ['stats'], queryFn: api.stats });
  const activity = useQuery({ queryKey: ['activity', { limit: 10 }], queryFn: () => api.activity({ limit: 10 }) });
  // Project names for the activity list (the entries carry the project's id, not its name).
  const projects = useQuery({ queryKey: ['projects', { limit: 200 }], queryFn: () => api.projects({ limit: 200 }) });
  const projectName = (id: string) => {
    const found = projects.data?.items.find((p) => p.id === id);
    return found && jobName(found);
  };
  // Admins decide on requests; an owner corrects what was rejected.
  const waitingFilter = isAdmin ? { status: 'REQUESTED', approval: 'PENDING' } : { status: 'REQUESTED', approval: 'REJECTED' };
  const waiting = useQuery({ queryKey: ['projects', { ...waitingFilter, limit: 10 }], queryFn: () => api.projects({ ...waitingFilter, limit: 10 }) });
  const empty = stats.data?.projects.total === 0;

  return (
    <>
      <PageTitle>Dashboard</PageTitle>
      <p className="muted lead">
        Welcome, {user.name}. {isAdmin ? 'Figures cover every project.' : 'Figures cover your projects.'}
      </p>
      {empty && (
        <div className="notice" data-testid="getting-started">
          <p>
            <strong>No projects yet.</strong>{' '}
            {isAdmin ? (
              <>
                Start by adding the people who will work with you on the <Link href="/team">Team</Link> page, then{' '}
                <Link href="/projects/new">create the first project</Link> for one of them.
              </>
            ) : (
              <>
                <Link href="/projects/new">Request your first project</Link>; an admin approves it, and you can then add its documents.
              </>
            )}
          </p>
        </div>
      )}
      {isAdmin && <ReportHeadline />}
      {!stats.data && <QueryError query={stats} what="The figures" />}
      {stats.isPending && <p className="muted">Loading figures…</p>}
      {waiting.data && waiting.data.items.length > 0 && (
        <section className="card" aria-labelledby="waiting-title" data-testid="waiting">
          <h2 id="waiting-title">{isAdmin ? 'Awaiting your decision' : 'Rejected: correct and ask again'}</h2>
          <ul className="queue">
            {waiting.data.items.map((p) => (
              <li key={p.id}>
                <Link href={`/projects/${p.id}`} className="strong-link">
                  <span className="job-number">#{p.number}</span> {p.name}
                </Link>{' '}
                <FloorBadges project={p} />
                <span className="muted small-text">
                  {isAdmin ? `${personName(p.pocId, p.pocName, user) ?? 'Someone'} · ` : ''}
                  asked <time dateTime={p.createdAt}>{formatDate(p.createdAt)}</time>
                </span>
                <span className="small-text due-when">
                  {p.dueDate ? (
                    <>
                      Due <time dateTime={p.dueDate}>{formatDay(p.dueDate)}</time>
                    </>
                  ) : (
                    <span className="muted">No due date</span>
                  )}
                  {p.overdue && <> <OverdueBadge /></>}
                </span>
                <StatusBadge project={p} />
              </li>
            ))}
          </ul>
          {waiting.data.nextCursor && (
            <Link href={`/projects?status=${isAdmin ? 'REQUESTED' : 'REJECTED'}`}>See them all</Link>
          )}
        </section>
      )}
      {stats.data && (
        <div className="dashboard-grid">
          <section className="card" aria-labelledby="projects-stats">
            <h2 id="projects-stats">
              Projects <span className="count">{formatNumber(stats.data.projects.total)}</span>
            </h2>
            <dl className="tiles">
              {STAGES.map((s) => (
                <Tile key={s} label={STAGE_LABELS[s]} value={stageCount(stats.data, s)} href={`/projects?status=${s}`} testId={`projects-${s}`} />
              ))}
            </dl>
          </section>
          <section className="card" aria-labelledby="due-stats" data-testid="due">
            <h2 id="due-stats">Due dates, PIs, proofs and holds</h2>
            <dl className="tiles">
              <Tile label="Overdue" value={stats.data.due.overdue} href="/projects?due=overdue&sort=due" testId="due-overdue" alert={stats.data.due.overdue > 0} />
              <Tile label="Due today" value={stats.data.due.today} href="/projects?due=today&sort=due" testId="due-today" />
              <Tile label="Due this week" value={stats.data.due.week} href="/projects?due=week&sort=due" testId="due-week" />
              <Tile label="PIs awaiting verification" value={stats.data.pi.awaitingVerification} href="/projects?piStatus=SUBMITTED" testId="pi-awaiting" />
              {stats.data.proofs && <Tile label="Proofs awaiting the customer" value={stats.data.proofs.awaitingCustomer} testId="proofs-awaiting" />}
              {stats.data.proofs && <Tile label="Proofs with changes requested" value={stats.data.proofs.changesRequested} testId="proofs-changes" alert={stats.data.proofs.changesRequested > 0} />}
              <Tile label="On hold" value={stats.data.held} href="/projects?held=true&sort=priority" testId="floor-held" alert={stats.data.held > 0} />
              <Tile label="Rush" value={stats.data.rush} href="/projects?rush=true&sort=priority" testId="floor-rush" />
            </dl>
            {stats.data.pi.outstanding && (
              <div className="outstanding" data-testid="outstanding">
                <h3>Outstanding</h3>
                {Object.keys(stats.data.pi.outstanding).length === 0 ? (
                  <p className="muted small-text">Nothing is owed.</p>
                ) : (
                  <ul className="plain-list">
                    {Object.entries(stats.data.pi.outstanding).map(([currency, o]) => (
                      <li key={currency}>
                        <strong>{formatMoney(o.amount, currency)}</strong>{' '}
                        <span className="muted">
                          on {formatNumber(o.projects)} {o.projects === 1 ? 'project' : 'projects'}
                        </span>
                      </li>
                    ))}
                  </ul>
                )}
              </div>
            )}
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
                Team{' '}
                <span className="count" data-testid="team-count">
                  {formatNumber(stats.data.team.total)} {stats.data.team.total === 1 ? 'member' : 'members'}, {formatNumber(stats.data.team.active)} active
                </span>
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
        {!activity.data && <QueryError query={activity} what="The activity" />}
        {activity.data && <ActivityList entries={activity.data.items} projectName={projectName} />}
      </section>
    </>
  );
}
