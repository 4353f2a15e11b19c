import { useQuery } from '@tanstack/react-query';
import { api } from '../../api';
import './setup.css';

/** The start-up log's line with the one-time setup link, as the service writes it (src/service.ts). */
export const LOG_LINE = 'Open https://…/setup#… to create the first admin';

/** On the sign-in page of a new install (no admin yet): where the way in is. Nothing once an admin exists. */
export function WhereToLook() {
  const needed = useQuery({ queryKey: ['setup'], queryFn: api.setupNeeded, retry: false });
  if (!needed.data?.needed) return null;
  return (
    <div className="notice setup-hint" role="status" data-testid="setup-hint">
      <p>
        <strong>New install: there is no admin yet.</strong> At start the service printed a one-time link in its log, on the line
      </p>
      <p>
        <code>{LOG_LINE}</code>
      </p>
      <p>
        Open that address to make the first admin. Restarting the service prints a new link; setting <code>ADMIN_EMAIL</code> and <code>ADMIN_PASSWORD</code> makes the admin instead.
      </p>
    </div>
  );
}
