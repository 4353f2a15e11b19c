import type { FastifyRequest } from 'fastify';
import { cleanContentType, cleanFilename } from '../domain/documents.js';
import type { IncomingFile } from './index.js';
import { countedParts } from './read-form.js';
import { ReceivedFile } from './received-file.js';

/** What a proof's form held: its note (either side of the file) and what storing its file gave. */
export interface ProofForm<T> {
  note: string | undefined;
  file: IncomingFile | undefined;
  placed: T | undefined;
}

/** A POST /api/projects/:id/proofs body, read as the upload steps need it (uploads/index.ts). */
export interface ProofSource {
  /**
   * Reads the body to its end. The file goes to `place` as soon as its first byte arrives (the
   * project is known from the address and checked before: nothing waits for the note), so its bytes
   * stream straight into storage; a body that turns out broken afterwards has `discard` undo it.
   */
  read<T>(place: (file: IncomingFile) => Promise<T>, discard: (placed: T) => Promise<void>): Promise<ProofForm<T>>;
  /** Drains what is left unread (a refusal before the end); always called. */
  close(): void;
  log: { error(obj: object, msg: string): void };
}

/** The form parts of a proof: `note` and `file`, in either order (read-form.ts's counting of parts). */
export function readProofForm(req: FastifyRequest, config: { maxUploadBytes: number }): ProofSource {
  const max = config.maxUploadBytes;
  return {
    log: req.log,
    async read(place, discard) {
      const form: ProofForm<Awaited<ReturnType<typeof place>>> = { note: undefined, file: undefined, placed: undefined };
      if (!req.isMultipart()) return form;
      try {
        for await (const part of countedParts(req, max, ['note'] as const)) {
          if (part.type === 'field') {
            form.note = part.value;
            continue;
          }
          const received = new ReceivedFile(part.file, max, cleanFilename(part.filename), cleanContentType(part.mimetype));
          if (!(await received.firstByteArrived())) continue;
          form.file = received;
          form.placed = await place(received);
        }
      } catch (err) {
        if (form.placed !== undefined) await discard(form.placed).catch((e: unknown) => req.log.error({ err: e }, 'could not discard a proof'));
        throw err;
      }
      return form;
    },
    close() {
      if (!req.raw.readableEnded) {
        req.raw.unpipe();
        req.raw.resume();
      }
    },
  };
}
