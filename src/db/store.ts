import { CompiledQuery, sql } from 'kysely';
import { activityRepo, lockEventLog } from './activity.js';
import { customersRepo } from './customers.js';
import { dueDigestsRepo } from './due-digests.js';
import { apiTokensRepo } from './api-tokens.js';
import { commentsRepo } from './comments.js';
import { proofsRepo } from './proofs.js';
import { filesRepo } from './files.js';
import { type BatchTransaction, GroupCommit, type GroupCommitCounts, type UnitOptions } from './group-commit.js';
import { idempotencyKeysRepo } from './idempotency-keys.js';
import type { Database } from './index.js';
import { loginFailuresRepo } from './login-failures.js';
import { emailOptoutsRepo, outboxRepo, passwordResetsRepo } from './mail.js';
import { paymentsRepo } from './payments.js';
import { projectItemsRepo } from './project-items.js';
import { projectsRepo } from './projects.js';
import { reportsRepo } from './reports.js';
import { resumableUploadsRepo } from './resumable-uploads.js';
import { secretsRepo } from './secrets.js';
import { sessionsRepo } from './sessions.js';
import { statsRepo } from './stats.js';
import { invoicesRepo } from './invoices.js';
import { shopSettingsRepo } from './shop-settings.js';
import { storageNamesRepo } from './storage-names.js';
import { uploadLocksRepo } from './upload-locks.js';
import { usersRepo } from './users.js';
import { webhookDeliveriesRepo } from './webhook-deliveries.js';
import { webhooksRepo } from './webhooks.js';

/** All data access of the service. Each method is one query (or one transaction; projects.update is two statements, run in the caller's). */
export interface Store extends ReturnType<typeof repositories> {
  /** Runs fn in a transaction; the store it gets writes inside that transaction. */
  transaction<T>(fn: (store: Store) => Promise<T>): Promise<T>;
  /**
   * Inside a transaction: runs fn so that its failure undoes only its own writes (a savepoint) and
   * the transaction goes on; the failure is rethrown. A failure of the savepoint itself is a
   * SavepointBroken, which the caller must let fail the transaction.
   */
  savepoint<T>(fn: () => Promise<T>): Promise<T>;
  ping(): Promise<void>;
  /**
   * Runs `unit` through the instance's group commit (db/group-commit.ts): in a transaction shared
   * with the units that arrive together, in a savepoint of its own; resolves once that transaction
   * is committed. The unit may run twice (alone, after its batch's commit failed) and must do
   * nothing but database work through the store it is given. Inside a transaction: in a savepoint of it.
   */
  groupCommit<T>(unit: (store: Store) => Promise<T>, options?: UnitOptions): Promise<T>;
  /** The group commit's counts since start (the instance's; the same object in every store). */
  readonly groupCommits: GroupCommitCounts;
  /** A batch's store: its shared reads of projects for their events (projects.forEvent) are made again from now on. Elsewhere nothing. */
  forgetProjectReads(): void;
}

/** What the store of a group commit's batch knows (db/group-commit.ts). */
interface BatchOptions {
  /** PostgreSQL: the batch holds the event log's lock already (db/activity.ts). */
  activityLocked: boolean;
}

/** A savepoint that could not be set, rolled back to or released: the transaction it is in must fail. */
export class SavepointBroken extends Error {
  constructor(override readonly cause: unknown) {
    super(`the transaction's savepoint failed: ${(cause as Error)?.message ?? String(cause)}`);
  }
}

/** Savepoint statements by nesting depth: the same few texts every time, so SQLite's prepared statements are reused (a fresh name per savepoint filled the statement cache with one-off texts). */
const savepointStatements = (depth: number) => ({
  set: CompiledQuery.raw(`savepoint part_${depth}`),
  rollback: CompiledQuery.raw(`rollback to savepoint part_${depth}`),
  release: CompiledQuery.raw(`release savepoint part_${depth}`),
});
const SAVEPOINTS = Array.from({ length: 4 }, (_, depth) => savepointStatements(depth + 1));

/** The largest batch of the group commit: enough to share one commit among every upload a busy instance has in flight. */
const MAX_BATCH = 64;

export function createStore(database: Database): Store {
  const counts: GroupCommitCounts = { transactions: 0, units: 0, retriedAlone: 0, largestBatch: 0 };
  const batchTransaction: BatchTransaction<Store> = {
    transaction: (fn, batch) =>
      database.db.transaction().execute(async (trx) => {
        // One lock for the whole batch instead of one statement per entry: the batch is the event log's writer until it commits.
        if (batch.activity && database.dialect === 'postgres') await lockEventLog(trx);
        return fn(storeOf({ ...database, db: trx, arrays: undefined }, writer, { activityLocked: batch.activity }));
      }),
    savepoint: (store, fn) => store.savepoint(fn),
    breaksTransaction: (err) => err instanceof SavepointBroken,
  };
  // better-sqlite3 never yields during a transaction: only what the same event-loop turn made ready can share one.
  const make = () => new GroupCommit<Store>(batchTransaction, { maxBatch: MAX_BATCH, untilTurnEnds: database.dialect === 'sqlite', counts });
  const withActivity = make();
  // PostgreSQL: units that write no activity entry (name reservations) do not queue behind those that
  // hold the event log's lock; SQLite has one connection, and one writer gathers best.
  const withoutActivity = database.dialect === 'postgres' ? make() : withActivity;
  const direct = database.dialect === 'postgres';
  const writer: Writer = {
    run: (unit, options) => (direct && options?.oneStatement ? unit(root) : (options?.activity ? withActivity : withoutActivity).run(unit, options)),
    counts,
  };
  const root = storeOf(database, writer);
  return root;
}

/** The instance's group commit, as its stores reach it. */
interface Writer {
  run<T>(unit: (store: Store) => Promise<T>, options?: UnitOptions): Promise<T>;
  readonly counts: GroupCommitCounts;
}

function storeOf(database: Database, writer: Writer, batch?: BatchOptions): Store {
  let depth = 0;
  const projectReads = batch ? new Map<string, Promise<unknown>>() : undefined;
  const own: Pick<Store, 'transaction' | 'savepoint' | 'ping' | 'groupCommit' | 'groupCommits' | 'forgetProjectReads'> = {
    transaction: (fn) => database.db.transaction().execute((trx) => fn(storeOf({ ...database, db: trx, arrays: undefined }, writer))),
    savepoint: async (fn) => {
      if (!database.db.isTransaction) throw new Error('a savepoint needs a transaction');
      const statements = SAVEPOINTS[depth] ?? savepointStatements(depth + 1);
      // The savepoint's own statements failing leave the transaction unusable (PostgreSQL would
      // answer its COMMIT with a silent rollback): that is no failure of fn, and fails the transaction.
      const control = (statement: CompiledQuery) =>
        database.db.executeQuery(statement).catch((err: unknown) => {
          throw new SavepointBroken(err);
        });
      await control(statements.set);
      depth++;
      let result: Awaited<ReturnType<typeof fn>>;
      try {
        result = await fn();
      } catch (err) {
        depth--;
        await control(statements.rollback);
        await control(statements.release);
        throw err;
      }
      depth--;
      await control(statements.release);
      return result;
    },
    ping: async () => {
      await sql`select 1`.execute(database.db);
    },
    groupCommit: (unit, options) => (database.db.isTransaction ? store.savepoint(() => unit(store)) : writer.run(unit, options)),
    groupCommits: writer.counts,
    forgetProjectReads: () => projectReads?.clear(),
  };
  const store: Store = Object.assign(repositories(database, batch, projectReads), own);
  return store;
}

/** Each transaction gets a store of its own, and uses two or three of its repositories: they are made on first use. */
function repositories({ db, dialect, arrays }: Database, batch?: BatchOptions, projectReads?: Map<string, Promise<unknown>>) {
  return lazily({
    users: () => usersRepo(db, dialect),
    sessions: () => sessionsRepo(db, dialect),
    // A batch's units are uploads, which write none of what an event carries of the project (a unit that writes rows of its own forgets these, uploads/record.ts).
    projects: () => (projectReads ? readOnce(projectsRepo(db, dialect, arrays), 'forEvent', projectReads) : projectsRepo(db, dialect, arrays)),
    customers: () => customersRepo(db),
    projectItems: () => projectItemsRepo(db, dialect),
    payments: () => paymentsRepo(db, dialect),
    files: () => filesRepo(db, dialect),
    storageNames: () => storageNamesRepo(db, dialect),
    idempotencyKeys: () => idempotencyKeysRepo(db),
    resumableUploads: () => resumableUploadsRepo(db),
    uploadLocks: () => uploadLocksRepo(db),
    activity: () => activityRepo(db, dialect, { locked: batch?.activityLocked ?? false }),
    loginFailures: () => loginFailuresRepo(db),
    secrets: () => secretsRepo(db),
    stats: () => statsRepo(db),
    reports: () => reportsRepo(db),
    // A batch reads once what its units would each read again: nothing they write changes it.
    outbox: () => (batch ? readOnce(outboxRepo(db, dialect), 'recipients') : outboxRepo(db, dialect)),
    emailOptouts: () => emailOptoutsRepo(db),
    passwordResets: () => passwordResetsRepo(db),
    dueDigests: () => dueDigestsRepo(db),
    apiTokens: () => apiTokensRepo(db, dialect),
    comments: () => commentsRepo(db),
    proofs: () => proofsRepo(db, dialect),
    webhooks: () => (batch ? readOnce(webhooksRepo(db, dialect), 'listening') : webhooksRepo(db, dialect)),
    webhookDeliveries: () => webhookDeliveriesRepo(db, dialect),
    shopSettings: () => shopSettingsRepo(db),
    invoices: () => invoicesRepo(db, dialect),
  });
}

/** Getters that make each value once (never redefined: an object whose properties change kind becomes a slow dictionary). */
function lazily<T extends Record<string, () => object>>(makers: T): { [K in keyof T]: ReturnType<T[K]> } {
  const target = {} as { [K in keyof T]: ReturnType<T[K]> };
  const made: Record<string, object> = {};
  for (const [name, make] of Object.entries(makers)) {
    Object.defineProperty(target, name, { enumerable: true, get: () => (made[name] ??= make()) });
  }
  return target;
}

/**
 * The repository with `method` answered once per set of arguments (a batch's store lives as long
 * as its transaction). A failed read is not kept: the next unit reads again.
 */
function readOnce<R extends object, K extends keyof R>(repo: R, method: K, answers = new Map<string, Promise<unknown>>()): R {
  const read = repo[method] as (...args: unknown[]) => Promise<unknown>;
  const once = (...args: unknown[]) => {
    const key = JSON.stringify(args);
    let answer = answers.get(key);
    if (!answer) {
      answer = read.apply(repo, args);
      answers.set(key, answer);
      answer.catch(() => answers.delete(key));
    }
    return answer;
  };
  return { ...repo, [method]: once };
}
