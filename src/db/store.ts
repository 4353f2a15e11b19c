import { CompiledQuery, sql } from 'kysely';
import { activityRepo } from './activity.js';
import { customersRepo } from './customers.js';
import { dueDigestsRepo } from './due-digests.js';
import { apiTokensRepo } from './api-tokens.js';
import { commentsRepo } from './comments.js';
import { filesRepo } from './files.js';
import { idempotencyKeysRepo } from './idempotency-keys.js';
import type { Database } from './index.js';
import { loginFailuresRepo } from './login-failures.js';
import { emailOptoutsRepo, outboxRepo, passwordResetsRepo } from './mail.js';
import { paymentsRepo } from './payments.js';
import { projectItemsRepo } from './project-items.js';
import { projectsRepo } from './projects.js';
import { resumableUploadsRepo } from './resumable-uploads.js';
import { secretsRepo } from './secrets.js';
import { sessionsRepo } from './sessions.js';
import { statsRepo } from './stats.js';
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

export function createStore(database: Database): Store {
  let depth = 0;
  const own: Pick<Store, 'transaction' | 'savepoint' | 'ping'> = {
    transaction: (fn) => database.db.transaction().execute((trx) => fn(createStore({ ...database, db: trx }))),
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
  };
  return Object.assign(repositories(database), own);
}

/** Each transaction gets a store of its own, and uses two or three of its repositories: they are made on first use. */
function repositories({ db, dialect }: Database) {
  return lazily({
    users: () => usersRepo(db, dialect),
    sessions: () => sessionsRepo(db, dialect),
    projects: () => projectsRepo(db, dialect),
    customers: () => customersRepo(db),
    projectItems: () => projectItemsRepo(db),
    payments: () => paymentsRepo(db),
    files: () => filesRepo(db, dialect),
    storageNames: () => storageNamesRepo(db, dialect),
    idempotencyKeys: () => idempotencyKeysRepo(db),
    resumableUploads: () => resumableUploadsRepo(db),
    uploadLocks: () => uploadLocksRepo(db),
    activity: () => activityRepo(db, dialect),
    loginFailures: () => loginFailuresRepo(db),
    secrets: () => secretsRepo(db),
    stats: () => statsRepo(db),
    outbox: () => outboxRepo(db, dialect),
    emailOptouts: () => emailOptoutsRepo(db),
    passwordResets: () => passwordResetsRepo(db),
    dueDigests: () => dueDigestsRepo(db),
    apiTokens: () => apiTokensRepo(db, dialect),
    comments: () => commentsRepo(db),
    webhooks: () => webhooksRepo(db, dialect),
    webhookDeliveries: () => webhookDeliveriesRepo(db, dialect),
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
