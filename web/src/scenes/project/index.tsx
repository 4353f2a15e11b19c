import { useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { Link } from 'wouter';
import { ApiError, type DocumentType, type ProjectDetail, api } from '../../api';
import { PageTitle, QueryError } from '../../components';
import { Actions } from './actions';
import { jobName } from '../../components/floor';
import { FloorControls, HoldBanner, TitleBadges } from './floor';
import { ProjectActivity } from './activity';
import { Comments } from './comments';
import { EditDetails } from './edit-details';
import { Documents } from './documents';
import { JobSummary } from './job';
import { MoneyCard } from '../../money-ui';
import { useUser } from '../../session';
import { Payments } from './payments';
import { Proofs } from './proofs';
import { Summary } from './summary';
import { UploadArea } from './upload';

/** One project: its state, what the user may do now, its documents, an upload area and its activity. */
export function ProjectPage({ id }: { id: string }) {
  const project = useQuery({ queryKey: ['project', id], queryFn: () => api.project(id) });

  if (project.isPending) return <p className="muted">Loading the project…</p>;
  // A failed refresh keeps the project on screen (ConnectionNotice says the service is away); only without any data is this the page.
  if (!project.data) {
    const notFound = project.error instanceof ApiError && project.error.status === 404;
    return (
      <>
        <p className="breadcrumb">
          <Link href="/projects">← Projects</Link>
        </p>
        <PageTitle>{notFound ? 'Project not found' : 'The project could not be loaded'}</PageTitle>
        {notFound ? <p>There is no project at this address that you may see. It may belong to someone else.</p> : <QueryError query={project} what="The project" />}
      </>
    );
  }
  const p = project.data;
  return <ProjectView project={p} />;
}

/** The project's page once loaded; "Upload a replacement" of a withdrawn document hands its type to the upload area. */
function ProjectView({ project: p }: { project: ProjectDetail }) {
  const user = useUser();
  const [replacing, setReplacing] = useState<{ type: DocumentType; at: number } | null>(null);
  return (
    <>
      <p className="breadcrumb">
        <Link href="/projects">← Projects</Link>
      </p>
      <PageTitle>{jobName(p)}</PageTitle>
      <TitleBadges project={p} />
      <HoldBanner project={p} />
      {p.description && <p className="lead description">{p.description}</p>}
      {p.canEditDetails && <EditDetails project={p} />}
      <JobSummary project={p} canPrintTicket={user.role === 'ADMIN' || p.pocId === user.id} />
      <div className="project-grid">
        <div className="stack">
          <Summary project={p} />
          <Actions project={p} />
          <FloorControls project={p} />
          <Payments project={p} />
          <MoneyCard project={p} isAdmin={user.role === 'ADMIN'} />
        </div>
        <div className="stack">
          <Proofs project={p} />
          <Documents project={p} onReplace={(type) => setReplacing({ type, at: Date.now() })} />
          <UploadArea project={p} replacing={replacing} />
        </div>
      </div>
      <Comments project={p} />
      <ProjectActivity id={p.id} />
    </>
  );
}
