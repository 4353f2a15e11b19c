import type { Project } from '../api';
import './floor.css';

/**
 * The floor's marks (issue 35), one component each wherever a project is shown (the list, the
 * project page, the dashboard, the board and the calendar): the job number people say ("job
 * 1042"), Rush and Held. What they show is the project's own fields; no rule is worked out here.
 */

// A project as people name it ("#1042 Brochures"): the emails' and the ticket's words (src/domain/labels.ts).
export { jobName } from '../../../src/domain/labels';

export function JobNumber({ number }: { number: number }) {
  return <span className="job-number">#{number}</span>;
}

export function RushBadge({ rush }: { rush: boolean }) {
  return rush ? (
    <span className="badge badge-rush" data-testid="rush-badge">
      Rush
    </span>
  ) : null;
}

/** "Held", its reason as the tooltip (and spelled out where there is room: HoldBanner on the project page). */
export function HeldBadge({ hold }: { hold: Project['hold'] }) {
  return hold ? (
    <span className="badge badge-held" title={`On hold: ${hold.reason}`} data-testid="held-badge">
      Held
    </span>
  ) : null;
}

/** Rush and Held together, as the lists show them. */
export function FloorBadges({ project }: { project: Pick<Project, 'rush' | 'hold'> }) {
  return (
    <>
      <RushBadge rush={project.rush} />
      <HeldBadge hold={project.hold} />
    </>
  );
}
