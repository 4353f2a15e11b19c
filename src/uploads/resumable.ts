import fs from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { pipeline } from 'node:stream/promises';
import { Metadata, Server } from '@tus/server';
import type { Deps } from '../deps.js';
import { isUnspecific } from '../domain/content-types.js';
import { OUTAGE_MESSAGE, isDependencyUnavailable } from '../domain/outage.js';
import { cleanContentType, cleanFilename } from '../domain/documents.js';
import type { Actor } from '../domain/model.js';
import type { ResumableUpload } from '../db/resumable-uploads.js';
import { AppError, errors } from '../errors.js';
import { drainUnreadBody } from '../http/timeouts.js';
import { newId } from '../ids.js';
import { type ResumableStore, createResumableStore } from '../storage/index.js';
import { admitType } from './admit-type.js';
import { checkUpload } from './check.js';
import { type IncomingFile, type UploadSource, uploadDocument } from './index.js';
import { DocumentInspector, type Inspection, detectType } from './inspect.js';
import { LeaseLocker } from './lease-locker.js';
import { RunningHashes } from './running-hash.js';
import { type TusRequest, sendTusResponse, tusRequest } from './tus-request.js';
import { nowDate } from '../clock.js';

export const RESUMABLE_PATH = '/api/resumable-uploads';

/** What a creation request asked for, once checks 1–7 passed (handed from the route to the tus hook). */
interface CheckedCreation {
  projectId: string;
  fileType: string;
  filename: string;
  contentType: string;
}

/**
 * The session's actor (and, on a creation, what was checked) of a request the tus server is
 * handling, and work left for once its answer is made (`afterAnswer`).
 */
const requests = new WeakMap<IncomingMessage, { actor: Actor; created?: CheckedCreation; afterAnswer?: () => Promise<void> }>();

type NodeRuntime = { runtime?: { node?: { req: IncomingMessage; res: ServerResponse } } };
const nodeOf = ({ request }: TusRequest) => {
  const node = (request as NodeRuntime).runtime!.node!;
  return { raw: node.req, res: node.res };
};
const contextOf = (req: unknown) => {
  const node = (req as NodeRuntime).runtime?.node?.req;
  const context = node && requests.get(node);
  if (!context) throw new Error('resumable upload request without its session');
  return context;
};

/** A refusal as the tus server sends it: our status and `{"error": …}` body. */
const tusError = (status: number, message: string) => ({ status_code: status, body: JSON.stringify({ error: message }) });

/**
 * Resumable uploads with the tus 1.0 protocol (@tus/server; the bytes wait in DATA_DIR/resumable,
 * or in S3 multipart uploads with STORAGE_DRIVER=s3: storage/index.ts), locked per upload
 * across instances by a lease in the database (uploads/lease-locker.ts). The service's own route
 * checks each request first (session, checks 1–7 on creation, ownership afterwards) and hands it
 * over with `handle`; completion is an upload like POST /api/upload's (uploadDocument) from the
 * assembled bytes, hashed while they arrived where this instance saw them all.
 */
export async function createResumableUploads(deps: Deps) {
  const { log } = deps;
  const drain = { drainMs: deps.config.timeouts.drainMs, drainBytes: deps.config.timeouts.drainBytes };
  const bytes = await createResumableStore(deps.config);
  const hashes = new RunningHashes();
  hashes.follow(bytes.datastore);

  const server = new Server({
    path: RESUMABLE_PATH,
    datastore: bytes.datastore,
    locker: new LeaseLocker(deps.store, log),
    maxSize: deps.config.maxUploadBytes,
    relativeLocation: true,
    // Same origin only (the web app): no CORS headers.
    allowedOrigins: [],
    disableTerminationForFinishedUploads: true,
    namingFunction: () => newId(),
    // A failure of ours (not one of tus's own errors, nor a refusal we made) is logged, and answered without its details.
    onResponseError: (_req, err) => {
      if ('status_code' in err) return undefined;
      // The database (its lease, its row) out of reach: worth retrying, as on every route (tus-request.ts adds Retry-After).
      if (isDependencyUnavailable(err)) {
        log.warn({ err }, 'resumable upload request failed: a dependency is unavailable');
        return tusError(503, OUTAGE_MESSAGE);
      }
      log.error({ err }, 'resumable upload request failed');
      return tusError(500, 'Upload failed');
    },
    onUploadCreate: async (req, upload) => {
      const { actor, created } = contextOf(req);
      if (!created) throw new Error('creation without its checks');
      await deps.store.resumableUploads.insert({ id: upload.id, userId: actor.id, ...created }, nowDate().toISOString());
      return {};
    },
    onUploadFinish: async (req, upload) => {
      const context = contextOf(req);
      const row = await deps.store.resumableUploads.find(upload.id);
      // A repeated last PATCH (its answer was lost) finds the completion done or under way.
      if (!row || !(await deps.store.resumableUploads.claimFinish(upload.id, nowDate().toISOString()))) return {};
      const discard = () => bytes.discard(upload.id).catch((err: unknown) => log.error({ err }, 'could not remove a finished resumable upload'));
      try {
        const file = await uploadDocument(deps, context.actor, finishedUpload(row, bytes, upload.offset, await hashes.take(upload.id, upload.offset), log));
        await deps.store.resumableUploads.finished(upload.id, { fileUploadId: file.id });
        // A creation that carried the whole file (creation-with-upload) still reads the upload to make its answer.
        if (req.method === 'POST') context.afterAnswer = discard;
        else await discard();
        return {};
      } catch (err) {
        const refusal = err instanceof AppError;
        const status = refusal ? err.status : 500;
        const message = refusal ? err.message : (err as Error)?.message || 'Upload failed';
        if (!refusal) log.error({ err }, 'resumable upload completion failed');
        await deps.store.resumableUploads.finished(upload.id, { status, message }).catch(() => {});
        // Refused or failed: the assembled bytes are not kept (a failure after step 8 is not undone, as specified).
        await discard();
        throw tusError(status, message);
      }
    },
  });

  return {
    server,
    /** Specification 4.1 checks 1–7 (and the size and type rules) on a creation, before a byte is accepted; throws the refusal. */
    async checkCreation(raw: IncomingMessage, actor: Actor): Promise<void> {
      const meta = parseMetadata(raw.headers['upload-metadata']);
      // As POST /api/upload refuses NUL in its fields, first: PostgreSQL's text cannot hold it (http/nul.ts).
      const nul = Object.keys(meta).find((key) => meta[key]?.includes('\u0000'));
      if (nul !== undefined) throw errors.invalidField(`Upload-Metadata ${nul}`, 'must not contain NUL characters');
      const length = raw.headers['upload-length'];
      const deferred = raw.headers['upload-defer-length'] === '1';
      const hasFile = Boolean(meta.filename?.trim()) && (deferred || (length !== undefined && Number(length) > 0));
      const { project, type } = await checkUpload(deps, actor, { hasFile, projectId: meta.projectId, fileType: meta.fileType });
      if (length !== undefined && Number(length) > deps.config.maxUploadBytes) throw errors.fileTooLarge(deps.config.maxUploadBytes);
      const contentType = cleanContentType(meta.filetype);
      // A type that says nothing is left to the bytes, judged at completion (as POST /api/upload judges it).
      if (!isUnspecific(contentType)) admitType(deps.config.uploadAllowedTypes, contentType, null);
      requests.set(raw, { actor, created: { projectId: project.id, fileType: type, filename: cleanFilename(meta.filename!), contentType } });
    },
    /** The upload exists and is the caller's; else 404 (another user's upload is as good as unknown). */
    async checkOwner(id: string, actor: Actor): Promise<ResumableUpload> {
      const row = await deps.store.resumableUploads.find(id);
      if (!row || row.userId !== actor.id) throw errors.resumableNotFound();
      return row;
    },
    /** The request as the tus server reads it; made before the reply is handed over, so a failure here is still answered. */
    prepare(raw: IncomingMessage, res: ServerResponse): TusRequest {
      // RFC 9112 3.2: a Host that is not a host is a 400 (it would also fail the URL the tus server reads).
      if (raw.headers.host !== undefined && !isHost(raw.headers.host)) throw errors.invalidHost();
      return tusRequest(raw, res);
    },
    /**
     * Lets the tus server handle the request and sends its answer (errors in JSON). A terminated
     * upload is forgotten (its result is then 404); a body left unread is drained as any early answer's.
     */
    async handle(prepared: TusRequest, actor: Actor, uploadId?: string): Promise<void> {
      const { raw, res } = nodeOf(prepared);
      if (!requests.has(raw)) requests.set(raw, { actor });
      try {
        const response = await server.handleWeb(prepared.request);
        await requests.get(raw)?.afterAnswer?.();
        if (raw.method === 'DELETE' && response.status === 204 && uploadId) await deps.store.resumableUploads.remove(uploadId);
        await sendTusResponse(res, response, prepared.bodyBroken());
      } catch (err) {
        log.error({ err }, 'resumable upload request failed');
        await sendTusResponse(res, new Response(JSON.stringify({ error: 'Upload failed' }), { status: 500, headers: { 'tus-resumable': '1.0.0' } }));
      } finally {
        prepared.release();
        drainUnreadBody(raw, drain);
      }
    },
  };
}

export type ResumableUploads = Awaited<ReturnType<typeof createResumableUploads>>;

/** A Host header that names a host (and port) and nothing else. */
function isHost(value: string): boolean {
  try {
    return new URL(`http://${value}`).host === value.toLowerCase().replace(/:80$/, '');
  } catch {
    return false;
  }
}

function parseMetadata(header: string | string[] | undefined): Record<string, string | undefined> {
  if (typeof header !== 'string') return {};
  try {
    const parsed = Metadata.parse(header);
    return Object.fromEntries(Object.entries(parsed).map(([k, v]) => [k, v ?? undefined]));
  } catch {
    return {}; // malformed metadata carries none of the fields: check 2's answer
  }
}

/**
 * A finished resumable upload as an upload source: its form is the creation's metadata (checked again:
 * the project may have moved on since), its file the assembled bytes. When this instance hashed every
 * byte as it arrived (`known`), they go into storage as they are (a local file adopted without a
 * copy); otherwise they are read once through the inspector, hashed and recognised on the way.
 */
function finishedUpload(
  row: ResumableUpload,
  bytes: ResumableStore,
  size: number,
  known: { sha256: string; head: Buffer } | undefined,
  log: UploadSource['log'],
): UploadSource {
  let inspected: Inspection | undefined;
  const file: IncomingFile = {
    filename: row.filename,
    contentType: row.contentType,
    async read(consume) {
      const assembled = await bytes.assembled(row.id);
      if (known) {
        const detectedType = await detectType(known.head);
        inspected = { sha256: known.sha256, detectedType };
        try {
          return await consume('file' in assembled ? { file: assembled.file, detectedType } : { body: assembled.body, detectedType });
        } finally {
          if ('body' in assembled) assembled.body.destroy(); // unread when refused by type; done otherwise
        }
      }
      const inspector = new DocumentInspector();
      const feeding = pipeline('file' in assembled ? fs.createReadStream(assembled.file) : assembled.body, inspector);
      feeding.catch(() => {}); // the consumer below sees the failure
      let placed;
      try {
        placed = await consume({ body: inspector, detectedType: await inspector.detected });
      } catch (err) {
        inspector.destroy();
        throw err;
      }
      await feeding;
      inspected = inspector.result();
      return placed;
    },
    inspection: () => ({ size, ...inspected! }),
  };
  return {
    log,
    form: async () => ({ projectId: row.projectId, fileType: row.fileType, file }),
    end: async () => {},
    close: async () => {},
  };
}
