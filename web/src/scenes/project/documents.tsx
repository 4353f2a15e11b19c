import { useMutation, useQueryClient } from '@tanstack/react-query';
import { type FormEvent, useRef, useState } from 'react';
import { DOCUMENT_TYPES, type DocumentType, type FileUpload, type ProjectDetail, api } from '../../api';
import { ErrorMessage, Field, placeError } from '../../components';
import { Thumbnail } from '../../components/thumbnail';
import { DOCUMENT_LABELS, formatBytes, formatDateTime, personName } from '../../format';
import { MAX_LENGTH } from '../../../../src/domain/limits';
import { useUser } from '../../session';
import { decideVoid } from '../../../../src/domain/void-policy';

/** The project's documents by type, each with its preview and who uploaded it; the withdrawn ones folded away. */
export function Documents({ project: p, onReplace }: { project: ProjectDetail; onReplace: (type: DocumentType) => void }) {
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
