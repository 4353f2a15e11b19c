import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { type Readable, Transform, type TransformCallback } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { AppError, errors } from '../errors.js';
import { DocumentInspector, InMemoryInspection, type Inspection } from './inspect.js';
import type { IncomingFile } from './index.js';
import type { DocumentBytes } from './place.js';

/**
 * A file no larger is read whole into memory and stored in one write, without streams (most
 * documents are). Larger ones stream: held whole, 1 MiB uploads one after another cost 12–15 ms of
 * CPU each against 8 ms streamed (bench, issue 27: the held chunks drive the major GCs that mark our heap).
 */
const IN_MEMORY_BYTES = 256 * 1024;

/**
 * The file part of a POST /api/upload body: counts its bytes, stops it past the limit, hashes them
 * and recognises their type on the way (the inspector), and tells a broken body from a failing consumer.
 */
export class ReceivedFile implements IncomingFile {
  /** Bytes read so far. */
  private size = 0;
  private readonly inspector = new DocumentInspector();
  /** The whole file, when whole() found it small enough to hold. */
  private inMemory: Buffer[] | undefined;
  #inspected: Inspection | undefined;
  #spool: string | undefined;
  #sourceFailed = false;
  #counterClosed = false;

  constructor(
    private readonly source: Readable,
    private readonly max: number,
    readonly filename: string,
    readonly contentType: string,
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
   * Holds the bytes until the checks can run (the file came before projectId or fileType): a small
   * file in memory, a larger one in a spool file under `dir` (removed by release()).
   */
  async hold(dir: string): Promise<void> {
    if (await this.whole()) return;
    const target = (this.#spool = path.join(dir, `upload-${randomUUID()}`));
    await this.into(async (body) => {
      const out = (await createSpoolFile(target)).createWriteStream();
      // Settle only once the file is closed: one refused before it opened would otherwise appear after the cleanup.
      const closed = new Promise<void>((resolve) => out.once('close', () => resolve()));
      await pipeline(body, out).finally(() => closed);
    });
  }

  /**
   * The bytes for the type rule and step 8: held ones as they are; else, read whole when small
   * enough, or streamed (their type known before the first byte reaches `consume`).
   */
  async read<T>(consume: (bytes: DocumentBytes) => Promise<T>): Promise<T> {
    if (this.#spool) return consume({ body: fs.createReadStream(this.#spool), detectedType: this.inspection().detectedType });
    const bytes = this.inMemory ?? (await this.whole());
    if (bytes) return consume({ bytes, detectedType: this.inspection().detectedType });
    return this.into(async (body) => consume({ body, detectedType: await body.detected }));
  }

  /** The file's size, SHA-256 and recognised type, once it has been read to its end. */
  inspection(): { size: number } & Inspection {
    return { size: this.size, ...(this.#inspected ?? this.inspector.result()) };
  }

  /** Removes the spool file, if any. */
  async release(): Promise<void> {
    if (this.#spool) await fs.promises.rm(this.#spool, { force: true });
  }

  /**
   * Reads the file to its end when it is no larger than IN_MEMORY_BYTES and inspects it (null, with
   * what was read put back, when it goes on past that): a small file then needs no stream into
   * storage. A file past the size limit is a 413, a broken body a 400, as into() answers them.
   */
  private async whole(): Promise<Buffer[] | null> {
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

  /** Streams the bytes through the size check into consume; maps a broken body to 400 and an oversize one to 413. */
  private async into<T>(consume: (body: DocumentInspector) => Promise<T>): Promise<T> {
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

/** Passes bytes on while counting them; past `max`, fails with 413. */
export class ByteCounter extends Transform {
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

/** A new spool file; DATA_DIR/tmp made again when it has gone (an operator cleaning up while the service runs). */
async function createSpoolFile(file: string): Promise<fs.promises.FileHandle> {
  return fs.promises.open(file, 'wx').catch(async (err: NodeJS.ErrnoException) => {
    if (err.code !== 'ENOENT') throw err;
    await fs.promises.mkdir(path.dirname(file), { recursive: true });
    return fs.promises.open(file, 'wx');
  });
}
