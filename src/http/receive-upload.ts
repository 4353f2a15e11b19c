import { createHash, randomUUID } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { type Readable, Transform, type TransformCallback } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type {} from '@fastify/multipart';
import type { FastifyRequest } from 'fastify';
import {
  type PlacedDocument,
  discardPlacedDocument,
  recordDocument,
} from '../actions/upload-document.js';
import type { Deps } from '../deps.js';
import type { Actor, DocumentType, FileUpload, Project } from '../domain/model.js';
import { cleanContentType, cleanFilename } from '../domain/documents.js';
import { AppError, errors } from '../errors.js';
import type { UploadRequestSummary } from '../uploads/idempotency.js';
import { checkUpload } from '../uploads/checks.js';
import { DocumentInspector, InMemoryInspection, type Inspection } from '../uploads/inspect.js';
import { admitAndPlace } from '../uploads/place.js';

type FieldName = 'projectId' | 'fileType';

/**
 * A file no larger is read whole into memory and stored in one write, without streams (most
 * documents are): what a streamed upload holds in its write buffer anyway (storage/local).
 */
const IN_MEMORY_BYTES = 1024 * 1024;

/**
 * Reads a POST /api/upload body part by part and runs the specification's steps at the earliest
 * moment each can run, so a file is never whole in memory and a refused upload stores nothing:
 *
 * - projectId and fileType before the file: checks 2–7 run as soon as the file's first byte
 *   arrives, and the bytes stream straight into storage.
 * - the file before them: its bytes go to a temporary file under DATA_DIR (always removed), and
 *   the checks run when the body has ended.
 *
 * Records (steps 9–11) are written only once the whole body has been read, so a body that breaks
 * off after the file leaves nothing behind. Whatever the outcome, the rest of the body is drained
 * so the connection stays usable.
 */
export async function receiveUpload(req: FastifyRequest, deps: Deps, actor: Actor): Promise<FileUpload> {
  if (!req.isMultipart()) throw errors.uploadFieldsRequired();
  const max = deps.config.maxUploadBytes;
  const fields: Partial<Record<FieldName, string>> = {};
  let filePartSeen = false;
  let file: { filename: string; contentType: string; received: ReceivedFile } | undefined;
  let placed: { project: Project; type: DocumentType; document: PlacedDocument } | undefined;
  let spoolPath: string | undefined;

  try {
    // busboy's own limit sits one byte above ours, so our counter is the one that trips.
    const parts = req.parts({ limits: { fileSize: max + 1, fieldSize: 64 * 1024 } })[Symbol.asyncIterator]();
    for (;;) {
      const next = await parts.next().catch((err: unknown) => {
        throw err instanceof AppError ? err : errors.malformedMultipart();
      });
      if (next.done) break;
      const part = next.value;

      if (part.type === 'field') {
        const name = part.fieldname as FieldName;
        if ((name === 'projectId' || name === 'fileType') && !(name in fields)) {
          const value = typeof part.value === 'string' ? part.value : JSON.stringify(part.value);
          if (value.includes('\u0000')) throw errors.invalidField(name, 'must not contain NUL characters');
          fields[name] = value;
        }
        continue;
      }
      // Only the first part named "file" counts; one without a name or without bytes is a missing file.
      if (part.fieldname !== 'file' || filePartSeen) {
        part.file.resume();
        continue;
      }
      filePartSeen = true;
      if (!part.filename) {
        part.file.resume();
        continue;
      }
      const received = new ReceivedFile(part.file, max);
      if (!(await received.firstByteArrived())) continue;
      file = { filename: cleanFilename(part.filename), contentType: cleanContentType(part.mimetype), received };

      if (present(fields.projectId) && present(fields.fileType)) {
        const { project, type } = await authorize(deps, actor, true, fields);
        const bytes = await received.whole();
        const document = bytes
          ? await admitAndPlace(deps, project.id, type, { ...file, bytes, detectedType: received.inspection().detectedType })
          : await received.into(async (body) => admitAndPlace(deps, project.id, type, { ...file!, body, detectedType: await body.detected }));
        placed = { project, type, document };
      } else if (!(await received.whole())) {
        spoolPath = path.join(deps.config.dataDir, 'tmp', `upload-${randomUUID()}`);
        const target = spoolPath;
        await received.into(async (body) => {
          const out = (await createSpoolFile(target)).createWriteStream();
          // Settle only once the file is closed: one refused before it opened would otherwise appear after the cleanup below.
          const closed = new Promise<void>((resolve) => out.once('close', () => resolve()));
          await pipeline(body, out).finally(() => closed);
        });
      }
    }

    if (!placed) {
      const { project, type } = await authorize(deps, actor, file !== undefined, fields);
      const { received } = file!;
      const source = received.inMemory ? { bytes: received.inMemory } : { body: fs.createReadStream(spoolPath!) };
      const document = await admitAndPlace(deps, project.id, type, { ...file!, ...source, detectedType: received.inspection().detectedType });
      placed = { project, type, document };
    }
  } catch (err) {
    if (placed) await discardPlacedDocument(deps, placed.document).catch((e: unknown) => req.log.error({ err: e }, 'could not discard upload'));
    throw err;
  } finally {
    if (spoolPath) await fs.promises.rm(spoolPath, { force: true });
    if (!req.raw.readableEnded) {
      // Refused early: read and drop the rest, so the answer reaches a client that is still sending.
      req.raw.unpipe();
      req.raw.resume();
    }
  }

  return recordDocument(deps, actor, placed.project, placed.type, placed.document, {
    filename: file!.filename,
    contentType: file!.contentType,
    size: file!.received.size,
    ...file!.received.inspection(),
  });
}

/**
 * What a POST /api/upload body asks for (the first projectId, fileType and file part, the file as
 * its name and SHA-256), read to its end and stored nowhere: how a retry with an Idempotency-Key is
 * compared with the request that made the upload.
 */
export async function readUploadRequest(req: FastifyRequest, max: number): Promise<UploadRequestSummary> {
  const summary: UploadRequestSummary = {};
  if (!req.isMultipart()) return summary;
  let filePartSeen = false;
  try {
    for await (const part of req.parts({ limits: { fileSize: max + 1, fieldSize: 64 * 1024 } })) {
      if (part.type === 'field') {
        const name = part.fieldname as FieldName;
        if ((name === 'projectId' || name === 'fileType') && !(name in summary)) summary[name] = typeof part.value === 'string' ? part.value : JSON.stringify(part.value);
        continue;
      }
      if (part.fieldname !== 'file' || filePartSeen || !part.filename) {
        filePartSeen ||= part.fieldname === 'file';
        part.file.resume();
        continue;
      }
      filePartSeen = true;
      const hash = createHash('sha256');
      await pipeline(part.file, new ByteCounter(max, () => {}), async (chunks: AsyncIterable<Buffer>) => {
        for await (const chunk of chunks) hash.update(chunk);
      });
      summary.filename = cleanFilename(part.filename);
      summary.sha256 = hash.digest('hex');
    }
  } catch (err) {
    throw err instanceof AppError ? err : errors.malformedMultipart();
  }
  return summary;
}

/** A new spool file; DATA_DIR/tmp made again when it has gone (an operator cleaning up while the service runs). */
async function createSpoolFile(file: string): Promise<fs.promises.FileHandle> {
  return fs.promises.open(file, 'wx').catch(async (err: NodeJS.ErrnoException) => {
    if (err.code !== 'ENOENT') throw err;
    await fs.promises.mkdir(path.dirname(file), { recursive: true });
    return fs.promises.open(file, 'wx');
  });
}

const present = (v: string | undefined): v is string => v !== undefined && v.trim() !== '';

const authorize = (deps: Deps, actor: Actor, hasFile: boolean, fields: Partial<Record<FieldName, string>>) =>
  checkUpload(deps, actor, { hasFile, projectId: fields.projectId, fileType: fields.fileType });

/**
 * One file part of the body: counts its bytes, stops it past the limit, hashes them and recognises
 * their type on the way (the inspector), and tells a broken body from a failing consumer.
 */
class ReceivedFile {
  /** Bytes read so far. */
  size = 0;
  readonly inspector = new DocumentInspector();
  /** The whole file, when whole() found it small enough to hold. */
  inMemory: Buffer[] | undefined;
  #inspected: Inspection | undefined;
  #sourceFailed = false;
  #counterClosed = false;

  constructor(
    private readonly source: Readable,
    private readonly max: number,
  ) {
    source.on('error', () => {
      // Once the counter has closed (read to the end, or destroyed by a consumer that gave up), the
      // source's own destruction that follows says nothing about the body.
      if (!this.#counterClosed) this.#sourceFailed = true;
    });
  }

  /** Waits for the first chunk (false when the part is empty) and puts it back. */
  firstByteArrived(): Promise<boolean> {
    // A broken body that was buffered whole is failed by the parser before we get here: no event would ever come.
    if (this.source.destroyed) return Promise.reject(errors.malformedMultipart());
    return new Promise((resolve, reject) => {
      const done = (result: boolean | Error) => {
        this.source.off('readable', onReadable).off('end', onEnd).off('error', onError);
        if (result instanceof Error) reject(errors.malformedMultipart());
        else resolve(result);
      };
      const onReadable = () => {
        const chunk: Buffer | null = this.source.read();
        if (chunk === null) return;
        this.source.unshift(chunk);
        done(true);
      };
      const onEnd = () => done(false);
      const onError = (err: Error) => done(err);
      this.source.on('readable', onReadable).once('end', onEnd).once('error', onError);
    });
  }

  /**
   * Reads the file to its end when it is no larger than IN_MEMORY_BYTES and inspects it (null, with
   * what was read put back, when it goes on past that): a small file then needs no stream into
   * storage. A file past the size limit is a 413, a broken body a 400, as into() answers them.
   */
  async whole(): Promise<Buffer[] | null> {
    if (this.source.destroyed) throw errors.malformedMultipart();
    const inspection = new InMemoryInspection();
    const whole = await new Promise<boolean>((resolve, reject) => {
      let bytes = 0;
      const done = (result: boolean | Error) => {
        this.source.off('readable', onReadable).off('end', onEnd).off('error', onError);
        if (result instanceof Error) reject(result);
        else resolve(result);
      };
      const onReadable = () => {
        for (let chunk: Buffer | null; (chunk = this.source.read()) !== null; ) {
          inspection.add(chunk);
          bytes += chunk.length;
          if (bytes > this.max) return done(errors.fileTooLarge(this.max));
          if (bytes > IN_MEMORY_BYTES) {
            // Put back as read, last first: no copy.
            for (const read of [...inspection.chunks].reverse()) this.source.unshift(read);
            return done(false);
          }
        }
      };
      const onEnd = () => {
        this.size = bytes;
        done(true);
      };
      const onError = () => done(errors.malformedMultipart());
      this.source.on('readable', onReadable).once('end', onEnd).once('error', onError);
    }).catch((err: unknown) => {
      inspection.destroy();
      throw err;
    });
    if (!whole) {
      inspection.destroy();
      return null;
    }
    this.#inspected = await inspection.result();
    return (this.inMemory = inspection.chunks);
  }

  /** The file's SHA-256 and recognised type, once it has been read to its end. */
  inspection(): Inspection {
    return this.#inspected ?? this.inspector.result();
  }

  /** Streams the bytes through the size check into consume; maps a broken body to 400 and an oversize one to 413. */
  async into<T>(consume: (body: DocumentInspector) => Promise<T>): Promise<T> {
    const counter = new ByteCounter(this.max, (n) => (this.size = n));
    // The stream the consumer reads (the inspector) or the counter before it: whichever closes first ends what the source's errors mean.
    for (const stage of [counter, this.inspector]) stage.once('close', () => (this.#counterClosed = true));
    const feeding = pipeline(this.source, counter, this.inspector).catch(() => {});
    try {
      return await consume(this.inspector);
    } catch (err) {
      counter.destroy(); // a consumer that gave up must not leave the body stalled (the pipeline ends the rest)
      if (err instanceof AppError) throw err;
      if (this.#sourceFailed) throw errors.malformedMultipart();
      throw err;
    } finally {
      await feeding;
    }
  }
}

class ByteCounter extends Transform {
  #bytes = 0;
  constructor(
    private readonly max: number,
    private readonly report: (bytes: number) => void,
  ) {
    super();
  }
  override _transform(chunk: Buffer, _enc: BufferEncoding, callback: TransformCallback): void {
    this.#bytes += chunk.length;
    this.report(this.#bytes);
    if (this.#bytes > this.max) callback(errors.fileTooLarge(this.max));
    else callback(null, chunk);
  }
}
