import { useMutation, useQuery } from '@tanstack/react-query';
import { Link, Route, Switch, useLocation, useRoute } from 'wouter';
import { api } from './api';
import { ConnectionNotice, ErrorMessage } from './components';
import { ROLE_LABELS } from './format';
import { AccountPage } from './scenes/account';
import { CustomersPage } from './scenes/customers';
import { DashboardPage } from './scenes/dashboard';
import { NewProjectPage } from './scenes/projects/new';
import { NotFoundPage } from './scenes/not-found';
import { ForgotPasswordPage, ResetPasswordPage } from './scenes/sign-in/password-reset';
import { ProjectPage } from './scenes/project';
import { ProofLinkPage } from './scenes/proof-link';
import { ProjectsPage } from './scenes/projects';
import { BoardPage } from './scenes/board';
import { CalendarPage } from './scenes/calendar';
import { SignInPage } from './scenes/sign-in';
import { SetupPage } from './scenes/setup';
import { TeamPage } from './scenes/team';
import { WebhooksPage } from './scenes/webhooks';
import { ReportsPage } from './scenes/reports/ReportsPage';
import { InvoicesPage } from './scenes/invoices';
import { ShopSettingsPage } from './scenes/settings';
import { type Live, LiveContext, useRealtime } from './realtime';
import { SESSION_KEY, SessionContext, endSession, fetchSession, useUser } from './session';

/** The whole app: the sign-in page without a session, else the pages behind the header. */
export function App() {
  const session = useQuery({ queryKey: SESSION_KEY, queryFn: fetchSession, staleTime: Infinity });
  const live = useRealtime(Boolean(session.data));
  // Pages of the emailed link and of "Forgot password?": shown with or without a session.
  const [atReset] = useRoute('/reset-password');
  const [atForgot] = useRoute('/forgot-password');
  // The first run's one-time link (interface.md, "First run"): a new install has no session yet.
  const [atSetup] = useRoute('/setup');
  // An emailed approval link (interface.md, Proofs): the same page with or without a session.
  const [atProofLink, proofLink] = useRoute('/proofs/:token');

  if (atProofLink) return <ProofLinkPage token={proofLink.token} />;
  if (session.isPending) return <p className="loading-page" role="status">Loading…</p>;
  // Only when there is nothing to show: a failed re-check of a known session keeps the pages.
  if (session.isError && session.data === undefined) {
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
  if (atSetup && !session.data) return <SetupPage />;
  if (!session.data) return <SignInPage />;

  return (
    <SessionContext.Provider value={session.data}>
      <LiveContext.Provider value={live}>
      <a className="skip-link" href="#main">
        Skip to content
      </a>
      <Header live={live} />
      <main id="main" className="page" tabIndex={-1}>
        <ConnectionNotice />
        <Switch>
          <Route path="/" component={DashboardPage} />
          <Route path="/projects" component={ProjectsPage} />
          <Route path="/projects/new" component={NewProjectPage} />
          <Route path="/projects/:id">{(params) => <ProjectPage key={params.id} id={params.id} />}</Route>
          <Route path="/board" component={BoardPage} />
          <Route path="/calendar" component={CalendarPage} />
          <Route path="/customers" component={CustomersPage} />
          <Route path="/team" component={TeamPage} />
          <Route path="/webhooks" component={WebhooksPage} />
          <Route path="/reports" component={ReportsPage} />
          <Route path="/account" component={AccountPage} />
          <Route path="/settings/shop" component={ShopSettingsPage} />
          <Route path="/invoices" component={InvoicesPage} />
          <Route component={NotFoundPage} />
        </Switch>
      </main>
      </LiveContext.Provider>
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

function Header({ live }: { live: Live }) {
  const user = useUser();
  const [, navigate] = useLocation();
  const signOut = useMutation({
    mutationFn: api.logout,
    // Nothing of this session stays in memory, and every other window of the browser signs out too.
    onSuccess: () => {
      // First the session (the sign-in page replaces the app), then the address: no page of the app asks with the ended session.
      endSession('signed-out');
      navigate('/', { replace: true });
    },
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
          {user.role !== 'CLIENT' && <NavLink href="/board">Board</NavLink>}
          <NavLink href="/calendar">Calendar</NavLink>
          {user.role !== 'CLIENT' && <NavLink href="/customers">Customers</NavLink>}
          {user.role === 'ADMIN' && <NavLink href="/team">Team</NavLink>}
          {user.role === 'ADMIN' && <NavLink href="/webhooks">Webhooks</NavLink>}
          {user.role === 'ADMIN' && <NavLink href="/reports">Reports</NavLink>}
          {user.role === 'ADMIN' && <NavLink href="/invoices">Invoices</NavLink>}
          <NavLink href="/account">My account</NavLink>
        </nav>
        <div className="account">
          <span className={`live live-${live.state}`} title={live.state === 'live' ? 'Pages update by themselves' : 'Reconnecting to live updates'} data-testid="live">
            {live.state === 'live' ? 'Live' : live.state === 'connecting' ? 'Connecting…' : 'Offline'}
          </span>
          <span className="who">
            {user.name} <span className="muted">· {ROLE_LABELS[user.role]}</span>
          </span>
          <ErrorMessage error={signOut.error} />
          <button type="button" className="secondary small" onClick={() => signOut.mutate()} disabled={signOut.isPending}>
            Sign out
          </button>
        </div>
      </div>
    </header>
  );
}
