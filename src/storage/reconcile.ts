import type { Store } from '../db/store.js';
import { DOCUMENTS_PREFIX } from '../domain/documents.js';
import { type FileStorage, isListable } from './types.js';

/** What a reconciliation found (and, with repair, removed or released). */
export interface ReconcileReport {
  driver: string;
  /** False for stores that cannot be listed (Cloudinary): only the database side was looked at. */
  listable: boolean;
  /** Stored objects without a record, older than the grace period. Repair removes them. */
  orphans: string[];
  /** Records whose object is not in the store. Reported only: the bytes are gone; restore them from a backup. */
  missing: { id: string; projectId: string; key: string }[];
  /** Writes that never completed (temporary files, S3 multipart uploads), older than the grace period. Repair removes them. */
  incomplete: string[];
  /** Name reservations that never got a record, older than the grace period. Repair releases them (listable stores only). */
  unrecordedNames: string[];
  /** What could not be looked at, and why (a store that cannot list multipart uploads, a failed removal). */
  problems: string[];
  repaired: boolean;
}

export interface ReconcileOptions {
  repair: boolean;
  /** Anything younger may belong to an upload in flight: it is left alone. */
  graceMs: number;
  /** Stops between steps (the service is shutting down). */
  signal?: AbortSignal;
}

const BATCH = 500;

/**
 * Compares the store with the records: objects without a record, records without an object,
 * writes that never completed and name reservations never used. Shared by the service's start-up
 * run and `npm run cli -- fsck [--repair]`.
 */
export async function reconcile(deps: { store: Store; storage: FileStorage }, options: ReconcileOptions): Promise<ReconcileReport> {
  const { store, storage } = deps;
  const startedAt = new Date();
  const cutoff = new Date(startedAt.getTime() - options.graceMs);
  const report: ReconcileReport = {
    driver: storage.driver,
    listable: isListable(storage),
    orphans: [],
    missing: [],
    incomplete: [],
    unrecordedNames: [],
    problems: [],
    repaired: options.repair,
  };
  const stopIfAborted = () => options.signal?.throwIfAborted();
  const attempt = async (what: string, work: () => Promise<void>) => {
    try {
      await work();
    } catch (err) {
      stopIfAborted();
      report.problems.push(`${what}: ${err instanceof Error ? err.message : String(err)}`);
    }
  };

  if (isListable(storage)) {
    // 1. Objects without a record. Every listed key is kept for step 2.
    const listed = new Set<string>();
    let batch: { key: string; modifiedAt: Date }[] = [];
    const checkBatch = async () => {
      const recorded = await store.files.recordedKeys(batch.map((o) => o.key));
      for (const o of batch) {
        if (recorded.has(o.key) || o.modifiedAt >= cutoff) continue;
        report.orphans.push(o.key);
        if (options.repair) {
          await attempt(`removing ${o.key}`, async () => {
            await storage.removeObject(o.key);
            await store.storageNames.release(o.key);
          });
        }
      }
      batch = [];
      stopIfAborted();
    };
    let listedAll = false;
    await attempt('listing the stored objects', async () => {
      for await (const o of storage.listObjects(DOCUMENTS_PREFIX)) {
        listed.add(o.key);
        batch.push(o);
        if (batch.length === BATCH) await checkBatch();
      }
      await checkBatch();
      listedAll = true;
    });

    // 2. Records without an object: only those made before the listing began could be in it.
    if (listedAll) {
      for (let after: string | null = null; ; ) {
        const page = await store.files.keysPage(startedAt.toISOString(), after, BATCH);
        for (const r of page) if (!listed.has(r.storageKey)) report.missing.push({ id: r.id, projectId: r.projectId, key: r.storageKey });
        if (page.length < BATCH) break;
        after = page[page.length - 1]!.id;
        stopIfAborted();
      }
    }

    // 3. Writes that never completed.
    await attempt('listing incomplete writes', async () => {
      for await (const write of storage.listIncomplete()) {
        if (write.startedAt >= cutoff) continue;
        report.incomplete.push(write.name);
        if (options.repair) await attempt(`removing ${write.name}`, () => write.remove());
      }
    });
  }

  // 4. Reservations never used. On a store that cannot be listed the object may exist: the name stays taken.
  stopIfAborted();
  report.unrecordedNames = await store.storageNames.unrecorded(cutoff.toISOString());
  if (options.repair && report.listable) {
    for (const key of report.unrecordedNames) await attempt(`releasing ${key}`, () => store.storageNames.release(key));
  }
  return report;
}

/** True when the report found nothing to act on. */
export const isClean = (r: ReconcileReport): boolean =>
  !r.orphans.length && !r.missing.length && !r.incomplete.length && !r.unrecordedNames.length && !r.problems.length;

/** One line for the log and the command line. */
export function summarize(r: ReconcileReport): string {
  if (isClean(r)) return `storage (${r.driver}) and records agree`;
  const verb = (done: string, found: string) => (r.repaired ? done : found);
  return [
    `storage (${r.driver}):`,
    `${r.orphans.length} object(s) without a record ${verb('removed', 'found')},`,
    `${r.missing.length} record(s) whose object is missing,`,
    `${r.incomplete.length} incomplete write(s) ${verb('removed', 'found')},`,
    `${r.unrecordedNames.length} unused name reservation(s) ${verb(r.listable ? 'released' : 'kept (store cannot be listed)', 'found')}`,
    r.problems.length ? `; problems: ${r.problems.join('; ')}` : '',
  ].join(' ');
}
