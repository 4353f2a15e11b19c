import { type ChildProcess, spawn } from 'node:child_process';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { PDF_DPI, PREVIEW_BOUNDS, pageWithinBounds, previewWidth, type PreviewKind } from '../domain/previews.js';
import { AppError } from '../errors.js';
import type { Log } from '../logger.js';
import { FairQueue, perOwnerShare } from './fair-queue.js';
import { RENDER_INIT_ENV, RENDER_SOURCE, type RenderInit } from './render-source.js';

export interface RendererLimits {
  /** Previews made at once (one process each); the rest wait their turn. */
  concurrency: number;
  /** A preview taking longer is abandoned and its process killed. */
  timeoutMs: number;
  /** A rendering process whose resident memory grows past this is killed (its JavaScript heap is bounded below it too). */
  memoryBytes: number;
  /** Requests waiting for a turn beyond the ones being made; more are refused with 503 (and one user may hold a quarter of them: fair-queue.ts). */
  maxWaiting: number;
}

/** One preview to make: the document's bytes are in a local file the caller removes afterwards. */
export interface RenderJob {
  kind: PreviewKind;
  file: string;
  page: number;
  width: number;
}

/** A rendering's outcome: the picture (WebP), a page past the end, or why it could not be made. */
export type RenderOutcome =
  | { ok: true; image: Buffer; width: number; height: number; pages: number | null }
  | { ok: false; reason: 'no-page'; pages: number }
  | { ok: false; reason: 'unreadable'; detail: string; pageOnly?: true };

/** What the rendering process says (render-source.ts). */
type Said =
  | { op: 'ready' }
  | { op: 'measured'; id: number; pages: number; size: { width: number; height: number } | null }
  | { op: 'done'; id: number; ok: true; image: Uint8Array; width: number; height: number; pages: number | null }
  | { op: 'done'; id: number; ok: false; detail: string };

/** Jobs a process makes before it is replaced: what pdf.js and libvips keep between jobs stays bounded. */
const JOBS_PER_PROCESS = 100;
/** How long a new process may take to load its libraries (not counted in a preview's time). */
const START_TIMEOUT_MS = 30_000;
const WATCH_MS = 50;
const PAGE_BYTES = 4096;

const require = createRequire(import.meta.url);
const pdfjsRoot = path.dirname(require.resolve('pdfjs-dist/package.json'));
const INIT: RenderInit = {
  pdfjs: pathToFileURL(path.join(pdfjsRoot, 'legacy/build/pdf.mjs')).href,
  sharp: pathToFileURL(require.resolve('sharp')).href,
  pdfjsData: `${pdfjsRoot}/`,
  maxPicturePixels: PREVIEW_BOUNDS.maxPicturePixels,
  maxPdfImagePixels: PREVIEW_BOUNDS.maxPdfImagePixels,
  quality: 80,
};

/** Resident memory of a process from /proc (Linux); null where there is no /proc, and then only the heap bound holds. */
function residentBytes(pid: number): number | null {
  try {
    return Number(fs.readFileSync(`/proc/${pid}/statm`, 'utf8').split(' ')[1]) * PAGE_BYTES;
  } catch {
    return null;
  }
}

/** The width to draw a PDF's page at, or why not: the domain's rules on what the process measured. */
function decide(job: RenderJob, pages: number, size: { width: number; height: number } | null): { width: number } | RenderOutcome {
  if (!Number.isInteger(pages) || pages < 1 || pages > PREVIEW_BOUNDS.maxPages) return { ok: false, reason: 'unreadable', detail: `page count ${pages}` };
  if (!size) return { ok: false, reason: 'no-page', pages };
  const width = previewWidth(job.width, (size.width * PDF_DPI) / 72);
  // The page's size at this width: another width or page may be within the bounds.
  if (!pageWithinBounds(size, width)) return { ok: false, reason: 'unreadable', detail: `page of ${size.width} × ${size.height}`, pageOnly: true };
  return { width };
}

/** One rendering process, started on first use, making one preview at a time. */
class Slot {
  #child: ChildProcess | undefined;
  #ready: Promise<ChildProcess> | undefined;
  #jobs = 0;

  constructor(private readonly limits: RendererLimits) {}

  async run(job: RenderJob): Promise<RenderOutcome> {
    const child = await this.#start();
    const id = ++this.#jobs;
    return new Promise<RenderOutcome>((resolve) => {
      let done = false;
      const finish = (outcome: RenderOutcome, kill: boolean) => {
        if (done) return;
        done = true;
        clearTimeout(timer);
        clearInterval(watch);
        child.off('message', onMessage);
        child.off('exit', onExit);
        if (kill || this.#jobs >= JOBS_PER_PROCESS) this.#stop();
        resolve(outcome);
      };
      const onMessage = (said: Said) => {
        if (said.op === 'ready' || said.id !== id) return;
        if (said.op === 'measured') {
          const decision = decide(job, said.pages, said.size);
          if ('ok' in decision) {
            child.send({ op: 'stop', id });
            finish(decision, false);
          } else child.send({ op: 'draw', id, width: decision.width });
        } else if (said.ok) {
          finish({ ok: true, image: Buffer.from(said.image.buffer, said.image.byteOffset, said.image.byteLength), width: said.width, height: said.height, pages: said.pages }, false);
        } else finish({ ok: false, reason: 'unreadable', detail: said.detail }, false);
      };
      const onExit = (code: number | null, signal: string | null) => finish({ ok: false, reason: 'unreadable', detail: `renderer ended (${signal ?? code})` }, true);
      const timer = setTimeout(() => finish({ ok: false, reason: 'unreadable', detail: `took longer than ${this.limits.timeoutMs} ms` }, true), this.limits.timeoutMs);
      const watch = setInterval(() => {
        const rss = residentBytes(child.pid!);
        if (rss !== null && rss > this.limits.memoryBytes) finish({ ok: false, reason: 'unreadable', detail: `used more than ${this.limits.memoryBytes} bytes` }, true);
      }, WATCH_MS);
      child.on('message', onMessage);
      child.once('exit', onExit);
      child.send({ op: 'render', id, ...job });
    });
  }

  #start(): Promise<ChildProcess> {
    return (this.#ready ??= new Promise<ChildProcess>((resolve, reject) => {
      const heapMb = Math.max(64, Math.floor(this.limits.memoryBytes / 1024 / 1024 / 2));
      // Plain node: none of the parent's flags (a TypeScript loader), only the heap bound.
      const child = spawn(process.execPath, [`--max-old-space-size=${heapMb}`, '--input-type=module', '-e', RENDER_SOURCE], {
        env: { ...process.env, [RENDER_INIT_ENV]: JSON.stringify(INIT), NODE_OPTIONS: '' },
        serialization: 'advanced',
        stdio: ['ignore', 'ignore', 'ignore', 'ipc'],
      });
      this.#child = child;
      const fail = (why: string) => {
        clearTimeout(timer);
        this.#stop();
        reject(new Error(`The preview renderer did not start: ${why}`));
      };
      const timer = setTimeout(() => fail('timed out'), START_TIMEOUT_MS);
      child.once('exit', (code) => fail(`exited with ${code}`));
      child.once('error', (err) => fail(err.message));
      child.once('message', () => {
        clearTimeout(timer);
        child.removeAllListeners('exit');
        child.removeAllListeners('error');
        child.on('error', () => {});
        child.once('exit', () => {
          if (this.#child === child) this.#forget();
        });
        resolve(child);
      });
    }));
  }

  #forget(): void {
    this.#child = undefined;
    this.#ready = undefined;
    this.#jobs = 0;
  }

  #stop(): void {
    const child = this.#child;
    this.#forget();
    if (child && child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  }

  close(): void {
    this.#stop();
  }
}

/**
 * Makes previews in separate processes, at most `concurrency` at once (the rest queue, up to
 * `maxWaiting`), each bounded in time and memory: past either bound the process is killed and the
 * preview is `unreadable`. The event loop only passes messages, so other requests keep their speed.
 */
export class PreviewRenderer {
  readonly #idle: Slot[];
  readonly #all: Slot[];
  readonly #waiting: FairQueue<{ resolve: (slot: Slot) => void; reject: (err: Error) => void }>;
  /** Renderings under way per owner: who has fewest goes first (fair-queue.ts). */
  readonly #running = new Map<string, number>();
  #closed = false;

  constructor(
    private readonly limits: RendererLimits,
    private readonly log: Log,
  ) {
    this.#all = Array.from({ length: limits.concurrency }, () => new Slot(limits));
    this.#idle = [...this.#all];
    this.#waiting = new FairQueue(limits.maxWaiting, perOwnerShare(limits.maxWaiting));
  }

  /** Makes one preview for `owner` (the user who asked: a free slot goes to the waiting user with fewest renderings under way). */
  async render(job: RenderJob, owner = ''): Promise<RenderOutcome> {
    if (this.#closed) throw new AppError(503, 'Service is shutting down');
    const idle = this.#idle.pop();
    if (idle) this.#count(owner, 1);
    const slot = idle ?? (await this.#turn(owner));
    try {
      const outcome = await slot.run(job);
      if (!outcome.ok && outcome.reason === 'unreadable') this.log.warn({ kind: job.kind, page: job.page, detail: outcome.detail }, 'no preview: the document could not be rendered');
      return outcome;
    } finally {
      this.#count(owner, -1);
      const next = this.#waiting.shift((o) => this.#running.get(o) ?? 0);
      if (next) {
        // Counted as it is handed over, so the next choice already sees it.
        this.#count(next.owner, 1);
        next.item.resolve(slot);
      } else this.#idle.push(slot);
    }
  }

  #count(owner: string, by: number): void {
    const n = (this.#running.get(owner) ?? 0) + by;
    if (n > 0) this.#running.set(owner, n);
    else this.#running.delete(owner);
  }

  #turn(owner: string): Promise<Slot> {
    return new Promise((resolve, reject) => {
      if (this.#waiting.push(owner, { resolve, reject }) !== 'queued') {
        reject(new AppError(503, 'Too many previews are being made, try again in a moment', { 'retry-after': '1' }));
      }
    });
  }

  /** Kills the rendering processes; previews under way end as unreadable. */
  close(): void {
    this.#closed = true;
    for (const w of this.#waiting.drain()) w.reject(new AppError(503, 'Service is shutting down'));
    for (const slot of this.#all) slot.close();
  }
}
