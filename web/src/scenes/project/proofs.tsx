import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { type FormEvent, useState } from 'react';
import type { ProjectDetail } from '../../api';
import { ErrorMessage, Field, QueryError } from '../../components';
import { formatBytes, formatDateTime, personName } from '../../format';
import { PROOF_STATUS_LABELS, type Proof, type ProofDecision, proofsApi } from '../../proofs-api';
import { useUser } from '../../session';

/**
 * The proofs card (interface.md, "Proofs"): every version with its first page and its answer, newest
 * first; the latest pending one can be approved or sent back (a CLIENT of the customer, or the shop
 * recording an answer given by phone) and sent as a link; the shop posts new versions. Under
 * ['project', id], so a change made anywhere refreshes it (web/src/realtime.ts). Who may do what is
 * the API's to decide: a refusal is shown as it says.
 */
export function Proofs({ project }: { project: ProjectDetail }) {
  const me = useUser();
  const proofs = useQuery({ queryKey: ['project', project.id, 'proofs'], queryFn: () => proofsApi.list(project.id) });
  const isShop = me.role === 'ADMIN' || me.id === project.pocId;
  const mayAnswer = isShop || me.role === 'CLIENT';
  const items = proofs.data?.items ?? [];
  const latest = items[0];
  return (
    <section className="card proofs" aria-labelledby="proofs-title" data-testid="proofs">
      <h2 id="proofs-title">Proofs</h2>
      {!proofs.data && <QueryError query={proofs} what="The proofs" />}
      {proofs.isPending && <p className="muted">Loading…</p>}
      {proofs.data && items.length === 0 && <p className="muted">No proof yet.{isShop ? ' Post the artwork for the customer to approve before printing.' : ''}</p>}
      {items.length > 0 && (
        <ol className="proof-list" aria-label="Proof versions, newest first">
          {items.map((p) => (
            <ProofItem key={p.id} projectId={project.id} proof={p} me={me} />
          ))}
        </ol>
      )}
      {latest?.status === 'pending' && mayAnswer && <Answer project={project} proof={latest} onBehalf={me.role !== 'CLIENT'} />}
      {latest?.status === 'pending' && isShop && <SendLink projectId={project.id} proof={latest} />}
      {isShop && <PostProof projectId={project.id} next={(latest?.version ?? 0) + 1} />}
    </section>
  );
}

function ProofItem({ projectId, proof: p, me }: { projectId: string; proof: Proof; me: { id: string } }) {
  const [failed, setFailed] = useState(false);
  return (
    <li className="proof" data-testid={`proof-v${p.version}`}>
      <a className="proof-thumb" href={p.url} target="_blank" rel="noopener noreferrer" aria-label={`Open proof v${p.version}, ${p.filename}`}>
        {failed ? (
          <span className="thumb thumb-icon" aria-hidden="true">
            <span className="thumb-size">{formatBytes(p.size)}</span>
          </span>
        ) : (
          <img src={proofsApi.previewUrl(projectId, p.id, 1, 240)} alt="" width={120} loading="lazy" onError={() => setFailed(true)} />
        )}
      </a>
      <div className="proof-body">
        <p className="proof-head">
          <strong>v{p.version}</strong> <span className={`badge badge-proof-${p.status}`} data-testid="proof-status">{PROOF_STATUS_LABELS[p.status]}</span>
        </p>
        <p className="muted small-text">
          {p.filename} · {formatBytes(p.size)} · posted by {personName(p.postedById, p.postedByName, me) ?? 'someone'} <time dateTime={p.createdAt}>{formatDateTime(p.createdAt)}</time>
        </p>
        {p.note && <p className="proof-note">{p.note}</p>}
        {p.response && (
          <p className="proof-response" data-testid="proof-response">
            <strong>{p.response.decision === 'approved' ? 'Approved' : 'Changes requested'}</strong> by {personName(p.response.byId, p.response.byName, me) ?? p.response.byName}
            {p.response.via === 'link' ? ' (approval link)' : ''} <time dateTime={p.response.at}>{formatDateTime(p.response.at)}</time>
            {p.response.note && <span className="proof-response-note">“{p.response.note}”</span>}
          </p>
        )}
      </div>
    </li>
  );
}

/** Approve, or ask for changes with a note; staff record what the customer said by phone. */
function Answer({ project, proof, onBehalf }: { project: ProjectDetail; proof: Proof; onBehalf: boolean }) {
  const queryClient = useQueryClient();
  const [note, setNote] = useState('');
  const answer = useMutation({
    mutationFn: (decision: ProofDecision) => proofsApi.answer(project.id, proof.id, decision, note),
    onSuccess: () => {
      setNote('');
      void queryClient.invalidateQueries({ queryKey: ['project', project.id] });
    },
  });
  const submit = (decision: ProofDecision) => (e: FormEvent) => {
    e.preventDefault();
    if (!answer.isPending) answer.mutate(decision);
  };
  const error = answer.error instanceof Error && /^Note /.test(answer.error.message) ? answer.error.message : undefined;
  return (
    <form className="stack proof-answer" onSubmit={submit('approve')} noValidate aria-label={`Answer proof v${proof.version}`}>
      <p className="small-text">
        {onBehalf ? `Record the customer's answer to proof v${proof.version} (given by phone or email).` : `Proof v${proof.version} waits for your approval.`}
      </p>
      <Field label="Note (required to ask for changes)" error={error}>
        {(props) => <textarea {...props} value={note} rows={2} maxLength={2000} onChange={(e) => setNote(e.target.value)} />}
      </Field>
      {!error && <ErrorMessage error={answer.error} />}
      <div className="button-row">
        <button type="submit" className="primary" disabled={answer.isPending}>
          Approve v{proof.version}
        </button>
        <button type="button" className="secondary" disabled={answer.isPending} onClick={submit('request-changes')}>
          Request changes
        </button>
      </div>
    </form>
  );
}

function SendLink({ projectId, proof }: { projectId: string; proof: Proof }) {
  const [email, setEmail] = useState('');
  const [name, setName] = useState('');
  const send = useMutation({
    mutationFn: () => proofsApi.sendLink(projectId, proof.id, { email, ...(name.trim() ? { name } : {}) }),
    onSuccess: () => {
      setEmail('');
      setName('');
    },
  });
  const submit = (e: FormEvent) => {
    e.preventDefault();
    if (!send.isPending) send.mutate();
  };
  return (
    <details className="proof-link-form">
      <summary>Send an approval link (for a customer without an account)</summary>
      <form className="stack" onSubmit={submit} noValidate>
        <Field label="Their email">{(props) => <input {...props} type="email" autoComplete="off" value={email} onChange={(e) => setEmail(e.target.value)} />}</Field>
        <Field label="Their name (optional)">{(props) => <input {...props} value={name} onChange={(e) => setName(e.target.value)} />}</Field>
        <ErrorMessage error={send.error} />
        {send.data && (
          <p className="success" role="status">
            Link for v{proof.version} sent to {send.data.email}; it works until {formatDateTime(send.data.expiresAt)} or until the proof is answered.
          </p>
        )}
        <div>
          <button type="submit" className="secondary" disabled={send.isPending}>
            {send.isPending ? 'Sending…' : 'Send link'}
          </button>
        </div>
      </form>
    </details>
  );
}

function PostProof({ projectId, next }: { projectId: string; next: number }) {
  const queryClient = useQueryClient();
  const [file, setFile] = useState<File | null>(null);
  const [note, setNote] = useState('');
  const [inputKey, setInputKey] = useState(0);
  const post = useMutation({
    mutationFn: () => {
      if (!file) throw new Error('Choose the proof’s file first');
      return proofsApi.post(projectId, file, note);
    },
    onSuccess: () => {
      setFile(null);
      setNote('');
      setInputKey((k) => k + 1);
      void queryClient.invalidateQueries({ queryKey: ['project', projectId] });
    },
  });
  const submit = (e: FormEvent) => {
    e.preventDefault();
    if (!post.isPending) post.mutate();
  };
  return (
    <form className="stack proof-post" onSubmit={submit} noValidate aria-label="Post a new proof version">
      <h3>Post proof v{next}</h3>
      <Field label="Proof file (PDF or picture)">
        {(props) => <input key={inputKey} {...props} type="file" onChange={(e) => setFile(e.target.files?.[0] ?? null)} />}
      </Field>
      <Field label="Note for the customer (optional)">{(props) => <textarea {...props} value={note} rows={2} maxLength={2000} onChange={(e) => setNote(e.target.value)} />}</Field>
      <ErrorMessage error={post.error} />
      <div>
        <button type="submit" className="primary" disabled={post.isPending}>
          {post.isPending ? 'Posting…' : `Post v${next}`}
        </button>
      </div>
    </form>
  );
}
