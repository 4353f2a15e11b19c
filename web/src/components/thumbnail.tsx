import { useEffect, useRef, useState } from 'react';
import type { FileUpload } from '../api';
import { formatBytes } from '../format';

/** GET /api/projects/:id/files/:fileId/preview (the width within the API's 64–1600). */
const previewUrl = (projectId: string, fileId: string, page: number, width: number) =>
  `/api/projects/${encodeURIComponent(projectId)}/files/${encodeURIComponent(fileId)}/preview?page=${page}&width=${Math.max(64, Math.min(1600, Math.round(width)))}`;

/** A short label for a document's type, shown where it has no preview. */
function typeLabel(f: Pick<FileUpload, 'filename'>): string {
  const ext = /\.([a-z0-9]{1,5})$/i.exec(f.filename)?.[1];
  return ext ? ext.toUpperCase() : 'FILE';
}

/**
 * A document's first page, small and loaded lazily; a button that opens the viewer. A document
 * without a preview (the API's 404) shows its type and size instead.
 */
export function Thumbnail({ projectId, file }: { projectId: string; file: FileUpload }) {
  const [failed, setFailed] = useState(false);
  const [open, setOpen] = useState(false);
  if (failed) {
    return (
      <span className="thumb thumb-icon" aria-hidden="true" data-testid="thumb-icon">
        <span className="thumb-type">{typeLabel(file)}</span>
        <span className="thumb-size">{formatBytes(file.size)}</span>
      </span>
    );
  }
  return (
    <>
      <button type="button" className="thumb" onClick={() => setOpen(true)} aria-label={`Preview ${file.filename}`}>
        <img src={previewUrl(projectId, file.id, 1, 2 * 72)} alt="" width={72} loading="lazy" onError={() => setFailed(true)} data-testid="thumb" />
      </button>
      {open && <Viewer projectId={projectId} file={file} onClose={() => setOpen(false)} />}
    </>
  );
}

/** A larger view of one page at a time, with the previous and next pages; fits a 390 px screen. */
function Viewer({ projectId, file, onClose }: { projectId: string; file: FileUpload; onClose: () => void }) {
  const dialog = useRef<HTMLDialogElement>(null);
  const [page, setPage] = useState(1);
  const [pages, setPages] = useState<number | null>(null);
  const [error, setError] = useState<string | null>(null);
  // As wide as the screen shows it (sharp on high-density screens), within the API's bounds.
  const [width] = useState(() => Math.min(window.innerWidth, 900) * (window.devicePixelRatio || 1));

  useEffect(() => {
    dialog.current?.showModal();
    // The page count comes with the first page (X-Page-Count); the browser keeps the answer for the <img> below.
    let gone = false;
    fetch(previewUrl(projectId, file.id, 1, width), { credentials: 'same-origin' })
      .then((res) => {
        if (gone) return;
        if (!res.ok) return setError(res.status === 404 ? 'This document has no preview.' : 'The preview could not be loaded.');
        const count = Number(res.headers.get('x-page-count'));
        setPages(Number.isInteger(count) && count > 0 ? count : 1);
      })
      .catch(() => !gone && setError('The preview could not be loaded.'));
    return () => {
      gone = true;
    };
  }, [projectId, file.id, width]);

  const go = (to: number) => {
    setError(null);
    setPage(to);
  };
  return (
    <dialog ref={dialog} className="viewer" onClose={onClose} aria-label={`Preview of ${file.filename}`} data-testid="viewer">
      <div className="viewer-bar">
        <button type="button" className="secondary" onClick={() => go(page - 1)} disabled={page <= 1}>
          Previous
        </button>
        <span aria-live="polite">{pages ? `Page ${page} of ${pages}` : `Page ${page}`}</span>
        <button type="button" className="secondary" onClick={() => go(page + 1)} disabled={pages === null || page >= pages}>
          Next
        </button>
        <button type="button" onClick={() => dialog.current?.close()}>
          Close
        </button>
      </div>
      {error ? (
        <p className="muted">{error}</p>
      ) : (
        <img
          key={page}
          src={previewUrl(projectId, file.id, page, width)}
          alt={`Page ${page} of ${file.filename}`}
          className="viewer-page"
          onError={() => setError('This page has no preview.')}
        />
      )}
    </dialog>
  );
}
