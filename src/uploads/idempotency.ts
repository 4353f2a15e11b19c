import type { Deps } from '../deps.js';
import type { Actor, FileUpload } from '../domain/model.js';
import { errors } from '../errors.js';
import { uploadDocument } from './index.js';
import type { FormSource } from './read-form.js';
import { nowMs } from '../clock.js';

/** How long a key answers with its first upload (interface.md: 24 h). */
export const IDEMPOTENCY_TTL_MS = 24 * 3_600_000;
/**
 * A claim still unfinished after this long belongs to a request that died with its process (a
 * crash between claim and record): it no longer blocks the key.
 */
export const IDEMPOTENCY_ABANDONED_MS = 3_600_000;

/** The Idempotency-Key header: undefined when absent (the specification's behaviour), else 1–255 visible ASCII characters. */
export function idempotencyKeyOf(header: string | string[] | undefined): string | undefined {
  if (header === undefined) return undefined;
  if (typeof header !== 'string' || !/^[\x21-\x7e](?:[\x20-\x7e]{0,253}[\x21-\x7e])?$/.test(header)) throw errors.invalidIdempotencyKey();
  return header;
}

/** What a retried request asks for, read without storing anything (read-form.ts, summary). */
export interface UploadRequestSummary {
  projectId?: string;
  fileType?: string;
  filename?: string;
  sha256?: string;
}

/** Whether a retry asks for what the first request's upload is: the same project, type, file name and bytes. */
export const sameRequest = (first: FileUpload, retry: UploadRequestSummary): boolean =>
  retry.projectId === first.projectId && retry.fileType === first.type && retry.filename === first.filename && retry.sha256 === first.sha256;

const iso = (ms: number) => new Date(ms).toISOString();

/**
 * POST /api/upload with an Idempotency-Key (after the IETF httpapi draft): the first request with a
 * key claims it in the database (one row per user and key, so racing requests and instances agree
 * on one winner) and runs the upload; a later one with the same key reads its body without storing
 * it and answers the first upload again, or 409 when it asks for something else or the first is
 * still running. Only a successful upload is remembered: a refused or failed one gives the key back,
 * so a retry is processed afresh. A first request that recorded its upload but could not mark the
 * claim with it (the database failed in between) has its upload found by a retry, by what it is.
 */
export async function uploadOnce(deps: Deps, actor: Actor, key: string, form: FormSource): Promise<FileUpload> {
  const keys = deps.store.idempotencyKeys;
  const now = nowMs();
  if (await keys.claim(actor.id, key, iso(now), iso(now - IDEMPOTENCY_TTL_MS), iso(now - IDEMPOTENCY_ABANDONED_MS))) {
    let file: FileUpload;
    try {
      file = await uploadDocument(deps, actor, form);
    } catch (err) {
      await keys.release(actor.id, key).catch(() => {});
      throw err;
    }
    await keys.complete(actor.id, key, file.id);
    return file;
  }
  const retry = await form.summary();
  const claim = await keys.find(actor.id, key);
  if (!claim) throw errors.idempotencyKeyInProgress();
  if (claim.fileUploadId === null) {
    const { projectId, fileType, filename, sha256 } = retry;
    const recorded =
      projectId !== undefined && fileType !== undefined && filename !== undefined && sha256 !== undefined
        ? await keys.recordedUnmarked(actor.id, claim.createdAt, { projectId, type: fileType, filename, sha256 })
        : undefined;
    if (!recorded) throw errors.idempotencyKeyInProgress();
    // Should the database still refuse, the key stays unmarked and the next retry finds the upload the same way.
    await keys.complete(actor.id, key, recorded.id).catch(() => {});
    return recorded;
  }
  const first = await deps.store.files.findById(claim.fileUploadId);
  if (!first || !sameRequest(first, retry)) throw errors.idempotencyKeyReused();
  return first;
}
