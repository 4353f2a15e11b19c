import type { Store } from '../db/store.js';
import { DOCUMENTS_PREFIX } from '../domain/documents.js';
import { type FileStorage, isListable } from './types.js';
import { nowDate } from '../clock.js';

/** What a reconciliation found (and, with repair, removed or released). */
export interface ReconcileReport {
  driver: string;
  /** False for stores that cannot be listed (Cloudinary): only the database side was looked at. */
  listable: boolean;
  /** Stored objects without a record, older than the grace period. Repair removes them. */
  orphans: string[];
  /** Standing records whose object is not in the store (a withdrawn document's bytes are meant to be gone). Reported only: restore them from a backup. */
  missing: { id: string; projectId: string; key: string }[];
  /** Writes that never completed (temporary files, S3 multipart uploads), older than the grace period. Repair removes them. */
  incomplete: string[];
  /** Name reservations that never got a record, older than the grace period. Repair releases them (listable stores only). */
  unrecordedNames: string[];
  /**
   * Keys of withdrawn (voided) documents whose bytes this run deleted: a deletion their void could not
   * finish (the store away, a crash between the record and the deletion), or bytes that came back.
   * Done in every mode, report included: the void was decided and recorded; it is no judgement of the reconciler's.
   */
  voidedDeleted: string[];
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
 * writes that never completed and name reservations never used; and deletes the bytes of withdrawn
 * documents that are still stored. Shared by the service's start-up
 * run and `npm run cli -- fsck [--repair]`.
 */
export async function reconcile(deps: { store: Store; storage: FileStorage }, options: ReconcileOptions): Promise<ReconcileReport> {
  const { store, storage } = deps;
  const startedAt = nowDate();
  const cutoff = new Date(startedAt.getTime() - options.graceMs);
  const report: ReconcileReport = {
    driver: storage.driver,
    listable: isListable(storage),
    orphans: [],
    missing: [],
    incomplete: [],
    unrecordedNames: [],
    voidedDeleted: [],
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

  /** A voided document's bytes, deleted for good; the record then says so. A failure stays pending for the next run. */
  const deleteVoided = (file: { id: string; storageKey: string; url: string }) =>
    attempt(`deleting the withdrawn ${file.storageKey}`, async () => {
      await storage.delete({ key: file.storageKey, url: file.url });
      await store.files.markBytesDeleted(file.id, nowDate().toISOString());
      if (!report.voidedDeleted.includes(file.storageKey)) report.voidedDeleted.push(file.storageKey);
    });

  // 0. Withdrawn documents whose bytes are still to be deleted, on every store (Cloudinary's addresses are its own: they must go).
  for (let after: string | null = null; ; ) {
    const page = await store.files.pendingDeletions(after, BATCH);
    for (const f of page) await deleteVoided(f);
    if (page.length < BATCH) break;
    after = page[page.length - 1]!.id;
    stopIfAborted();
  }

  if (isListable(storage)) {
    // 1. Objects without a record (and a withdrawn document's bytes, still there). Every listed key is kept for step 2.
    const listed = new Set<string>();
    let batch: { key: string; modifiedAt: Date }[] = [];
    const checkBatch = async () => {
      const { recorded, voided } = await store.files.recordedKeys(batch.map((o) => o.key));
      for (const o of batch) {
        const withdrawn = voided.get(o.key);
        if (withdrawn) await deleteVoided(withdrawn);
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
  // voidedDeleted is work done, not a disagreement: it does not make a report unclean.
  !r.orphans.length && !r.missing.length && !r.incomplete.length && !r.unrecordedNames.length && !r.problems.length;

/** One line for the log and the command line. */
export function summarize(r: ReconcileReport): string {
  const withdrawn = r.voidedDeleted.length ? `; the bytes of ${r.voidedDeleted.length} withdrawn document(s) deleted` : '';
  if (isClean(r)) return `storage (${r.driver}) and records agree${withdrawn}`;
  const verb = (done: string, found: string) => (r.repaired ? done : found);
  return [
    `storage (${r.driver}):`,
    `${r.orphans.length} object(s) without a record ${verb('removed', 'found')},`,
    `${r.missing.length} record(s) whose object is missing,`,
    `${r.incomplete.length} incomplete write(s) ${verb('removed', 'found')},`,
    `${r.unrecordedNames.length} unused name reservation(s) ${verb(r.listable ? 'released' : 'kept (store cannot be listed)', 'found')}`,
    withdrawn,
    r.problems.length ? `; problems: ${r.problems.join('; ')}` : '',
  ].join(' ');
}
