import { useQuery } from '@tanstack/react-query';
import { api } from '../../api';
import { ActivityList, QueryError } from '../../components';

/** The project's own activity, newest first. */
export function ProjectActivity({ id }: { id: string }) {
  const params = { entityType: 'project', entityId: id, limit: 50 };
  const activity = useQuery({ queryKey: ['activity', params], queryFn: () => api.activity(params) });
  return (
    <section className="card" aria-labelledby="activity-title">
      <h2 id="activity-title">Activity</h2>
      {!activity.data && <QueryError query={activity} what="The activity" />}
      {activity.isPending && <p className="muted">Loading…</p>}
      {activity.data && <ActivityList entries={activity.data.items} />}
    </section>
  );
}
