import fs from 'node:fs';
import path from 'node:path';
import SQLite from 'better-sqlite3';
import { type CompiledQuery, Kysely, Migrator, PostgresDialect, SqliteDialect, type SqliteDatabase, type SqliteStatement, sql } from 'kysely';
import type { PostgresPool, PostgresPoolClient } from 'kysely';
import type { Pool as PgPool } from 'pg';
import type { Config } from '../config.js';
import type { Log } from '../logger.js';
import { initial } from './migrations/001_initial.js';
import { activitySeq } from './migrations/002_activity_seq.js';
import { teamVersion } from './migrations/004_team_version.js';
import { mail } from './migrations/006_mail.js';
import { documents } from './migrations/007_documents.js';
import { uploadLocks } from './migrations/008_upload_locks.js';
import { eventLogIndex } from './migrations/009_event_log_index.js';
import { loginAttempts } from './migrations/010_login_attempts.js';
import { serverSecrets } from './migrations/011_server_secrets.js';
import { job } from './migrations/013_job.js';
import { customers } from './migrations/014_customers.js';
import { piPayments } from './migrations/015_pi_payments.js';
import { dueDigest } from './migrations/016_due_digest.js';
import { voidDocuments } from './migrations/017_void_documents.js';
import { apiTokens } from './migrations/018_api_tokens.js';
import { comments } from './migrations/019_comments.js';
import { webhooks } from './migrations/020_webhooks.js';
import { search } from './migrations/021_search.js';
import { webhookEvents } from './migrations/022_webhook_events.js';
import { webhookFanOut } from './migrations/023_webhook_fan_out.js';
import { proofs } from './migrations/024_proofs.js';
import { floor } from './migrations/025_floor.js';
import { moneyDocuments } from './migrations/026_money_documents.js';
import { board } from './migrations/028_board.js';
import { reports } from './migrations/029_reports.js';
import { reportReads } from './migrations/030_report_reads.js';
import { commitOrder } from './migrations/031_commit_order.js';
import type { Tables } from './schema.js';
import { preparedNameOf } from './reusable.js';

export type Dialect = 'sqlite' | 'postgres';
export type DB = Kysely<Tables>;

export interface Database {
  db: DB;
  dialect: Dialect;
  destroy(): Promise<void>;
  /** PostgreSQL: the pool's connections right now, and how many idle ones have failed since start (for /metrics). */
  pool?: { total(): number; idle(): number; waiting(): number; idleErrors(): number };
  /** A compiled query's rows as arrays of its columns in order (no object per row): for reads of many rows (the CSV export). Outside transactions only. */
  arrays?: (query: CompiledQuery) => Promise<unknown[][]>;
}

/**
 * Opens the configured database (SQLite in WAL mode, or a PostgreSQL pool). Does not migrate.
 * `log` hears what no caller does: a PostgreSQL connection that dropped (warn).
 */
export async function openDatabase(config: Config['database'], log: Pick<Log, 'warn'>): Promise<Database> {
  if (config.dialect === 'sqlite') {
    fs.mkdirSync(path.dirname(config.file), { recursive: true });
    const sqlite = new SQLite(config.file);
    sqlite.pragma('journal_mode = WAL');
    sqlite.pragma('synchronous = NORMAL');
    sqlite.pragma('foreign_keys = ON');
    sqlite.pragma('busy_timeout = 5000');
    const statements = new PreparedStatements(sqlite);
    const db = new Kysely<Tables>({ dialect: new SqliteDialect({ database: statements }) });
    return { db, dialect: 'sqlite', destroy: () => db.destroy(), arrays: async (query) => statements.arrays(query.sql, query.parameters) };
  }

  // Loaded only for PostgreSQL (as the drivers are: less to load and to keep in memory on SQLite).
  const { default: pg } = await import('pg');
  if (config.schema) {
    // Tests give each service its own schema; create it before the pool's search_path needs it.
    const client = new pg.Client({ connectionString: config.url, connectionTimeoutMillis: 10_000 });
    // A drop between queries emits 'error'; the awaited query reports the failure itself.
    client.on('error', () => {});
    await client.connect();
    try {
      await client.query(`CREATE SCHEMA IF NOT EXISTS "${config.schema}"`).catch((err: unknown) => {
        // Instances starting at once: IF NOT EXISTS does not spare the later one a unique violation.
        if (!isUniqueViolation(err)) throw err;
      });
    } finally {
      await client.end();
    }
  }
  const pool = new pg.Pool({
    connectionString: config.url,
    max: config.poolSize,
    // A PostgreSQL that accepts no connection (a partition) fails the request rather than holding it.
    connectionTimeoutMillis: Math.min(10_000, config.queryTimeoutMs),
    // A link that goes silent without a reset (a partition) fails the query instead of holding the
    // request: our queries take milliseconds, a silent link takes until TCP gives up (minutes).
    query_timeout: config.queryTimeoutMs,
    keepAlive: true,
    options: config.schema ? `-c search_path="${config.schema}"` : undefined,
    types: { getTypeParser: pgTypeParser(pg.types) },
  });
  // A connection PostgreSQL drops (restart, failover, a cut link) emits 'error' on its client and,
  // while idle, on the pool: unheard, either would end the process. The pool discards the broken
  // client and connects a new one on demand; the query that was running on it fails on its own.
  const dropped = (err: Error) => log.warn({ err }, 'PostgreSQL connection lost; it will be replaced');
  const reported = new WeakSet<Error>();
  const onceEach = (err: Error) => {
    // The same failure reaches both the client and the pool's idle listener: say it once.
    if (reported.has(err)) return;
    reported.add(err);
    dropped(err);
  };
  let idleErrors = 0;
  pool.on('error', (err) => {
    idleErrors++;
    onceEach(err);
  });
  pool.on('connect', (client) => client.on('error', onceEach));
  const db = new Kysely<Tables>({ dialect: new PostgresDialect({ pool: discardingTimedOut(pool) }) });
  return {
    db,
    dialect: 'postgres',
    destroy: () => db.destroy(),
    pool: { total: () => pool.totalCount, idle: () => pool.idleCount, waiting: () => pool.waitingCount, idleErrors: () => idleErrors },
    // pool.query destroys a connection released with an error (a timed-out query), as discardingTimedOut does.
    arrays: async (query) => (await pool.query<unknown[]>({ text: query.sql, values: [...query.parameters], rowMode: 'array' })).rows,
  };
}

/**
 * The pool as Kysely sees it, except that a connection whose query timed out is destroyed on
 * release rather than reused: its answer may still be on the way, or never come.
 */
function discardingTimedOut(pool: PgPool): PostgresPool {
  return {
    async connect() {
      const client = await pool.connect();
      let broken = false;
      return {
        query: (text: unknown, values?: unknown[]) => {
          // A reusable query's text (db/reusable.ts) as a named statement: prepared once per connection.
          const name = typeof text === 'string' ? preparedNameOf(text) : undefined;
          return (client.query as (...a: unknown[]) => Promise<unknown>)(...(name ? [{ name, text, values }] : [text, values])).catch((err: unknown) => {
            if (err instanceof Error && err.message === 'Query read timeout') broken = true;
            throw err;
          });
        },
        release: () => client.release(broken ? new Error('query timed out; connection discarded') : undefined),
      } as unknown as PostgresPoolClient;
    },
    end: () => pool.end(),
  };
}

const PG_INT8 = 20;
const PG_TIMESTAMPTZ = 1184;

/** Make PostgreSQL answer like SQLite: counts and sizes as numbers, timestamps as ISO strings. */
const pgTypeParser = (types: typeof import('pg').types) => (oid: number, format?: 'text' | 'binary') => {
  if (oid === PG_INT8) return (v: string) => Number(v);
  if (oid === PG_TIMESTAMPTZ) return (v: string) => new Date(v).toISOString();
  return types.getTypeParser(oid, format as 'text');
};

/** Every migration, in order of their names. */
const migrations = (dialect: Dialect) => ({
  '001_initial': initial(dialect),
  '002_activity_seq': activitySeq(dialect),
  '004_team_version': teamVersion(dialect),
  '006_mail': mail(dialect),
  '007_documents': documents(dialect),
  '008_upload_locks': uploadLocks(dialect),
  '009_event_log_index': eventLogIndex(),
  '010_login_attempts': loginAttempts(dialect),
  '011_server_secrets': serverSecrets(),
  '013_job': job(),
  '014_customers': customers(dialect),
  '015_pi_payments': piPayments(dialect),
  '016_due_digest': dueDigest(dialect),
  '017_void_documents': voidDocuments(dialect),
  '018_api_tokens': apiTokens(dialect),
  '019_comments': comments(dialect),
  '020_webhooks': webhooks(dialect),
  '021_search': search(dialect),
  '022_webhook_events': webhookEvents(dialect),
  '023_webhook_fan_out': webhookFanOut(),
  '024_proofs': proofs(dialect),
  '025_floor': floor(dialect),
  '026_money_documents': moneyDocuments(dialect),
  '028_board': board(),
  '029_reports': reports(),
  '030_report_reads': reportReads(),
  '031_commit_order': commitOrder(dialect),
});

export const migrationNames = Object.keys(migrations('sqlite'));

/**
 * Brings the schema up to date (or, with `to`, up to that migration: tests build a database as an
 * older version left it). On PostgreSQL Kysely holds an advisory lock, so instances may start together.
 */
export async function migrate(database: Database, options: { to?: string } = {}): Promise<void> {
  // Kysely looks for its own tables in every schema unless told which; name the one in use.
  const schema =
    database.dialect === 'postgres' ? (await sql<{ s: string }>`select current_schema() as s`.execute(database.db)).rows[0]?.s : undefined;
  const migrator = new Migrator({
    db: database.db,
    provider: { getMigrations: async () => migrations(database.dialect) },
    migrationTableSchema: schema,
    // Numbers are assigned to branches ahead of their merge: a database already at 029 still takes 028.
    allowUnorderedMigrations: true,
  });
  for (let attempt = 1; ; attempt++) {
    const { error } = options.to ? await migrator.migrateTo(options.to) : await migrator.migrateToLatest();
    if (!error) return;
    // Kysely lists the tables of every schema by name: one dropped meanwhile (by another tenant of
    // the database, or a test's cleanup) fails the listing with 3F000. Nothing was migrated: list again.
    if ((error as { code?: unknown }).code !== '3F000' || attempt === 3) throw error;
  }
}

/** True when the error is a unique-constraint violation, in either dialect. */
export function isUniqueViolation(err: unknown): boolean {
  const code = (err as { code?: unknown } | null)?.code;
  return code === '23505' || code === 'SQLITE_CONSTRAINT_UNIQUE' || code === 'SQLITE_CONSTRAINT_PRIMARYKEY';
}

/** How many prepared statements the SQLite connection keeps: every query the service writes, with room to spare. */
const STATEMENT_CACHE_SIZE = 500;

/**
 * The SQLite connection as Kysely sees it, with two additions: a statement is prepared once per SQL
 * text and reused (preparing costs more than running a short query, and the service runs the same
 * few dozen queries over and over), and booleans are bound as 1/0 (better-sqlite3 binds none).
 */
export class PreparedStatements implements SqliteDatabase {
  readonly #statements = new Map<string, SQLite.Statement>();
  /** Statements in raw mode (rows as arrays), kept apart: raw mode is a statement's own setting. */
  readonly #raw = new Map<string, SQLite.Statement<unknown[], unknown[]>>();

  constructor(private readonly sqlite: SQLite.Database) {}

  /** A query's rows as arrays. */
  arrays(text: string, params: ReadonlyArray<unknown>): unknown[][] {
    let stmt = this.#raw.get(text);
    if (!stmt) {
      stmt = this.sqlite.prepare<unknown[], unknown[]>(text).raw(true);
      if (this.#raw.size >= STATEMENT_CACHE_SIZE) this.#raw.delete(this.#raw.keys().next().value!);
      this.#raw.set(text, stmt);
    }
    return stmt.all(bindable(params));
  }

  close(): void {
    this.#statements.clear();
    this.#raw.clear();
    this.sqlite.close();
  }

  prepare(text: string): SqliteStatement {
    let stmt = this.#statements.get(text);
    // One still being iterated (a streamed query) cannot run again until it is done: use a fresh one meanwhile.
    if (!stmt || stmt.busy) {
      stmt = this.sqlite.prepare(text);
      if (this.#statements.size >= STATEMENT_CACHE_SIZE) this.#statements.delete(this.#statements.keys().next().value!);
      this.#statements.set(text, stmt);
    }
    const prepared = stmt;
    return {
      reader: prepared.reader,
      all: (params) => prepared.all(bindable(params)),
      run: (params) => prepared.run(bindable(params)),
      iterate: (params) => prepared.iterate(bindable(params)),
    };
  }
}

const bindable = (params: ReadonlyArray<unknown>): unknown[] => params.map((v) => (typeof v === 'boolean' ? (v ? 1 : 0) : v));
