import { useQueryClient } from '@tanstack/react-query';
import { type DragEvent, type FormEvent, useEffect, useRef, useState } from 'react';
import { ApiError, DOCUMENT_TYPES, type DocumentType, type FileUpload, type ProjectDetail, type Upload, sha256OfFile, uploadDocument } from '../../api';
import { DOCUMENT_AS, DOCUMENT_LABELS, STAGE_LABELS, formatBytes, formatDateTime, stageOf, uploadBlocker } from '../../format';
import { useSession } from '../../session';

/** The first document of the project with these bytes, if any. */
const sameBytes = (files: FileUpload[], sha256: string | null) => (sha256 ? [...files].reverse().find((f) => f.sha256 === sha256 && f.voidedAt === null) : undefined);

type Progress = { loaded: number; total: number; filename: string };

/**
 * Upload a document: only the types the API allows now are offered (project.uploads), the others
 * show the API's reason. The file is dropped or picked; a progress bar follows the upload; a
 * refusal shows the API's message as is.
 */
export function UploadArea({ project: p, replacing }: { project: ProjectDetail; replacing: { type: DocumentType; at: number } | null }) {
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
