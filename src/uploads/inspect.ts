import { Transform, type TransformCallback } from 'node:stream';
import { fileTypeFromBuffer } from 'file-type';
import { SNIFF_BYTES, sniffMarkup } from '../domain/content-types.js';
import { StreamingSha256 } from './sha256.js';

/** What a document's bytes are: their SHA-256 and the type their first bytes show. */
export interface Inspection {
  sha256: string;
  detectedType: string | null;
}

/**
 * Passes a document's bytes on unchanged while hashing them (SHA-256 as each chunk passes:
 * uploads/sha256.ts) and recognising their type
 * from the first SNIFF_BYTES, so neither needs a second read. The first bytes are held back until
 * the type is known: `detected` settles before anything reaches the consumer, so a refusal by type
 * can come before a byte is stored.
 */
export class DocumentInspector extends Transform {
  readonly #hash = new StreamingSha256();
  #head: Buffer[] = [];
  #headBytes = 0;
  #detectedType: string | null | undefined;
  #sha256: string | undefined;
  /** Settles with the detected type (null: not recognised) once the first bytes (or all, when fewer) have passed; null when the stream fails first. */
  readonly detected: Promise<string | null>;
  #resolveDetected!: (type: string | null) => void;

  constructor() {
    super();
    this.detected = new Promise((resolve) => (this.#resolveDetected = resolve));
    this.once('close', () => this.#resolveDetected(this.#detectedType ?? null));
  }

  override _transform(chunk: Buffer, _enc: BufferEncoding, callback: TransformCallback): void {
    this.#hash.update(chunk);
    if (this.#detectedType !== undefined) return callback(null, chunk);
    this.#head.push(chunk);
    this.#headBytes += chunk.length;
    if (this.#headBytes < SNIFF_BYTES) return callback();
    this.#releaseHead(callback);
  }

  override _flush(callback: TransformCallback): void {
    this.#hash.digest().then(
      (hex) => {
        this.#sha256 = hex;
        if (this.#detectedType !== undefined) return callback();
        this.#releaseHead(callback);
      },
      (err: Error) => callback(err),
    );
  }

  override _destroy(err: Error | null, callback: (error?: Error | null) => void): void {
    this.#hash.destroy();
    callback(err);
  }

  #releaseHead(callback: TransformCallback): void {
    const head = Buffer.concat(this.#head);
    this.#head = [];
    detectType(head).then(
      (type) => {
        this.#detectedType = type;
        this.#resolveDetected(type);
        callback(null, head);
      },
      (err: Error) => callback(err),
    );
  }

  /** The finished inspection; only once every byte has passed. */
  result(): Inspection {
    if (this.#sha256 === undefined) throw new Error('The document has not been read to its end');
    return { sha256: this.#sha256, detectedType: this.#detectedType ?? null };
  }
}

/**
 * The same inspection of a document read whole into memory (a small one: received-file.ts),
 * without the streams: fed each chunk as it arrives, so the hashing goes on while the rest is read.
 */
export class InMemoryInspection {
  readonly #hash = new StreamingSha256();
  readonly #chunks: Buffer[] = [];

  add(chunk: Buffer): void {
    this.#chunks.push(chunk);
    this.#hash.update(chunk);
  }

  /** The chunks given, in order. */
  get chunks(): Buffer[] {
    return this.#chunks;
  }

  async result(): Promise<Inspection> {
    const [sha256, detectedType] = await Promise.all([this.#hash.digest(), detectType(headOf(this.#chunks))]);
    return { sha256, detectedType };
  }

  /** Given up (the document is streamed after all, or the upload failed). */
  destroy(): void {
    this.#hash.destroy();
  }
}

/** The first SNIFF_BYTES, copied only from the chunks that hold them. */
function headOf(chunks: readonly Buffer[]): Buffer {
  if (!chunks.length) return Buffer.alloc(0);
  if (chunks[0]!.length >= SNIFF_BYTES || chunks.length === 1) return chunks[0]!;
  const head: Buffer[] = [];
  let bytes = 0;
  for (const chunk of chunks) {
    if (bytes >= SNIFF_BYTES) break;
    head.push(chunk);
    bytes += chunk.length;
  }
  return Buffer.concat(head).subarray(0, SNIFF_BYTES);
}

/** Binary formats by file-type; markup (HTML, SVG, XML) by its first bytes, which file-type leaves to others. */
export async function detectType(head: Buffer): Promise<string | null> {
  const found = await fileTypeFromBuffer(head.subarray(0, SNIFF_BYTES));
  if (found?.mime === 'application/xml') return sniffMarkup(head) ?? found.mime;
  return found?.mime ?? sniffMarkup(head);
}
