import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { type DragEvent, type FormEvent, useEffect, useId, useRef, useState } from 'react';
import { Link } from 'wouter';
import { ApiError, DOCUMENT_TYPES, type DocumentType, type FileUpload, type ProjectAction, type ProjectDetail, type Upload, api, sha256OfFile, uploadDocument } from '../api';
import { ActivityList, ErrorMessage, Field, FormActions, PageTitle, QueryError, StatusBadge, placeError } from '../components';
import { MAX_LENGTH } from '../../../src/domain/limits';
import { isCurrencyCode, minorDigits, parseMajor } from '../../../src/domain/money';
import { decideVoid } from '../../../src/domain/void-policy';
import { ACTION_LABELS, DOCUMENT_AS, DOCUMENT_LABELS, PI_LABELS, STAGE_LABELS, formatBytes, formatDateTime, formatDay, formatMoney, personName, stageOf, todayIso, uploadBlocker } from '../format';
import { JobFieldsEditor, JobSummary, type JobValues, jobBody, jobRefusals, jobValuesOf, placeJobError } from '../job';
import { MoneyCard } from '../money-ui';
import { Thumbnail } from '../preview';
import { useSession, useUser } from '../session';
import { Comments } from './Comments';

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
      <PageTitle>{p.name}</PageTitle>
      {p.description && <p className="lead description">{p.description}</p>}
      {p.canEditDetails && <EditDetails project={p} />}
      <JobSummary project={p} />
      <div className="project-grid">
        <div className="stack">
          <Summary project={p} />
          <Actions project={p} />
          <Payments project={p} />
          <MoneyCard project={p} isAdmin={user.role === 'ADMIN'} />
        </div>
        <div className="stack">
          <Documents project={p} onReplace={(type) => setReplacing({ type, at: Date.now() })} />
          <UploadArea project={p} replacing={replacing} />
        </div>
      </div>
      <Comments project={p} />
      <ProjectActivity id={p.id} />
    </>
  );
}

function Summary({ project: p }: { project: ProjectDetail }) {
  const me = useUser();
  const approval = p.approval;
  const decidedBy = approval && personName(approval.decidedById, approval.decidedByName, me);
  return (
    <section className="card" aria-labelledby="summary-title">
      <h2 id="summary-title">Summary</h2>
      <dl className="facts">
        <div>
          <dt>Status</dt>
          <dd data-testid="project-status">
            <StatusBadge project={p} />
          </dd>
        </div>
        <div>
          <dt>Approval</dt>
          <dd data-testid="project-approval">
            {!approval || approval.status === 'PENDING'
              ? 'Awaiting an admin’s decision'
              : `${approval.status === 'APPROVED' ? 'Approved' : 'Rejected'}${decidedBy ? ` by ${decidedBy}` : ''}${approval.decidedAt ? `, ${formatDateTime(approval.decidedAt)}` : ''}`}
            {approval?.note && <div className="muted small-text">Note: {approval.note}</div>}
          </dd>
        </div>
        <div>
          <dt>Proforma invoice (PI)</dt>
          <dd data-testid="project-pi">{PI_LABELS[p.piStatus]}</dd>
          {p.pi && (
            <dd className="muted small-text" data-testid="project-pi-figures">
              {p.pi.number}: {formatMoney(p.pi.amount, p.pi.currency)}
              {p.pi.validUntil && `, valid until ${formatDay(p.pi.validUntil)}`}
            </dd>
          )}
        </div>
        {(p.pi || p.paid > 0) && (
          <div>
            <dt>Paid</dt>
            <dd data-testid="project-paid">
              {formatMoney(p.paid, p.pi?.currency ?? p.payments[0]?.currency ?? 'INR')}
              {p.balance !== null && p.pi && ` (balance ${formatMoney(p.balance, p.pi.currency)})`}
            </dd>
          </div>
        )}
        <div>
          <dt>Point of contact</dt>
          <dd data-testid="project-poc">{personName(p.pocId, p.pocName, me) ?? '—'}</dd>
        </div>
        <div>
          <dt>Created</dt>
          <dd>
            <time dateTime={p.createdAt}>{formatDateTime(p.createdAt)}</time>
          </dd>
        </div>
        <div>
          <dt>Last change</dt>
          <dd>
            <time dateTime={p.updatedAt}>{formatDateTime(p.updatedAt)}</time>
          </dd>
        </div>
      </dl>
    </section>
  );
}

/** Change the name and description: the owner while the request is open (to correct a rejected one), an admin always. */
function EditDetails({ project: p }: { project: ProjectDetail }) {
  const queryClient = useQueryClient();
  const [open, setOpen] = useState(false);
  const [values, setValues] = useState({ name: p.name, description: p.description ?? '' });
  const [job, setJob] = useState<JobValues>(jobValuesOf(p));
  const [refusals, setRefusals] = useState<Record<string, string>>({});
  const [saved, setSaved] = useState<string | null>(null);
  const toggleRef = useRef<HTMLButtonElement>(null);
  const set = (field: keyof typeof values) => (e: { target: { value: string } }) => setValues((v) => ({ ...v, [field]: e.target.value }));
  const save = useMutation({
    mutationFn: () => api.editDetails(p.id, { name: values.name, description: values.description.trim() ? values.description : null, ...jobBody(job) }),
    onSuccess: (updated) => {
      setOpen(false);
      setSaved(updated.updatedAt);
      toggleRef.current?.focus();
      void queryClient.invalidateQueries({ queryKey: ['project', p.id] });
    },
  });
  const answered = placeJobError(save.error, values);
  const fields = { ...answered.fields, ...refusals };
  const form = answered.form;
  const submit = (e: FormEvent) => {
    e.preventDefault();
    if (save.isPending) return;
    const found = jobRefusals(job);
    setRefusals(found);
    if (Object.keys(found).length) return save.reset();
    save.mutate();
  };
  const rejected = stageOf(p) === 'REJECTED';
  return (
    <div className="edit-details">
      <button
        type="button"
        ref={toggleRef}
        className="secondary small"
        aria-expanded={open}
        onClick={() => {
          setValues({ name: p.name, description: p.description ?? '' });
          setJob(jobValuesOf(p));
          setRefusals({});
          setSaved(null);
          save.reset();
          setOpen((o) => !o);
        }}
      >
        Edit details
      </button>
      {saved === p.updatedAt && (
        <p className="success" role="status">
          Saved.{rejected ? ' When it is right, ask for approval again below.' : ''}
        </p>
      )}
      {open && (
        <form className="card form" onSubmit={submit} noValidate aria-label="Edit details">
          <Field label="Name" error={fields.name} hint={`Up to ${MAX_LENGTH.name} characters.`}>
            {(props) => <input {...props} value={values.name} onChange={set('name')} autoComplete="off" maxLength={MAX_LENGTH.name} autoFocus />}
          </Field>
          <Field label="Description (optional)" error={fields.description}>
            {(props) => <textarea {...props} rows={3} value={values.description} onChange={set('description')} maxLength={MAX_LENGTH.description} />}
          </Field>
          <JobFieldsEditor values={job} onChange={setJob} errors={fields} />
          <ErrorMessage error={form} />
          <FormActions label="Save" busyLabel="Saving…" pending={save.isPending} onCancel={() => setOpen(false)} />
        </form>
      )}
    </div>
  );
}

const DONE: Record<ProjectAction, string> = {
  approve: 'The project is approved.',
  reject: 'The project is rejected.',
  resubmit: 'The project is sent to the admins for approval again.',
  'submit-pi': 'The PI is submitted for verification.',
  'verify-pi': 'The PI is verified.',
  'reject-pi': 'The PI is rejected.',
  'start-printing': 'Printing has started.',
  dispatch: 'The project is marked dispatched.',
  deliver: 'The project is marked delivered.',
  cancel: 'The project is cancelled.',
};
const DANGER = new Set<ProjectAction>(['reject', 'reject-pi', 'cancel']);
const WITH_NOTE = new Set<ProjectAction>(['approve', 'reject', 'resubmit', 'reject-pi', 'cancel']);

/** The lifecycle actions the API says the user may take now (allowedActions), with an optional note. */
function Actions({ project: p }: { project: ProjectDetail }) {
  const queryClient = useQueryClient();
  const noteId = useId();
  const [note, setNote] = useState('');
  const [confirming, setConfirming] = useState(false);
  /**
   * A confirmation or a refusal is about the project as it was then: each keeps the project's
   * updatedAt it belongs to, and is shown only while the project is still that one. A live change
   * (someone else's action) makes it disappear instead of contradicting the page.
   */
  const [done, setDone] = useState<{ text: string; at: string } | null>(null);
  const [refusal, setRefusal] = useState<{ error: unknown; at: string } | null>(null);
  const cancelRef = useRef<HTMLButtonElement>(null);
  const doneRef = useRef<HTMLParagraphElement>(null);
  // The button just used is gone once the project moves on: keep the keyboard focus in this section.
  useEffect(() => {
    if (done) doneRef.current?.focus();
  }, [done]);
  const act = useMutation({
    mutationFn: (action: ProjectAction) => api.act(p.id, action, note.trim() || undefined),
    onMutate: () => {
      setDone(null);
      setRefusal(null);
    },
    onSuccess: (updated, action) => {
      setDone({ text: DONE[action], at: updated.updatedAt });
      setNote('');
      setConfirming(false);
      void queryClient.invalidateQueries({ queryKey: ['project', p.id] });
    },
    onError: async (error) => {
      setConfirming(false);
      // Refused because the page was behind? Catch up first, then say it against what is now on screen.
      await queryClient.refetchQueries({ queryKey: ['project', p.id] });
      const now = queryClient.getQueryData<ProjectDetail>(['project', p.id]);
      setRefusal({ error, at: now?.updatedAt ?? p.updatedAt });
    },
  });
  const actions = p.allowedActions;
  const [piOpen, setPiOpen] = useState(false);
  const take = (action: ProjectAction) => {
    if (action === 'cancel') return setConfirming(true);
    if (action === 'submit-pi') return setPiOpen(true);
    if (!act.isPending) act.mutate(action);
  };

  return (
    <section className="card" aria-labelledby="actions-title">
      <h2 id="actions-title">What you can do now</h2>
      {actions.length === 0 ? (
        <p className="muted">Nothing is waiting for you on this project.</p>
      ) : (
        <>
          {actions.some((a) => WITH_NOTE.has(a)) && (
            <div className="field">
              <label htmlFor={noteId}>Note (optional, kept with the decision)</label>
              <input id={noteId} value={note} onChange={(e) => setNote(e.target.value)} autoComplete="off" />
            </div>
          )}
          <div className="button-row">
            {actions.map((a) => (
              <button
                key={a}
                ref={a === 'cancel' ? cancelRef : undefined}
                type="button"
                className={DANGER.has(a) ? 'danger' : 'primary'}
                onClick={() => take(a)}
                aria-disabled={act.isPending || (confirming && a === 'cancel')}
                aria-expanded={a === 'cancel' ? confirming : undefined}
              >
                {ACTION_LABELS[a]}
              </button>
            ))}
          </div>
          {piOpen && actions.includes('submit-pi') && (
            <SubmitPiForm
              project={p}
              note={note.trim() || undefined}
              onDone={(updated) => {
                setPiOpen(false);
                setNote('');
                setDone({ text: DONE['submit-pi'], at: updated.updatedAt });
                void queryClient.invalidateQueries({ queryKey: ['project', p.id] });
              }}
              onCancel={() => setPiOpen(false)}
            />
          )}
          {confirming && (
            <div className="confirm" role="group" aria-label="Confirm cancellation">
              <p>Cancel this project? Documents can then no longer be uploaded.</p>
              <div className="button-row">
                <button type="button" className="danger" onClick={() => !act.isPending && act.mutate('cancel')} autoFocus aria-disabled={act.isPending}>
                  Yes, cancel the project
                </button>
                <button
                  type="button"
                  className="secondary"
                  onClick={() => {
                    setConfirming(false);
                    cancelRef.current?.focus();
                  }}
                >
                  Keep it
                </button>
              </div>
            </div>
          )}
        </>
      )}
      {refusal && refusal.at === p.updatedAt && (
        <p className="error" role="alert">
          {refusal.error instanceof ApiError && refusal.error.status === 409
            ? `That could not be done: the project is now ${STAGE_LABELS[stageOf(p)].toLowerCase()}${p.piStatus !== 'PENDING' ? `, PI ${PI_LABELS[p.piStatus].toLowerCase()}` : ''}. The buttons above are what you can do now.`
            : refusal.error instanceof Error
              ? refusal.error.message
              : String(refusal.error)}
        </p>
      )}
      {done && done.at === p.updatedAt && (
        <p className="success" role="status" ref={doneRef} tabIndex={-1}>
          {done.text}
        </p>
      )}
    </section>
  );
}

/**
 * The PI's number and amount (and currency), asked when "Submit PI" is chosen. The amount is typed
 * in major units ("125000.50") and sent in minor units, converted with string arithmetic
 * (src/domain/money.ts), never floating point.
 */
function SubmitPiForm({ project: p, note, onDone, onCancel }: { project: ProjectDetail; note?: string; onDone: (updated: { updatedAt: string }) => void; onCancel: () => void }) {
  const [values, setValues] = useState({ number: p.pi?.number ?? '', amount: '', currency: p.pi?.currency ?? p.payments[0]?.currency ?? 'INR', validUntil: p.pi?.validUntil ?? '' });
  const [fieldErrors, setFieldErrors] = useState<Record<string, string>>({});
  const set = (field: keyof typeof values) => (e: { target: { value: string } }) => setValues((v) => ({ ...v, [field]: e.target.value }));
  const send = useMutation({
    mutationFn: (body: { number: string; amount: number; currency: string; validUntil?: string; note?: string }) => api.submitPi(p.id, body),
    onSuccess: onDone,
    onError: (error) => setFieldErrors(placeError(error, values).fields),
  });
  const submit = (e: FormEvent) => {
    e.preventDefault();
    const currency = values.currency.trim().toUpperCase();
    const errors: Record<string, string> = {};
    if (!values.number.trim()) errors.number = 'PI number is required';
    if (!isCurrencyCode(currency)) errors.currency = 'Currency must be an ISO 4217 code, such as INR';
    const amount = isCurrencyCode(currency) ? parseMajor(values.amount, currency) : null;
    if (isCurrencyCode(currency) && (amount === null || amount < 1)) {
      const digits = minorDigits(currency);
      errors.amount = digits ? `Amount must be a number more than 0, with at most ${digits} digits after the dot` : 'Amount must be a whole number more than 0';
    }
    setFieldErrors(errors);
    if (Object.keys(errors).length || amount === null || send.isPending) return;
    send.mutate({ number: values.number.trim(), amount, currency, ...(values.validUntil ? { validUntil: values.validUntil } : {}), note });
  };
  return (
    <form className="form" onSubmit={submit} noValidate aria-label="Submit the PI">
      <Field label="PI number" error={fieldErrors.number}>
        {(props) => <input {...props} value={values.number} onChange={set('number')} maxLength={MAX_LENGTH.number} autoComplete="off" />}
      </Field>
      <Field label="Amount" error={fieldErrors.amount} hint="In rupees (or the currency's major units), e.g. 125000.50">
        {(props) => <input {...props} value={values.amount} onChange={set('amount')} inputMode="decimal" autoComplete="off" />}
      </Field>
      <Field label="Currency" error={fieldErrors.currency}>
        {(props) => <input {...props} value={values.currency} onChange={set('currency')} maxLength={3} autoComplete="off" />}
      </Field>
      <Field label="Valid until (optional)" error={fieldErrors.validUntil}>
        {(props) => <input {...props} type="date" value={values.validUntil} onChange={set('validUntil')} />}
      </Field>
      {send.error && !Object.keys(fieldErrors).length && <ErrorMessage error={send.error} />}
      <FormActions label="Submit the PI" pending={send.isPending} onCancel={onCancel} />
    </form>
  );
}

function Documents({ project: p, onReplace }: { project: ProjectDetail; onReplace: (type: DocumentType) => void }) {
  const me = useUser();
  const standing = p.files.filter((f) => f.voidedAt === null);
  return (
    <section className="card" aria-labelledby="documents-title">
      <h2 id="documents-title">Documents</h2>
      {standing.length > 0 && (
        <p>
          <a className="button secondary" href={`/api/projects/${encodeURIComponent(p.id)}/documents.zip`} download data-testid="download-all">
            Download all as ZIP
          </a>
        </p>
      )}
      {DOCUMENT_TYPES.map((type) => {
        const files = standing.filter((f) => f.type === type);
        const withdrawn = p.files.filter((f) => f.type === type && f.voidedAt !== null);
        return (
          <div key={type} className="doc-group" data-testid={`files-${type}`}>
            <h3>
              {DOCUMENT_LABELS[type]} <span className="count">{files.length}</span>
            </h3>
            {files.length === 0 ? (
              <p className="muted small-text">None yet.</p>
            ) : (
              <ul className="files">
                {files.map((f) => (
                  <li key={f.id} className="file-row">
                    <Thumbnail projectId={p.id} file={f} />
                    <div className="file-info">
                      <a href={f.url} download={f.filename} className="strong-link">
                        {f.filename}
                      </a>
                      <span className="muted small-text">
                        {[formatBytes(f.size), personName(f.uploadedById, f.uploadedByName, me)].filter(Boolean).join(' · ')} · <time dateTime={f.createdAt}>{formatDateTime(f.createdAt)}</time>
                        {f.sha256 && (
                          <>
                            {' · '}
                            <Checksum sha256={f.sha256} />
                          </>
                        )}
                      </span>
                      {f.duplicateOf && (
                        <span className="small-text warning" data-testid="duplicate-note">
                          Same file as {f.duplicateOf.filename} uploaded on <time dateTime={f.duplicateOf.createdAt}>{formatDateTime(f.duplicateOf.createdAt)}</time>
                          {f.duplicateOf.uploadedByName ? ` by ${f.duplicateOf.uploadedByName}` : ''}
                        </span>
                      )}
                      {me.role === 'ADMIN' && f.contentTypeMismatch && (
                        <span className="small-text warning" data-testid="type-mismatch">
                          Declared as {f.contentType}, but its content is {f.detectedContentType}
                        </span>
                      )}
                      {decideVoid(me, f, new Date()) === null && <Withdraw project={p} file={f} />}
                    </div>
                  </li>
                ))}
              </ul>
            )}
            {withdrawn.length > 0 && (
              <details className="withdrawn" data-testid={`withdrawn-${type}`}>
                <summary>Withdrawn ({withdrawn.length})</summary>
                <ul className="files">
                  {withdrawn.map((f) => (
                    <li key={f.id}>
                      <span className="strong-link withdrawn-name">{f.filename}</span>
                      <span className="muted small-text">
                        Withdrawn by {personName(f.voidedById, f.voidedByName, me) ?? 'someone'} · <time dateTime={f.voidedAt!}>{formatDateTime(f.voidedAt!)}</time>
                      </span>
                      <span className="small-text">Reason: {f.voidReason}</span>
                      {p.uploads[type] === null && (
                        <button type="button" className="link-button" onClick={() => onReplace(type)}>
                          Upload a replacement
                        </button>
                      )}
                    </li>
                  ))}
                </ul>
              </details>
            )}
          </div>
        );
      })}
    </section>
  );
}

/** "Withdraw" on a document the user may withdraw now: a reason, then the record stays and its bytes are deleted. */
function Withdraw({ project: p, file: f }: { project: ProjectDetail; file: FileUpload }) {
  const queryClient = useQueryClient();
  const [open, setOpen] = useState(false);
  const [reason, setReason] = useState('');
  const toggleRef = useRef<HTMLButtonElement>(null);
  const withdraw = useMutation({
    mutationFn: () => api.voidDocument(p.id, f.id, reason.trim()),
    onSuccess: () => {
      setOpen(false);
      void queryClient.invalidateQueries({ queryKey: ['project', p.id] });
      void queryClient.invalidateQueries({ queryKey: ['activity'] });
    },
  });
  const { fields, form } = placeError(withdraw.error, { reason });
  if (!open) {
    return (
      <button type="button" className="link-button danger-link" ref={toggleRef} onClick={() => setOpen(true)} aria-label={`Withdraw ${f.filename}`}>
        Withdraw
      </button>
    );
  }
  const submit = (e: FormEvent) => {
    e.preventDefault();
    if (!withdraw.isPending) withdraw.mutate();
  };
  return (
    <form className="withdraw-form" onSubmit={submit} aria-label={`Withdraw ${f.filename}`}>
      <Field label="Why is it withdrawn?" error={fields.reason} hint="Its file is deleted; the record stays with your reason.">
        {(props) => <textarea {...props} value={reason} maxLength={MAX_LENGTH.reason} required onChange={(e) => setReason(e.target.value)} rows={2} autoFocus />}
      </Field>
      <ErrorMessage error={form} />
      <div className="button-row">
        <button type="submit" className="danger" disabled={withdraw.isPending}>
          {withdraw.isPending ? 'Withdrawing…' : 'Withdraw document'}
        </button>
        <button
          type="button"
          className="secondary"
          onClick={() => {
            setOpen(false);
            withdraw.reset();
          }}
        >
          Keep it
        </button>
      </div>
    </form>
  );
}

/** A checksum in short form; the button copies the whole of it. */
function Checksum({ sha256 }: { sha256: string }) {
  const [copied, setCopied] = useState(false);
  return (
    <span className="checksum">
      <abbr title={`SHA-256 ${sha256}`}>SHA-256 {sha256.slice(0, 12)}…</abbr>{' '}
      <button
        type="button"
        className="link-button"
        aria-label={`Copy the SHA-256 checksum ${sha256}`}
        onClick={() =>
          void navigator.clipboard?.writeText(sha256).then(
            () => setCopied(true),
            () => setCopied(false),
          )
        }
      >
        {copied ? 'Copied' : 'Copy'}
      </button>
    </span>
  );
}

/** The first document of the project with these bytes, if any. */
const sameBytes = (files: FileUpload[], sha256: string | null) => (sha256 ? [...files].reverse().find((f) => f.sha256 === sha256 && f.voidedAt === null) : undefined);

type Progress = { loaded: number; total: number; filename: string };

/**
 * Upload a document: only the types the API allows now are offered (project.uploads), the others
 * show the API's reason. The file is dropped or picked; a progress bar follows the upload; a
 * refusal shows the API's message as is.
 */
function UploadArea({ project: p, replacing }: { project: ProjectDetail; replacing: { type: DocumentType; at: number } | null }) {
  const queryClient = useQueryClient();
  const { user, maxUploadBytes } = useSession();
  const isAdmin = user.role === 'ADMIN';
  const inputRef = useRef<HTMLInputElement>(null);
  const uploadRef = useRef<Upload | null>(null);
  const [chosenType, setChosenType] = useState<DocumentType | null>(null);
  const [file, setFile] = useState<File | null>(null);
  const [dragging, setDragging] = useState(false);
  const [progress, setProgress] = useState<Progress | null>(null);
  const [uploading, setUploading] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [uploaded, setUploaded] = useState<string | null>(null);
  // Per chosen file: the key that makes a retry safe, its checksum, and whether a duplicate was confirmed.
  const [chosen, setChosen] = useState<{ key: string; sha256: Promise<string | null>; confirmed: boolean } | null>(null);
  const [duplicate, setDuplicate] = useState<FileUpload | null>(null);

  useEffect(() => () => uploadRef.current?.abort(), []);
  // "Upload a replacement": that type chosen, and the file picker next.
  useEffect(() => {
    if (!replacing) return;
    setChosenType(replacing.type);
    inputRef.current?.scrollIntoView({ block: 'center' });
    inputRef.current?.focus();
  }, [replacing]);

  const allowed = DOCUMENT_TYPES.filter((t) => p.uploads[t] === null);
  // The chosen type while the rules allow it; by default the first allowed one.
  const type = chosenType && p.uploads[chosenType] === null ? chosenType : chosenType === null ? (allowed[0] ?? null) : null;
  const canUpload = Boolean(type && file && !uploading);

  const choose = (f: File | null | undefined) => {
    setUploaded(null);
    setProgress(null);
    // Refused before a byte is sent: the service would answer 413 only after receiving the limit's worth.
    if (f && f.size > maxUploadBytes) {
      setFile(null);
      if (inputRef.current) inputRef.current.value = '';
      setError(`${f.name} is ${formatBytes(f.size)}, larger than the upload limit of ${formatBytes(maxUploadBytes)}. Choose a smaller file.`);
      return;
    }
    setFile(f ?? null);
    setError(null);
    setDuplicate(null);
    setChosen(f ? { key: crypto.randomUUID?.() ?? `${Date.now()}-${Math.random()}`, sha256: sha256OfFile(f).catch(() => null), confirmed: false } : null);
  };
  const onDrop = (e: DragEvent) => {
    e.preventDefault();
    setDragging(false);
    if (!allowed.length || uploading) return;
    choose(e.dataTransfer.files[0]);
  };

  const submit = async (e?: FormEvent, confirmed = chosen?.confirmed ?? false) => {
    e?.preventDefault();
    if (!type || !file || uploading) return;
    // The same bytes are in this project already: ask before sending them again.
    const earlier = confirmed ? undefined : sameBytes(p.files, await (chosen?.sha256 ?? Promise.resolve(null)));
    if (earlier) {
      setDuplicate(earlier);
      return;
    }
    setDuplicate(null);
    setError(null);
    setUploaded(null);
    setUploading(true);
    setProgress({ loaded: 0, total: file.size, filename: file.name });
    const seenAt = p.updatedAt;
    const upload = uploadDocument(p.id, type, file, (loaded, total) => setProgress({ loaded, total, filename: file.name }), chosen?.key);
    uploadRef.current = upload;
    try {
      const result = await upload.done;
      setProgress((cur) => (cur ? { ...cur, loaded: cur.total } : cur));
      setUploaded(`${result.filename} (${formatBytes(result.size)}) is uploaded as ${DOCUMENT_AS[type]}.`);
      setFile(null);
      setChosen(null);
      if (inputRef.current) inputRef.current.value = '';
    } catch (err) {
      setProgress(null);
      const message = err instanceof Error ? err.message : 'Upload failed';
      // A refusal from a page that was behind: catch up, and say what changed rather than contradict the page.
      if (err instanceof ApiError && err.status >= 400 && err.status < 500 && err.status !== 413) {
        await queryClient.refetchQueries({ queryKey: ['project', p.id] }).catch(() => {});
        const now = queryClient.getQueryData<ProjectDetail>(['project', p.id]);
        if (now && now.updatedAt !== seenAt) {
          setError(`${message}. The project changed meanwhile: it is now ${STAGE_LABELS[stageOf(now)].toLowerCase()}.`);
          return;
        }
      }
      setError(message);
    } finally {
      uploadRef.current = null;
      setUploading(false);
      // Whatever happened, show the documents and the rules as they are now (a failure keeps the answer shown above).
      void queryClient.invalidateQueries({ queryKey: ['project', p.id] });
    }
  };

  const percent = progress && progress.total ? Math.round((progress.loaded / progress.total) * 100) : 0;

  return (
    <section className="card" aria-labelledby="upload-title">
      <h2 id="upload-title">Upload a document</h2>
      <form onSubmit={(e) => void submit(e)} className="upload-form">
        <fieldset className="types">
          <legend>Document type</legend>
          {DOCUMENT_TYPES.map((t) => {
            const reason = uploadBlocker(p, t, isAdmin, p.uploads[t]);
            return (
              <div key={t} className={reason ? 'type-option disabled' : 'type-option'}>
                <input
                  type="radio"
                  id={`type-${t}`}
                  name="fileType"
                  value={t}
                  checked={type === t}
                  disabled={reason !== null || uploading}
                  onChange={() => setChosenType(t)}
                  aria-describedby={reason ? `type-${t}-reason` : undefined}
                />
                <label htmlFor={`type-${t}`}>{DOCUMENT_LABELS[t]}</label>
                {reason && (
                  <p className="reason" id={`type-${t}-reason`} data-testid={`reason-${t}`}>
                    {reason}
                  </p>
                )}
              </div>
            );
          })}
        </fieldset>

        {allowed.length === 0 && !uploading ? (
          <p className="muted small-text">No document can be uploaded to this project right now.</p>
        ) : (
          <>
            <div
              className={dragging ? 'dropzone dragging' : 'dropzone'}
              onDragOver={(e) => {
                e.preventDefault();
                if (!uploading) setDragging(true);
              }}
              onDragLeave={() => setDragging(false)}
              onDrop={onDrop}
            >
              <label htmlFor="upload-file">Drop a file here, or choose one</label>
              <p className="hint" id="upload-limit">
                Up to {formatBytes(maxUploadBytes)}.
              </p>
              <input id="upload-file" ref={inputRef} type="file" disabled={uploading} onChange={(e) => choose(e.target.files?.[0])} aria-describedby="upload-limit" />
              {file && (
                <p className="small-text" data-testid="chosen-file">
                  {file.name} · {formatBytes(file.size)}
                </p>
              )}
            </div>

            <div className="button-row">
              <button type="submit" className="primary" disabled={!canUpload}>
                {uploading ? 'Uploading…' : 'Upload'}
              </button>
              {uploading && (
                <button type="button" className="secondary" onClick={() => uploadRef.current?.abort()}>
                  Stop
                </button>
              )}
            </div>
          </>
        )}

        {duplicate && file && (
          <div className="notice" role="alert" data-testid="duplicate-question">
            <p>
              {file.name} is the same file as {duplicate.filename}, uploaded on {formatDateTime(duplicate.createdAt)}
              {duplicate.uploadedByName ? ` by ${duplicate.uploadedByName}` : ''}. Upload it again?
            </p>
            <div className="button-row">
              <button
                type="button"
                className="primary"
                onClick={() => {
                  setChosen((c) => c && { ...c, confirmed: true });
                  void submit(undefined, true);
                }}
              >
                Upload again
              </button>
              <button type="button" className="secondary" onClick={() => choose(null)}>
                Don’t upload
              </button>
            </div>
          </div>
        )}
        {progress && (
          <div className="progress">
            <label htmlFor="upload-progress">
              {uploading ? `Uploading ${progress.filename}…` : `Sent ${progress.filename}`} {percent}%
            </label>
            <progress id="upload-progress" value={progress.loaded} max={progress.total || 1} />
          </div>
        )}
        {error && (
          <p className="error" role="alert" data-testid="upload-error">
            {error}
          </p>
        )}
        {uploaded && (
          <p className="success" role="status">
            {uploaded}
          </p>
        )}
      </form>
    </section>
  );
}

function ProjectActivity({ id }: { id: string }) {
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

/** The payments received (newest first) with what is paid and the balance; for ADMINs, "Record a payment". */
function Payments({ project: p }: { project: ProjectDetail }) {
  const me = useUser();
  const [open, setOpen] = useState(false);
  const [recorded, setRecorded] = useState<string | null>(null);
  const currency = p.pi?.currency ?? p.payments[0]?.currency ?? 'INR';
  if (me.role !== 'ADMIN' && !p.pi && p.payments.length === 0) return null;
  return (
    <section className="card" aria-labelledby="payments-title" data-testid="payments">
      <h2 id="payments-title">Payments</h2>
      <dl className="facts money-facts">
        <div>
          <dt>PI amount</dt>
          <dd data-testid="payments-pi">{p.pi ? formatMoney(p.pi.amount, p.pi.currency) : 'No PI yet'}</dd>
        </div>
        <div>
          <dt>Paid</dt>
          <dd data-testid="payments-paid">{formatMoney(p.paid, currency)}</dd>
        </div>
        <div>
          <dt>Balance</dt>
          <dd data-testid="payments-balance">{p.balance === null ? '—' : formatMoney(p.balance, currency)}</dd>
        </div>
      </dl>
      {p.payments.length === 0 ? (
        <p className="muted small-text">No payment recorded yet.</p>
      ) : (
        <ul className="plain-list payments-list" data-testid="payments-list">
          {p.payments.map((pay) => (
            <li key={pay.id}>
              <strong>{formatMoney(pay.amount, pay.currency)}</strong> <span className="muted">on</span> <time dateTime={pay.receivedOn}>{formatDay(pay.receivedOn)}</time>
              {(pay.method || pay.reference) && <span className="muted small-text"> · {[pay.method, pay.reference].filter(Boolean).join(' · ')}</span>}
            </li>
          ))}
        </ul>
      )}
      {me.role === 'ADMIN' && (
        <>
          <button
            type="button"
            className="secondary small"
            aria-expanded={open}
            onClick={() => {
              setRecorded(null);
              setOpen((o) => !o);
            }}
          >
            Record a payment
          </button>
          {open && (
            <PaymentForm
              project={p}
              currency={currency}
              onDone={(text) => {
                setOpen(false);
                setRecorded(text);
              }}
              onCancel={() => setOpen(false)}
            />
          )}
          {recorded && (
            <p className="success" role="status">
              {recorded}
            </p>
          )}
        </>
      )}
    </section>
  );
}

/** A payment received: the amount typed in major units and sent in minor units (string arithmetic), a date not after today. */
function PaymentForm({ project: p, currency, onDone, onCancel }: { project: ProjectDetail; currency: string; onDone: (text: string) => void; onCancel: () => void }) {
  const queryClient = useQueryClient();
  const today = todayIso();
  const [values, setValues] = useState({ amount: '', receivedOn: today, method: '', reference: '' });
  const [fieldErrors, setFieldErrors] = useState<Record<string, string>>({});
  const set = (field: keyof typeof values) => (e: { target: { value: string } }) => setValues((v) => ({ ...v, [field]: e.target.value }));
  const send = useMutation({
    mutationFn: (body: { amount: number; receivedOn: string; method?: string; reference?: string }) => api.recordPayment(p.id, body),
    onSuccess: (pay) => {
      void queryClient.invalidateQueries({ queryKey: ['project', p.id] });
      void queryClient.invalidateQueries({ queryKey: ['stats'] });
      onDone(`${formatMoney(pay.amount, pay.currency)} received on ${formatDay(pay.receivedOn)} is recorded.`);
    },
    onError: (error) => setFieldErrors(placeError(error, values).fields),
  });
  const submit = (e: FormEvent) => {
    e.preventDefault();
    const errors: Record<string, string> = {};
    const amount = parseMajor(values.amount, currency);
    if (amount === null || amount < 1) {
      const digits = minorDigits(currency);
      errors.amount = digits ? `Amount must be a number more than 0, with at most ${digits} digits after the dot` : 'Amount must be a whole number more than 0';
    }
    if (!/^\d{4}-\d{2}-\d{2}$/.test(values.receivedOn)) errors.receivedOn = 'Received on is required';
    else if (values.receivedOn > today) errors.receivedOn = 'Received on must not be in the future';
    setFieldErrors(errors);
    if (Object.keys(errors).length || amount === null || send.isPending) return;
    send.mutate({
      amount,
      receivedOn: values.receivedOn,
      ...(values.method.trim() ? { method: values.method.trim() } : {}),
      ...(values.reference.trim() ? { reference: values.reference.trim() } : {}),
    });
  };
  return (
    <form className="form" onSubmit={submit} noValidate aria-label="Record a payment">
      <Field label="Amount" error={fieldErrors.amount} hint={`In ${currency}, e.g. 50000 or 50000.50`}>
        {(props) => <input {...props} value={values.amount} onChange={set('amount')} inputMode="decimal" autoComplete="off" />}
      </Field>
      <Field label="Received on" error={fieldErrors.receivedOn}>
        {(props) => <input {...props} type="date" value={values.receivedOn} max={today} onChange={set('receivedOn')} />}
      </Field>
      <Field label="Method (optional)" error={fieldErrors.method} hint="NEFT, cheque, UPI…">
        {(props) => <input {...props} value={values.method} onChange={set('method')} maxLength={100} autoComplete="off" />}
      </Field>
      <Field label="Payment reference (optional)" error={fieldErrors.reference} hint="A UTR or cheque number.">
        {(props) => <input {...props} value={values.reference} onChange={set('reference')} maxLength={100} autoComplete="off" />}
      </Field>
      {send.error && !Object.keys(fieldErrors).length && <ErrorMessage error={send.error} />}
      <FormActions label="Record the payment" pending={send.isPending} onCancel={onCancel} />
    </form>
  );
}
