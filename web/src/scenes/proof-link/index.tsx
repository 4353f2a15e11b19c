import { useMutation, useQuery } from '@tanstack/react-query';
import { type FormEvent, useState } from 'react';
import { ApiError } from '../../api';
import { ErrorMessage, Field } from '../../components';
import { formatBytes, formatDateTime } from '../../format';
import { PROOF_STATUS_LABELS, type ProofDecision, proofsApi } from '../../proofs-api';

/** The most pages shown one under the other; the rest are in the file. */
const MAX_PAGES = 20;

/**
 * PUBLIC_URL/proofs/<token> (interface.md, "Proofs"): the page an emailed approval link opens, with
 * or without a session. It shows only what the link answers (the project's name, reference and
 * customer, the proof and its pages) and two buttons; made for a phone first (390 px).
 */
export function ProofLinkPage({ token }: { token: string }) {
  const view = useQuery({ queryKey: ['proof-link', token], queryFn: () => proofsApi.link(token), retry: false, refetchOnWindowFocus: false });
  const [name, setName] = useState('');
  const [note, setNote] = useState('');
  const answer = useMutation({ mutationFn: (decision: ProofDecision) => proofsApi.answerLink(token, decision, { name, note }) });
  // As wide as the screen shows it (sharp on high-density screens), within the API's bounds.
  const [width] = useState(() => Math.min(window.innerWidth - 32, 900) * (window.devicePixelRatio || 1));

  const submit = (decision: ProofDecision) => (e: FormEvent) => {
    e.preventDefault();
    if (!answer.isPending) answer.mutate(decision);
  };
  const fieldError = (field: 'Name' | 'Note') => (answer.error instanceof ApiError && answer.error.message.startsWith(`${field} `) ? answer.error.message : undefined);

  return (
    <main id="main" className="narrow proof-link-page">
      <h1>Proof for your approval</h1>
      {view.isPending && <p role="status">Loading the proof…</p>}
      {view.error && (
        <div role="alert" className="error-message">
          <p>{view.error instanceof ApiError && view.error.status === 404 ? 'This proof link is invalid or expired.' : view.error.message}</p>
          <p className="small-text">Ask the print shop to send you a new link.</p>
        </div>
      )}
      {view.data && (
        <>
          <dl className="proof-facts">
            <dt>Project</dt>
            <dd data-testid="link-project">{view.data.project.name}</dd>
            {view.data.project.reference && (
              <>
                <dt>Your reference</dt>
                <dd>{view.data.project.reference}</dd>
              </>
            )}
            {view.data.project.customerName && (
              <>
                <dt>For</dt>
                <dd>{view.data.project.customerName}</dd>
              </>
            )}
            <dt>Version</dt>
            <dd>
              v{view.data.proof.version} · {view.data.proof.filename} · {formatBytes(view.data.proof.size)} · <time dateTime={view.data.proof.createdAt}>{formatDateTime(view.data.proof.createdAt)}</time>
            </dd>
          </dl>
          {view.data.proof.note && <p className="proof-note">{view.data.proof.note}</p>}
          <div className="proof-pages">
            {view.data.pageCount === null ? (
              <p className="muted">This file has no preview here: download it to look at it.</p>
            ) : (
              Array.from({ length: Math.min(view.data.pageCount, MAX_PAGES) }, (_, i) => (
                <img key={i} src={proofsApi.linkPreviewUrl(token, i + 1, width)} alt={`Page ${i + 1} of ${view.data.pageCount} of the proof`} loading={i ? 'lazy' : 'eager'} />
              ))
            )}
          </div>
          <p>
            <a href={proofsApi.linkFileUrl(token)} download>
              Download the file ({view.data.proof.filename})
            </a>
          </p>
          {answer.data ? (
            <p className="success" role="status" data-testid="link-answered">
              Thank you. Proof v{answer.data.version}: {PROOF_STATUS_LABELS[answer.data.status].toLowerCase()}. The print shop has been told.
            </p>
          ) : (
            <form className="stack" onSubmit={submit('approve')} noValidate aria-label="Your answer">
              <Field label="Your name" error={fieldError('Name')}>
                {(props) => <input {...props} value={name} autoComplete="name" maxLength={200} onChange={(e) => setName(e.target.value)} />}
              </Field>
              <Field label="What should change? (needed to ask for changes)" error={fieldError('Note')}>
                {(props) => <textarea {...props} value={note} rows={3} maxLength={2000} onChange={(e) => setNote(e.target.value)} />}
              </Field>
              {!fieldError('Name') && !fieldError('Note') && <ErrorMessage error={answer.error} />}
              <div className="button-row stacked-on-phone">
                <button type="submit" className="primary" disabled={answer.isPending}>
                  Approve for printing
                </button>
                <button type="button" className="secondary" disabled={answer.isPending} onClick={submit('request-changes')}>
                  Request changes
                </button>
              </div>
            </form>
          )}
        </>
      )}
    </main>
  );
}
