import { createHash } from 'node:crypto';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import type { Multipart, MultipartFile } from '@fastify/multipart';
import type { FastifyRequest } from 'fastify';
import { cleanContentType, cleanFilename } from '../domain/documents.js';
import { given } from '../domain/upload-policy.js';
import { AppError, errors } from '../errors.js';
import type { UploadRequestSummary } from './idempotency.js';
import type { UploadForm, UploadSource } from './index.js';
import { ByteCounter, ReceivedFile } from './received-file.js';

/** A POST /api/upload body as an upload source, and what a retry with the same Idempotency-Key asks for. */
export interface FormSource extends UploadSource {
  /**
   * What the body asks for (projectId, fileType, the file's name and SHA-256), read to its end and
   * stored nowhere: how a retry is compared with the upload it repeats (idempotency.ts).
   */
  summary(): Promise<UploadRequestSummary>;
}

/**
 * Reads a POST /api/upload body part by part, so that each step runs at the earliest moment it can
 * and a file is never whole in memory (uploads/index.ts):
 *
 * - projectId and fileType before the file: the form is ready at the file's first byte, so checks
 *   2–7 refuse before a byte is stored and the bytes stream straight into storage; the rest of the
 *   body is read by end(), after them.
 * - the file before them: its bytes are held (in memory up to 1 MiB, else in a spool file under
 *   DATA_DIR/tmp, always removed), and the form is ready when the body has ended.
 *
 * Whatever the outcome, close() drains the rest of the body so the connection stays usable.
 */
export function readForm(req: FastifyRequest, config: { maxUploadBytes: number; dataDir: string }): FormSource {
  const max = config.maxUploadBytes;
  const parts = req.isMultipart() ? countedParts(req, max) : undefined;
  let file: ReceivedFile | undefined;
  return {
    log: req.log,
    async form() {
      const form: UploadForm = { projectId: undefined, fileType: undefined, file: undefined };
      if (!parts) return form; // not a form: none of the fields (check 2)
      for (let next = await parts.next(); !next.done; next = await parts.next()) {
        const part = next.value;
        if (part.type === 'field') {
          form[part.fieldname] = part.value;
          continue;
        }
        const received = new ReceivedFile(part.file, max, cleanFilename(part.filename), cleanContentType(part.mimetype));
        if (!(await received.firstByteArrived())) continue;
        form.file = file = received;
        if (given(form.projectId) && given(form.fileType)) return form;
        await received.hold(path.join(config.dataDir, 'tmp'));
      }
      return form;
    },
    async end() {
      if (parts) while (!(await parts.next()).done);
    },
    async close() {
      await file?.release();
      if (!req.raw.readableEnded) {
        // Refused early: read and drop the rest, so the answer reaches a client that is still sending.
        req.raw.unpipe();
        req.raw.resume();
      }
    },
    async summary() {
      const summary: UploadRequestSummary = {};
      try {
        for await (const part of parts ?? []) {
          if (part.type === 'field') {
            summary[part.fieldname] = part.value;
            continue;
          }
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
    },
  };
}

/** A part of the form that counts: the first projectId, the first fileType, the first file part. */
export type CountedPart<F extends string = 'projectId' | 'fileType'> = { type: 'field'; fieldname: F; value: string } | (MultipartFile & { type: 'file' });

/**
 * The parts of the body that count, as they come: the first part of each name in `fields` (projectId
 * and fileType for an upload; note for a proof), each refused with 400 when it holds a NUL: PostgreSQL's text cannot), and the first named
 * file, when it has a file name (one without is a missing file). Every other part is read and dropped.
 * A body the parser cannot read is a 400; a file part must be read (or resumed) before the next part comes.
 */
export async function* countedParts<F extends string = 'projectId' | 'fileType'>(
  req: FastifyRequest,
  max: number,
  fields: readonly F[] = ['projectId', 'fileType'] as unknown as readonly F[],
): AsyncGenerator<CountedPart<F>, void, undefined> {
  // busboy's own limit sits one byte above ours, so our counter is the one that trips.
  const parts = req.parts({ limits: { fileSize: max + 1, fieldSize: 64 * 1024 } })[Symbol.asyncIterator]();
  const fieldsSeen = new Set<string>();
  let fileSeen = false;
  for (;;) {
    const next = await parts.next().catch((err: unknown) => {
      throw err instanceof AppError ? err : errors.malformedMultipart();
    });
    if (next.done) return;
    const part: Multipart = next.value;
    const name = part.fieldname;
    if (part.type === 'field') {
      if (!(fields as readonly string[]).includes(name) || fieldsSeen.has(name)) continue;
      fieldsSeen.add(name);
      const value = typeof part.value === 'string' ? part.value : JSON.stringify(part.value);
      if (value.includes('\u0000')) throw errors.invalidField(name, 'must not contain NUL characters');
      yield { type: 'field', fieldname: name as F, value };
      continue;
    }
    const counts = name === 'file' && !fileSeen;
    fileSeen ||= name === 'file';
    if (counts && part.filename) yield part;
    else part.file.resume();
  }
}
