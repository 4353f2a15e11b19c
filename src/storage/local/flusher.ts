import fs from 'node:fs';

/**
 * The durable flushes of the local driver's files, shared by the uploads that wait for them at the
 * same time (a group commit for fsync). Each file is flushed, then its folder (so the name it was
 * created under survives a crash too), before its flush resolves. The flushes asked for in one turn
 * of the event loop go together at its end (an idle service waits for no timer); every one asked for
 * while a batch is being flushed goes with the next, whose files are flushed side by side on the thread pool (a journalling file system commits
 * concurrent fsyncs together) and then each of its folders once, however many of the batch's files
 * it holds: eight small uploads at once flush their folder once, not eight times. A flush failing
 * rejects only its own caller (its file, or its folder's callers).
 *
 * Issue 27 first tried one flushing thread taking whole batches; serial fsyncs on one thread made
 * a batch of eight 3–7 times slower than the same fsyncs side by side on the pool (ext4's delayed
 * allocation gives each file its own journal commit), for no saving of CPU.
 */
export class Flusher {
  #flushing = false;
  #next: Batch = newBatch();
  #batches = 0;

  /** Batches flushed so far (how much the flushes were shared: tests, diagnostics). */
  get batches(): number {
    return this.#batches;
  }

  /**
   * Flushes an open file's bytes, then its folder. The caller keeps `fd` open until this settles.
   */
  flush(fd: number, folder: string): Promise<void> {
    return this.#ask({ fd, folders: [folder] });
  }

  /** Flushes folders' entries (a name linked or made in each). */
  flushFolders(folders: readonly string[]): Promise<void> {
    return this.#ask({ folders: [...folders] });
  }

  #ask(request: { fd?: number; folders: string[] }): Promise<void> {
    return new Promise((resolve, reject) => {
      const batch = this.#next;
      if (request.fd !== undefined) batch.fds.add(request.fd);
      for (const folder of request.folders) batch.folders.add(folder);
      batch.callers.push({ ...request, resolve, reject });
      if (this.#flushing) return;
      // Run after this turn of the event loop's callbacks (no timer: an idle service waits for nothing), so flushes asked for together go together.
      this.#flushing = true;
      setImmediate(() => void this.#run());
    });
  }

  async #run(): Promise<void> {
    while (this.#next.callers.length) {
      const batch = this.#next;
      this.#next = newBatch();
      this.#batches++;
      const failed = new Map<number | string, Error>();
      await Promise.all([...batch.fds].map((fd) => fsync(fd).catch((err: Error) => failed.set(fd, err))));
      await Promise.all([...batch.folders].map((folder) => syncFolder(folder).catch((err: Error) => failed.set(folder, err))));
      for (const caller of batch.callers) {
        const failure = (caller.fd !== undefined ? failed.get(caller.fd) : undefined) ?? caller.folders.map((f) => failed.get(f)).find(Boolean);
        if (failure) caller.reject(failure);
        else caller.resolve();
      }
    }
    this.#flushing = false;
  }
}

interface Caller {
  fd?: number;
  folders: string[];
  resolve(): void;
  reject(err: Error): void;
}

interface Batch {
  fds: Set<number>;
  folders: Set<string>;
  callers: Caller[];
}

const newBatch = (): Batch => ({ fds: new Set(), folders: new Set(), callers: [] });

const fsync = (fd: number) => new Promise<void>((resolve, reject) => fs.fsync(fd, (err) => (err ? reject(err) : resolve())));

/** A folder's entries flushed; one a platform cannot flush (EISDIR, EINVAL, EPERM: not Linux) is no failure. */
async function syncFolder(folder: string): Promise<void> {
  const fd = await new Promise<number>((resolve, reject) => fs.open(folder, 'r', (err, n) => (err ? reject(err) : resolve(n))));
  try {
    await fsync(fd);
  } catch (err) {
    if (!['EISDIR', 'EINVAL', 'EPERM'].includes((err as NodeJS.ErrnoException).code ?? '')) throw err;
  } finally {
    fs.close(fd, () => {});
  }
}
