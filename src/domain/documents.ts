import { isMediaType, servedInline } from './content-types.js';
import type { DocumentType } from './model.js';

/** Every document's key starts with this; the reconciler looks at nothing else in a store. */
export const DOCUMENTS_PREFIX = 'print-orders/';

/** What is stored under a project: its documents, and its proofs (interface.md, "Proofs": folder `print-orders/<projectId>/proof`). */
export type StoredKind = DocumentType | 'PROOF';

/** Where a document is stored (specification 4.1 step 8, interface.md "Files"). */
export const documentFolder = (projectId: string, type: StoredKind): string => `${DOCUMENTS_PREFIX}${projectId}/${type.toLowerCase()}`;

/** `<lower-case fileType>_<milliseconds>`. */
export const publicName = (type: StoredKind, ms: number): string => `${type.toLowerCase()}_${ms}`;

/** The original name's extension when it is 1–10 letters or digits, else null. */
export function extensionOf(filename: string): string | null {
  const m = /\.([A-Za-z0-9]{1,10})$/.exec(filename);
  return m?.[1] ?? null;
}

/**
 * Content-Disposition for a stored file: inline only for passive types, attachment for anything a
 * browser could run or render as a page, by what was declared or by what the bytes are.
 */
export function dispositionFor(contentType: string, filename: string, detectedType: string | null = null): string {
  const kind = servedInline(contentType, detectedType) ? 'inline' : 'attachment';
  const ascii = filename.replace(/[^\x20-\x7e]|["\\]/g, '_');
  return `${kind}; filename="${ascii}"; filename*=UTF-8''${encodeURIComponent(filename)}`;
}

/**
 * The original file name as it is kept: control characters (NUL among them, which PostgreSQL's
 * text refuses) taken out, so a name never fails the record after the bytes are stored.
 */
export function cleanFilename(filename: string): string {
  // eslint-disable-next-line no-control-regex
  const cleaned = filename.replace(/[\u0000-\u001f\u007f]/g, '').trim();
  return shortened(cleaned || 'file', MAX_FILENAME_CHARS);
}

/** The longest name kept (file systems' own limit): a longer one would make every download's Content-Disposition huge. */
export const MAX_FILENAME_CHARS = 255;

/** A name cut to `max` characters (code points, never half a character), its extension kept. */
function shortened(name: string, max: number): string {
  const chars = [...name];
  if (chars.length <= max) return name;
  const dot = name.lastIndexOf('.');
  const extension = dot > 0 && name.length - dot <= 11 ? [...name.slice(dot)] : [];
  return chars.slice(0, max - extension.length).join('') + extension.join('');
}

/**
 * The declared type as it is kept: one that is not a valid media type (non-ASCII, control
 * characters, no subtype: `text/plain\u0100`) is no type at all, application/octet-stream, so that
 * every stored document can be served with its type. Never refused: the file itself is fine.
 */
export const cleanContentType = (declared: string | undefined): string => {
  const type = declared?.trim();
  return type && isMediaType(type) ? type : 'application/octet-stream';
};

/** DOCUMENT_ACCESS: who a document's address answers (interface.md, "Private documents"). */
export interface DocumentAccess {
  mode: 'public' | 'private';
  /** PUBLIC_URL: in private mode every document's address is ours, `<publicUrl>/files/<key>`. */
  publicUrl: string;
}

/** Our address of a stored object: `<publicUrl>/files/<key>`, each segment URL-encoded (the local driver's url). */
export const filesAddress = (publicUrl: string, key: string): string => `${publicUrl}/files/${key.split('/').map(encodeURIComponent).join('/')}`;

/**
 * A document's `url` as the API answers it. Public: what the store issued (kept in the record).
 * Private: ours on every driver, so each request is checked; the record keeps the store's address,
 * which the service's own reads use, and which answers again if the setting goes back to public.
 */
export const documentAddress = (access: DocumentAccess, file: { url: string; storageKey: string }): string =>
  access.mode === 'private' ? filesAddress(access.publicUrl, file.storageKey) : file.url;

/** Cache-Control of a document's bytes and of its redirect in private mode: no shared cache keeps them, a browser asks again each time. */
export const PRIVATE_DOCUMENT_CACHE = 'private, no-cache';
/** The redirect to a signed address: also never written to a cache, since the signature is a short-lived key. */
export const PRIVATE_REDIRECT_CACHE = 'private, no-cache, no-store';
