import { createHash } from 'node:crypto';
import { Worker } from 'node:worker_threads';

/** Bytes sent to the hashing thread at a time; a file no larger is hashed on the spot, in one call. */
const BATCH_BYTES = 256 * 1024;
/**
 * Batches of one document on their way to the hashing thread at once: the memory an upload holds
 * for its checksum (1 MiB; as much as the local driver's write buffer), whether it is fast or trickles in.
 */
const BATCHES_IN_FLIGHT = 4;

/**
 * SHA-256 of a document's bytes as they stream, without costing the event loop the hashing (about
 * 0.7 s per GiB on one core, as much as the rest of an upload): past the first BATCH_BYTES, the
 * bytes are copied in batches to one hashing thread shared by the process, and a document whose
 * batches are all still being hashed waits for one back (backpressure: memory stays bounded). A
 * small document never leaves the event loop: its chunks are kept (not copied) and hashed at the end.
 * Whatever waits on the thread settles: with the digest, or with the failure of the thread or of the document (destroy).
 */
export class StreamingSha256 {
  #held: Buffer[] = [];
  #heldBytes = 0;
  #remote: RemoteHash | undefined;

  /** Takes the next chunk; resolves (when a promise) once another may be given. */
  update(chunk: Buffer): void | Promise<void> {
    if (this.#remote) return this.#remote.update(chunk);
    this.#held.push(chunk);
    this.#heldBytes += chunk.length;
    if (this.#heldBytes <= BATCH_BYTES) return;
    this.#remote = hashingThread().start();
    const held = this.#held;
    this.#held = [];
    return held.reduce<Promise<void>>((prev, c) => prev.then(() => this.#remote!.update(c)), Promise.resolve());
  }

  /**
   * Between the parts of a document that arrives in several requests (a resumable upload): sends
   * what is waiting to the hashing thread and lets go of the batch buffers, so a document that
   * pauses holds no memory for its checksum. The next update goes on where this one stopped.
   */
  pause(): void {
    if (!this.#remote && this.#heldBytes) {
      this.#remote = hashingThread().start();
      // Within one batch, so never waits; a failure of the thread is what digest() reports.
      for (const c of this.#held) this.#remote.update(c).catch(() => {});
      this.#held = [];
    }
    this.#remote?.pause();
  }

  /** The lower-case hex digest of everything given. */
  async digest(): Promise<string> {
    if (this.#remote) return this.#remote.digest();
    const hash = createHash('sha256');
    for (const c of this.#held) hash.update(c);
    this.#held = [];
    return hash.digest('hex');
  }

  /** Gives up: the thread forgets this document's state. */
  destroy(): void {
    this.#held = [];
    this.#remote?.destroy();
  }
}

/** The worker's code: one hash per document id, updated batch by batch, each batch sent back for reuse. */
const WORKER_SOURCE = `
const { parentPort } = require('node:worker_threads');
const { createHash } = require('node:crypto');
const hashes = new Map();
parentPort.on('message', (m) => {
  if (m.op === 'update') {
    let h = hashes.get(m.id);
    if (!h) hashes.set(m.id, (h = createHash('sha256')));
    h.update(new Uint8Array(m.buffer, 0, m.length));
    parentPort.postMessage({ id: m.id, op: 'returned', buffer: m.buffer }, [m.buffer]);
  } else if (m.op === 'digest') {
    const h = hashes.get(m.id) ?? createHash('sha256');
    hashes.delete(m.id);
    parentPort.postMessage({ id: m.id, op: 'digest', hex: h.digest('hex') });
  } else if (m.op === 'drop') {
    hashes.delete(m.id);
  }
});
`;

type Reply = { id: number; op: 'returned'; buffer: ArrayBuffer } | { id: number; op: 'digest'; hex: string };

interface Waiting {
  onReturned(buffer: ArrayBuffer): void;
  onDigest(hex: string): void;
  onFailed(err: Error): void;
}

/** The process's hashing thread, started on first use and again after a failure. */
class HashingThread {
  #worker: Worker | undefined;
  #nextId = 1;
  readonly #documents = new Map<number, Waiting>();

  start(): RemoteHash {
    return new RemoteHash(this, this.#nextId++);
  }

  register(id: number, waiting: Waiting): void {
    this.#documents.set(id, waiting);
  }

  forget(id: number): void {
    this.#documents.delete(id);
  }

  /** Stops the thread as a crash would (tests): what waits on it fails, the next document starts another. */
  async terminate(): Promise<void> {
    await this.#worker?.terminate();
  }

  post(message: { id: number; op: string; buffer?: ArrayBuffer; length?: number }): void {
    const worker = (this.#worker ??= this.#spawn());
    worker.postMessage(message, message.buffer ? [message.buffer] : []);
  }

  #waiting = 0;

  /**
   * Runs until `reply` settles with the thread keeping the process alive: only while someone awaits
   * it does it count, so neither an idle thread nor a paused document ever holds the process open.
   */
  async awaiting<T>(reply: Promise<T>): Promise<T> {
    if (this.#waiting++ === 0) this.#worker?.ref();
    try {
      return await reply;
    } finally {
      if (--this.#waiting === 0) this.#worker?.unref();
    }
  }

  #spawn(): Worker {
    const worker = new Worker(WORKER_SOURCE, { eval: true });
    worker.on('message', (reply: Reply) => {
      const waiting = this.#documents.get(reply.id);
      if (!waiting) return;
      if (reply.op === 'returned') waiting.onReturned(reply.buffer);
      else waiting.onDigest(reply.hex);
    });
    const fail = (err: Error) => {
      if (this.#worker !== worker) return;
      this.#worker = undefined;
      const waiting = [...this.#documents.values()];
      this.#documents.clear();
      for (const w of waiting) w.onFailed(err);
    };
    worker.on('error', fail);
    worker.on('exit', (code) => fail(new Error(`the hashing thread stopped (exit code ${code})`)));
    if (!this.#waiting) worker.unref(); // after the listeners: adding one refs it again
    return worker;
  }
}

/**
 * Batch buffers between documents: kept for the next one rather than left to the garbage collector.
 * A document of 1 MiB made four new ones, and that much memory outside the heap every few
 * milliseconds had V8 mark the whole heap over and over (more CPU than the uploads themselves).
 */
const spareBatches: ArrayBuffer[] = [];
const MAX_SPARE_BATCHES = 16;
const takeBatch = (): ArrayBuffer => spareBatches.pop() ?? new ArrayBuffer(BATCH_BYTES);
const giveBack = (buffers: ArrayBuffer[]): void => {
  for (const b of buffers) if (spareBatches.length < MAX_SPARE_BATCHES && b.byteLength === BATCH_BYTES) spareBatches.push(b);
  buffers.length = 0;
};

let thread: HashingThread | undefined;
const hashingThread = () => (thread ??= new HashingThread());

/** Tests: the hashing thread dies (as on a crash) under whatever is being hashed. */
export const terminateHashingThread = () => hashingThread().terminate();

/** One document's hash on the hashing thread. */
class RemoteHash {
  /** Batch buffers of this document that are here (free), and the one being filled. */
  readonly #free: ArrayBuffer[] = [];
  #allocated = 0;
  #filling: Buffer | undefined;
  #filled = 0;
  #failure: Error | undefined;
  /** Paused: batches that come back are dropped, not kept for the next one. */
  #paused = false;
  #waitingForBuffer: { resolve: () => void; reject: (err: Error) => void } | undefined;
  #waitingForDigest: { resolve: (hex: string) => void; reject: (err: Error) => void } | undefined;

  constructor(
    private readonly thread: HashingThread,
    private readonly id: number,
  ) {
    thread.register(id, {
      onReturned: (buffer) => {
        if (this.#paused) {
          this.#allocated--;
          giveBack([buffer]);
          return;
        }
        this.#free.push(buffer);
        const waiting = this.#waitingForBuffer;
        this.#waitingForBuffer = undefined;
        waiting?.resolve();
      },
      onDigest: (hex) => this.#waitingForDigest?.resolve(hex),
      onFailed: (err) => {
        this.#failure = err;
        this.#waitingForBuffer?.reject(err);
        this.#waitingForDigest?.reject(err);
      },
    });
  }

  async update(chunk: Buffer): Promise<void> {
    this.#paused = false;
    let offset = 0;
    while (offset < chunk.length) {
      if (this.#failure) throw this.#failure;
      if (!this.#filling) {
        const buffer = this.#free.pop() ?? (this.#allocated < BATCHES_IN_FLIGHT ? (this.#allocated++, takeBatch()) : undefined);
        if (!buffer) {
          await this.thread.awaiting(new Promise<void>((resolve, reject) => (this.#waitingForBuffer = { resolve, reject })));
          continue;
        }
        this.#filling = Buffer.from(buffer);
        this.#filled = 0;
      }
      const n = chunk.copy(this.#filling, this.#filled, offset);
      this.#filled += n;
      offset += n;
      if (this.#filled === BATCH_BYTES) this.#send();
    }
  }

  pause(): void {
    this.#send();
    this.#allocated -= this.#free.length;
    giveBack(this.#free);
    this.#paused = true;
  }

  #send(): void {
    if (!this.#filling || this.#failure) return;
    this.thread.post({ id: this.id, op: 'update', buffer: this.#filling.buffer as ArrayBuffer, length: this.#filled });
    this.#filling = undefined;
  }

  async digest(): Promise<string> {
    if (this.#failure) throw this.#failure;
    this.#send();
    const digest = new Promise<string>((resolve, reject) => (this.#waitingForDigest = { resolve, reject }));
    this.thread.post({ id: this.id, op: 'digest' });
    const hex = await this.thread.awaiting(digest);
    this.#done = true;
    this.thread.forget(this.id);
    giveBack(this.#free);
    return hex;
  }

  #done = false;

  /** Given up (the upload failed): whatever waits on this document fails now, and the thread forgets it. */
  destroy(): void {
    if (this.#done) return;
    this.#done = true;
    const failed = this.#failure !== undefined;
    const err = (this.#failure ??= new Error('the document was given up before its checksum was complete'));
    this.#waitingForBuffer?.reject(err);
    this.#waitingForDigest?.reject(err);
    this.#waitingForBuffer = this.#waitingForDigest = undefined;
    this.#filling = undefined;
    if (!failed) this.thread.post({ id: this.id, op: 'drop' });
    this.thread.forget(this.id);
    giveBack(this.#free);
  }
}
