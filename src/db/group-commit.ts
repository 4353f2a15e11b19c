/** One request's writes: run inside a shared transaction, in a savepoint of their own. */
export type Unit<S, T> = (store: S) => Promise<T>;

/** What a unit tells the writer before its batch starts. */
export interface UnitOptions {
  /** The unit writes an activity entry: on PostgreSQL the batch takes the event log's lock once, first (db/activity.ts). */
  activity?: boolean;
  /**
   * The unit is one statement (a name reservation). On PostgreSQL it runs on its own, outside the
   * writer: a statement is its own transaction there, durable at its commit in one round trip
   * (the server shares WAL flushes between concurrent commits), where a batch costs it a savepoint
   * and its release besides. SQLite: through the writer, as any unit.
   */
  oneStatement?: boolean;
  /**
   * In a batch, the unit runs without a savepoint of its own: should it fail, the batch's
   * transaction is rolled back and every other unit of it runs again alone (as after a failed
   * commit), so it still fails alone and undoes only its own writes. Two statements fewer per unit
   * where units seldom fail (an upload's record); one failure costs its batch-mates a transaction each.
   */
  noSavepoint?: boolean;
}

/** How a batch's transaction is run; a seam so the writer knows nothing of Kysely's dialects. */
export interface BatchTransaction<S> {
  /** Runs fn in one transaction and commits it; rejects when any statement or the commit fails (rolled back). */
  transaction<T>(fn: (store: S) => Promise<T>, batch: { activity: boolean }): Promise<T>;
  /** Inside fn's transaction: a savepoint around fn, as Store.savepoint (a SavepointBroken must fail the transaction). */
  savepoint<T>(store: S, fn: () => Promise<T>): Promise<T>;
  /** True when the error means the transaction itself is unusable (a savepoint that failed): the batch must fail. */
  breaksTransaction(err: unknown): boolean;
}

/** Counts since start, for the tests and /metrics. */
export interface GroupCommitCounts {
  /** Transactions begun: one per batch (one or more units), and one per unit run again alone. */
  transactions: number;
  /** Units run through the writer. */
  units: number;
  /** Units run again in a transaction of their own after their batch's transaction failed. */
  retriedAlone: number;
  /** The most units one batch held. */
  largestBatch: number;
}

/**
 * The instance's single writer (group commit). Units that arrive while a batch is committing wait
 * and then share one transaction and one durable commit, each in its own savepoint, so a failing
 * unit undoes only its own writes and fails only its own request. Nothing waits when nothing is in
 * flight: an idle writer starts the unit's transaction at once (on SQLite at the end of the current
 * event-loop turn, see the constructor); a batch holds only what queued during the previous one, at
 * most `maxBatch` units. Each caller is answered after the commit that holds its
 * work; should that commit (or the transaction) fail, every unit not already failed on its own is
 * run again alone, in a transaction of its own, so one bad unit never fails the others.
 *
 * A unit may therefore run twice: it must keep no state across runs, and do nothing but database work
 * (it holds the batch, and on SQLite the only connection, while it runs).
 */
export class GroupCommit<S> {
  readonly counts: GroupCommitCounts;
  readonly #queue: Queued<S>[] = [];
  #committing = false;

  readonly #maxBatch: number;
  readonly #untilTurnEnds: boolean;

  /**
   * `maxBatch`: the most units one transaction holds. `untilTurnEnds`: an idle writer starts at the
   * end of the current event-loop turn (setImmediate: no timer, no window) rather than at once, so the
   * units made ready by the same turn's I/O share it: for a database whose transactions never yield
   * to the event loop (better-sqlite3), where nothing can arrive while a batch commits. `counts`:
   * where to count (writers of one instance may share them).
   */
  constructor(
    private readonly trx: BatchTransaction<S>,
    { maxBatch = 64, untilTurnEnds = false, counts }: { maxBatch?: number; untilTurnEnds?: boolean; counts?: GroupCommitCounts } = {},
  ) {
    this.counts = counts ?? { transactions: 0, units: 0, retriedAlone: 0, largestBatch: 0 };
    if (!Number.isInteger(maxBatch) || maxBatch < 1) throw new Error('a batch holds at least one unit');
    this.#maxBatch = maxBatch;
    this.#untilTurnEnds = untilTurnEnds;
  }

  /** Runs the unit in the next batch and resolves with its result once that batch is committed (or with its own failure). */
  run<T>(unit: Unit<S, T>, options: UnitOptions = {}): Promise<T> {
    this.counts.units++;
    return new Promise<T>((resolve, reject) => {
      this.#queue.push({ unit, activity: options.activity ?? false, noSavepoint: options.noSavepoint ?? false, resolve: resolve as (v: unknown) => void, reject });
      if (this.#committing) return;
      this.#committing = true;
      if (this.#untilTurnEnds) setImmediate(() => void this.#drain());
      else void this.#drain();
    });
  }

  /** True while a batch is due or being committed (what arrives meanwhile waits for the next one). */
  get busy(): boolean {
    return this.#committing;
  }

  async #drain(): Promise<void> {
    try {
      while (this.#queue.length) await this.#commit(this.#queue.splice(0, this.#maxBatch));
    } finally {
      this.#committing = false;
    }
  }

  async #commit(batch: Queued<S>[]): Promise<void> {
    this.counts.largestBatch = Math.max(this.counts.largestBatch, batch.length);
    // Alone (an idle writer): no savepoint to set, and a failure of its transaction is its own.
    const outcomes = batch.length === 1 ? [await this.#alone(batch[0]!)] : await this.#together(batch);
    for (const [i, queued] of batch.entries()) {
      const outcome = outcomes[i]!;
      if (outcome.ok) queued.resolve(outcome.value);
      else queued.reject(outcome.error);
    }
  }

  /** The units in one transaction, each in a savepoint; should the transaction fail, each unit not failed on its own again alone. */
  async #together(batch: Queued<S>[]): Promise<Outcome[]> {
    this.counts.transactions++;
    const outcomes: (Outcome | undefined)[] = new Array(batch.length);
    try {
      await this.trx.transaction(
        async (store) => {
          for (const [i, queued] of batch.entries()) {
            if (queued.noSavepoint) {
              try {
                outcomes[i] = { ok: true, value: await queued.unit(store) };
              } catch (err) {
                // Its writes can only be undone with everyone's (and PostgreSQL refuses further statements): its failure is its answer, the others run again alone.
                // A broken savepoint of its own is the transaction's failure, not its: it runs again alone too, as before.
                if (!this.trx.breaksTransaction(err)) outcomes[i] = { ok: false, error: err };
                throw err;
              }
              continue;
            }
            try {
              outcomes[i] = { ok: true, value: await this.trx.savepoint(store, () => queued.unit(store)) };
            } catch (err) {
              if (this.trx.breaksTransaction(err)) throw err;
              outcomes[i] = { ok: false, error: err };
            }
          }
        },
        { activity: batch.some((q) => q.activity) },
      );
      return outcomes as Outcome[];
    } catch {
      // The transaction failed (its commit, a savepoint, the connection, a unit without a savepoint): none of its writes stand.
      // A unit that failed on its own keeps its answer (its savepoint undid it); the others run again alone.
      const settled: Outcome[] = [];
      for (const [i, queued] of batch.entries()) {
        const outcome = outcomes[i];
        if (outcome && !outcome.ok) settled.push(outcome);
        else {
          this.counts.retriedAlone++;
          settled.push(await this.#alone(queued));
        }
      }
      return settled;
    }
  }

  /** The unit in a transaction of its own. */
  #alone(queued: Queued<S>): Promise<Outcome> {
    this.counts.transactions++;
    return this.trx.transaction((store) => queued.unit(store), { activity: queued.activity }).then(
      (value): Outcome => ({ ok: true, value }),
      (error: unknown): Outcome => ({ ok: false, error }),
    );
  }
}

interface Queued<S> {
  unit: Unit<S, unknown>;
  activity: boolean;
  noSavepoint: boolean;
  resolve: (value: unknown) => void;
  reject: (err: unknown) => void;
}

type Outcome = { ok: true; value: unknown } | { ok: false; error: unknown };
