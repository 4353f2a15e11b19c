import { useMutation, useQuery } from '@tanstack/react-query';
import { Link, Route, Switch, useRoute } from 'wouter';
import { api } from './api';
import { ErrorMessage } from './components';
import { ROLE_LABELS } from './format';
import { AccountPage } from './pages/Account';
import { DashboardPage } from './pages/Dashboard';
import { NewProjectPage } from './pages/NewProject';
import { NotFoundPage } from './pages/NotFound';
import { ForgotPasswordPage, ResetPasswordPage } from './pages/PasswordReset';
import { ProjectPage } from './pages/Project';
import { ProjectsPage } from './pages/Projects';
import { SignInPage } from './pages/SignIn';
import { TeamPage } from './pages/Team';
import { useRealtime } from './realtime';
import { SESSION_KEY, SessionContext, fetchSession, useUser } from './session';

/** The whole app: the sign-in page without a session, else the pages behind the header. */
export function App() {
  const session = useQuery({ queryKey: SESSION_KEY, queryFn: fetchSession, staleTime: Infinity });
  const live = useRealtime(Boolean(session.data));
  // Pages of the emailed link and of "Forgot password?": shown with or without a session.
  const [atReset] = useRoute('/reset-password');
  const [atForgot] = useRoute('/forgot-password');

  if (session.isPending) return <p className="loading-page" role="status">Loading…</p>;
  if (session.isError) {
    return (
      <main className="narrow">
        <h1>Print orders</h1>
        <ErrorMessage error={session.error} />
        <button type="button" onClick={() => void session.refetch()}>
          Try again
        </button>
      </main>
    );
  }
  if (atReset) return <ResetPasswordPage />;
  if (atForgot && !session.data) return <ForgotPasswordPage />;
  if (!session.data) return <SignInPage />;

  return (
    <SessionContext.Provider value={session.data}>
      <a className="skip-link" href="#main">
        Skip to content
      </a>
      <Header live={live} />
      <main id="main" className="page" tabIndex={-1}>
        <Switch>
          <Route path="/" component={DashboardPage} />
          <Route path="/projects" component={ProjectsPage} />
          <Route path="/projects/new" component={NewProjectPage} />
          <Route path="/projects/:id">{(params) => <ProjectPage key={params.id} id={params.id} />}</Route>
          <Route path="/team" component={TeamPage} />
          <Route path="/account" component={AccountPage} />
          <Route component={NotFoundPage} />
        </Switch>
      </main>
    </SessionContext.Provider>
  );
}

function NavLink({ href, children, nested = false }: { href: string; children: string; nested?: boolean }) {
  const [exact] = useRoute(href);
  const [within] = useRoute(`${href}/*`);
  const current = exact || (nested && within);
  return (
    <Link href={href} className="nav-link" aria-current={current ? 'page' : undefined}>
      {children}
    </Link>
  );
}

function Header({ live }: { live: ReturnType<typeof useRealtime> }) {
  const user = useUser();
  const signOut = useMutation({
    mutationFn: api.logout,
    // A fresh page load: nothing of this session stays in memory, and no page asks with it again.
    onSettled: () => window.location.assign('/'),
  });

  return (
    <header className="app-header">
      <div className="header-inner">
        <Link href="/" className="brand">
          Print orders
        </Link>
        <nav aria-label="Main">
          <NavLink href="/">Dashboard</NavLink>
          <NavLink href="/projects" nested>
            Projects
          </NavLink>
          {user.role === 'ADMIN' && <NavLink href="/team">Team</NavLink>}
          <NavLink href="/account">My account</NavLink>
        </nav>
        <div className="account">
          <span className={`live live-${live}`} title={live === 'live' ? 'Pages update by themselves' : 'Reconnecting to live updates'} data-testid="live">
            {live === 'live' ? 'Live' : live === 'connecting' ? 'Connecting…' : 'Offline'}
          </span>
          <span className="who">
            {user.name} <span className="muted">· {ROLE_LABELS[user.role]}</span>
          </span>
          <button type="button" className="secondary small" onClick={() => signOut.mutate()} disabled={signOut.isPending}>
            Sign out
          </button>
        </div>
      </div>
    </header>
  );
}
