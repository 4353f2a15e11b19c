import { availableParallelism } from 'node:os';
import { Worker } from 'node:worker_threads';
import { PDF_MAX_WAITING_DEFAULT } from '../config.js';
import { AppError } from '../errors.js';
import { FairQueue, perOwnerShare } from '../previews/fair-queue.js';
import type { LayoutData, LayoutName } from './layouts/index.js';

/**
 * The service's PDFs (the job ticket, the PI, the tax invoice) are drawn in worker threads, never on
 * the event loop: pdfkit and fontkit are synchronous and a 50-line document takes tens of
 * milliseconds of CPU. `render(layout, data)` → the PDF's bytes. At most `concurrency` documents are
 * drawn at once (one per thread; threads start on first use and are kept); up to `maxWaiting` more
 * wait their turn, one user (`owner`) at most a quarter of them and the user with fewest documents
 * under way served first (previews' FairQueue), beyond that 503 with Retry-After: one user's flood
 * leaves the rest of the places to everyone else. A document taking longer than `timeoutMs` ends its thread (a
 * fresh one takes its place) and fails with 503.
 */
export interface PdfLimits {
  concurrency: number;
  timeoutMs: number;
  maxWaiting: number;
}

// A thread per core but one (the event loop keeps a core of its own), at least one, at most four.
// 60 s: a 50-line document takes tens of milliseconds of CPU (fonts.ts, long-words.ts), many times that on a
// machine shared by busy processes, and a bound is for what nobody foresaw.
export const DEFAULT_PDF_LIMITS: PdfLimits = { concurrency: Math.max(1, Math.min(4, availableParallelism() - 1)), timeoutMs: 60_000, maxWaiting: PDF_MAX_WAITING_DEFAULT };

// Built, the worker is worker.js beside this file. Under tsx (tests, npm run dev) it is worker.ts, and a
// worker thread does not inherit tsx's loader: the thread registers it before importing the worker.
const UNDER_TSX = import.meta.url.endsWith('.ts');
const WORKER_URL = new URL(UNDER_TSX ? './worker.ts' : './worker.js', import.meta.url);

function startWorker(): Worker {
  if (!UNDER_TSX) return new Worker(WORKER_URL);
  const boot = `import('tsx/esm/api').then((tsx) => { tsx.register(); return import(${JSON.stringify(WORKER_URL.href)}); });`;
  return new Worker(boot, { eval: true });
}

const START_TIMEOUT_MS = 30_000;

type Reply = { id: number; ok: true; pdf: Uint8Array } | { id: number; ok: false; error: string };

interface Job {
  id: number;
  layout: LayoutName;
  data: unknown;
  resolve: (pdf: Buffer) => void;
  reject: (err: Error) => void;
  /** Given a thread (counted among its owner's documents under way until it settles). */
  started: boolean;
}

class Slot {
  #worker: Worker | null = null;
  #job: Job | null = null;
  #timer: NodeJS.Timeout | null = null;
  #ready = false;
  #onReady: (() => void) | null = null;

  constructor(private readonly timeoutMs: number, private readonly onFree: () => void) {}

  get busy(): boolean {
    return this.#job !== null;
  }

  run(job: Job): void {
    this.#job = job;
    const worker = this.#start();
    const send = () => {
      if (this.#job !== job || this.#worker !== worker) return;
      this.#timer = setTimeout(() => this.#fail(new AppError(503, 'The document took too long to make'), true), this.timeoutMs);
      worker.postMessage({ id: job.id, layout: job.layout, data: job.data });
    };
    // A new thread's loading (pdfkit, the fonts; seconds under tsx) is not the document's time: it has its own bound.
    if (this.#ready) send();
    else {
      this.#onReady = send;
      this.#timer = setTimeout(() => this.#fail(new AppError(503, 'The PDF thread did not start'), true), START_TIMEOUT_MS);
    }
  }

  close(): void {
    void this.#worker?.terminate();
    this.#worker = null;
    this.#ready = false;
    this.#onReady = null;
  }

  #start(): Worker {
    if (this.#worker) return this.#worker;
    const worker = startWorker();
    worker.unref();
    worker.on('message', (reply: Reply | { ready: true }) => {
      if ('ready' in reply) {
        if (this.#worker !== worker) return;
        this.#ready = true;
        if (this.#timer) clearTimeout(this.#timer);
        this.#timer = null;
        const send = this.#onReady;
        this.#onReady = null;
        send?.();
        return;
      }
      const job = this.#job;
      if (!job || reply.id !== job.id) return;
      this.#settle();
      if (reply.ok) job.resolve(Buffer.from(reply.pdf.buffer, reply.pdf.byteOffset, reply.pdf.byteLength));
      else job.reject(new Error(`PDF ${job.layout}: ${reply.error}`));
      this.onFree();
    });
    // Only the current thread's end fails the job in hand: a thread ended for its time is already replaced.
    const lost = (err: Error) => {
      if (this.#worker !== worker) return;
      this.#worker = null;
      this.#ready = false;
      this.#onReady = null;
      this.#fail(err, false);
    };
    worker.on('error', lost);
    worker.on('exit', (code) => lost(new Error(`PDF thread ended (${code})`)));
    this.#worker = worker;
    return worker;
  }

  #settle(): void {
    if (this.#timer) clearTimeout(this.#timer);
    this.#timer = null;
    this.#job = null;
  }

  #fail(err: Error, kill: boolean): void {
    const job = this.#job;
    if (!job) return;
    this.#settle();
    if (kill) this.close();
    job.reject(err);
    this.onFree();
  }
}

export class PdfRenderer {
  readonly #slots: Slot[];
  readonly #waiting: FairQueue<Job>;
  /** Documents being drawn per owner: who has fewest goes first (FairQueue). */
  readonly #running = new Map<string, number>();
  readonly #limits: PdfLimits;
  #nextId = 1;
  #closed = false;

  /** The limits in force (PDF_MAX_WAITING's wiring is checked through it). */
  get limits(): Readonly<PdfLimits> {
    return this.#limits;
  }

  constructor(limits: Partial<PdfLimits> = {}) {
    this.#limits = { ...DEFAULT_PDF_LIMITS, ...limits };
    this.#waiting = new FairQueue(this.#limits.maxWaiting, perOwnerShare(this.#limits.maxWaiting));
    this.#slots = Array.from({ length: Math.max(1, this.#limits.concurrency) }, () => new Slot(this.#limits.timeoutMs, () => this.#next()));
  }

  /**
   * Draws a document for `owner` (the user who asked: one user waits in at most a quarter of the places,
   * and a free thread goes to the waiting user with fewest under way). Without an owner the document is
   * its own, bounded only by the whole queue.
   */
  render<L extends LayoutName>(layout: L, data: LayoutData<L>, owner?: string): Promise<Buffer> {
    if (this.#closed) return Promise.reject(new AppError(503, 'Service is shutting down'));
    return new Promise<Buffer>((resolve, reject) => {
      const id = this.#nextId++;
      const key = owner ?? `\0${id}`;
      const done = () => {
        if (job.started) this.#count(key, -1);
      };
      const job: Job = {
        id,
        layout,
        data,
        resolve: (pdf) => (done(), resolve(pdf)),
        reject: (err) => (done(), reject(err)),
        started: false,
      };
      if (this.#waiting.push(key, job) !== 'queued') {
        reject(new AppError(503, 'Too many documents are being made, try again in a moment', { 'retry-after': '1' }));
        return;
      }
      this.#next();
    });
  }

  /** Ends the threads; documents still waiting fail with 503. */
  close(): void {
    this.#closed = true;
    for (const job of this.#waiting.drain()) job.reject(new AppError(503, 'Service is shutting down'));
    for (const slot of this.#slots) slot.close();
  }

  #next(): void {
    for (const slot of this.#slots) {
      if (this.#waiting.size === 0) return;
      if (slot.busy) continue;
      const next = this.#waiting.shift((owner) => this.#running.get(owner) ?? 0)!;
      this.#count(next.owner, 1);
      next.item.started = true;
      slot.run(next.item);
    }
  }

  #count(owner: string, by: number): void {
    const n = (this.#running.get(owner) ?? 0) + by;
    if (n > 0) this.#running.set(owner, n);
    else this.#running.delete(owner);
  }
}
