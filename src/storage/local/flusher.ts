import { Worker } from 'node:worker_threads';

/**
 * The durable flushes of the local driver's small files, shared by the uploads that wait for them at
 * the same time (a group commit for fsync). Each file is flushed, then its folder (so the name it was
 * created under survives a crash too), before its flush resolves; but instead of a trip to the
 * thread pool per call, the flushes are handed to one flushing thread in batches: the first flush
 * goes at once (an idle service waits for nothing), and every one asked for while a batch is on the
 * thread goes with the next, each folder flushed once however many of the batch's files it holds.
 * On a journalled file system the batch's first fsync commits the others' metadata with it, so the
 * rest cost next to nothing. A flush failing rejects only its own caller (its file, or its folder's
 * callers); a thread that dies rejects what it held, and the next flush starts another.
 */
export class Flusher {
  #worker: Worker | undefined;
  /** The batch on the thread, by its number, with its callers. */
  #inFlight: Batch | undefined;
  #next: Batch = newBatch();
  #nextNumber = 1;

  /** Batches handed to the thread so far (how much the flushes were shared: tests, diagnostics). */
  get batches(): number {
    return this.#nextNumber - 1;
  }

  /**
   * Flushes an open file's bytes, then its folder. The caller keeps `fd` open until this settles:
   * the thread flushes it by its number.
   */
  flush(fd: number, folder: string): Promise<void> {
    return this.#ask({ fd, folders: [folder] });
  }

  /** Flushes folders' entries (a name linked or made in each), in the order given. */
  flushFolders(folders: readonly string[]): Promise<void> {
    return this.#ask({ folders: [...folders] });
  }

  /** Stops the thread as a crash would (tests): what it holds fails, the next flush starts another. */
  async terminate(): Promise<void> {
    await this.#worker?.terminate();
  }

  #ask(request: { fd?: number; folders: string[] }): Promise<void> {
    return new Promise((resolve, reject) => {
      const batch = this.#next;
      if (request.fd !== undefined) batch.fds.add(request.fd);
      for (const folder of request.folders) if (!batch.folders.includes(folder)) batch.folders.push(folder);
      batch.callers.push({ ...request, resolve, reject });
      if (!this.#inFlight) this.#send();
    });
  }

  #send(): void {
    const batch = this.#next;
    if (!batch.callers.length) return;
    this.#next = newBatch();
    this.#inFlight = batch;
    batch.number = this.#nextNumber++;
    const worker = (this.#worker ??= this.#spawn());
    worker.ref(); // a flush awaited keeps the process alive until it is done
    worker.postMessage({ number: batch.number, fds: [...batch.fds], folders: batch.folders });
  }

  #settle(reply: Reply): void {
    const batch = this.#inFlight;
    if (!batch || batch.number !== reply.number) return;
    this.#inFlight = undefined;
    for (const caller of batch.callers) {
      const failure = (caller.fd !== undefined ? reply.failed[caller.fd] : undefined) ?? caller.folders.map((f) => reply.failed[f]).find(Boolean);
      if (failure) caller.reject(Object.assign(new Error(failure.message), { code: failure.code }));
      else caller.resolve();
    }
    if (this.#next.callers.length) this.#send();
    else this.#worker?.unref();
  }

  #spawn(): Worker {
    const worker = new Worker(WORKER_SOURCE, { eval: true });
    worker.on('message', (reply: Reply) => this.#settle(reply));
    const fail = (err: Error) => {
      if (this.#worker !== worker) return;
      this.#worker = undefined;
      const held = [this.#inFlight, this.#next].filter((b): b is Batch => b !== undefined);
      this.#inFlight = undefined;
      this.#next = newBatch();
      for (const caller of held.flatMap((b) => b.callers)) caller.reject(err);
    };
    worker.on('error', fail);
    worker.on('exit', (code) => fail(new Error(`the flushing thread stopped (exit code ${code})`)));
    return worker;
  }
}

interface Caller {
  fd?: number;
  folders: string[];
  resolve(): void;
  reject(err: Error): void;
}

interface Batch {
  number: number;
  fds: Set<number>;
  folders: string[];
  callers: Caller[];
}

const newBatch = (): Batch => ({ number: 0, fds: new Set(), folders: [], callers: [] });

/** What failed in a batch, by file descriptor or folder. */
interface Reply {
  number: number;
  failed: Record<string, { code?: string; message: string }>;
}

/**
 * The thread: files first, then folders (a name is only worth keeping once its bytes are). A folder
 * a platform cannot flush (EISDIR, EINVAL, EPERM: not Linux) is no failure.
 */
const WORKER_SOURCE = `
const { parentPort } = require('node:worker_threads');
const fs = require('node:fs');
const failure = (err) => ({ code: err.code, message: err.message });
parentPort.on('message', ({ number, fds, folders }) => {
  const failed = {};
  for (const fd of fds) {
    try { fs.fsyncSync(fd); } catch (err) { failed[fd] = failure(err); }
  }
  for (const folder of folders) {
    let fd;
    try {
      fd = fs.openSync(folder, 'r');
      fs.fsyncSync(fd);
    } catch (err) {
      if (!['EISDIR', 'EINVAL', 'EPERM'].includes(err.code)) failed[folder] = failure(err);
    } finally {
      if (fd !== undefined) fs.closeSync(fd);
    }
  }
  parentPort.postMessage({ number, failed });
});
`;
