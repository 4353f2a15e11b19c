import fs from 'node:fs';
import path from 'node:path';
import SQLite from 'better-sqlite3';
import {
  Kysely,
  type KyselyPlugin,
  Migrator,
  OperationNodeTransformer,
  PostgresDialect,
  PrimitiveValueListNode,
  SqliteDialect,
  ValueNode,
  sql,
  type PluginTransformQueryArgs,
  type PluginTransformResultArgs,
  type QueryResult,
  type RootOperationNode,
  type UnknownRow,
} from 'kysely';
import pg from 'pg';
import type { Config } from '../config.js';
import { initial } from './migrations/001_initial.js';
import { activitySeq } from './migrations/002_activity_seq.js';
import { documents } from './migrations/007_documents.js';
import type { Tables } from './schema.js';

export type Dialect = 'sqlite' | 'postgres';
export type DB = Kysely<Tables>;

export interface Database {
  db: DB;
  dialect: Dialect;
  destroy(): Promise<void>;
  /** Where dropped connections are reported (warn), once the service's logger exists; stderr before. */
  useLogger?(log: { warn(obj: object, msg: string): void }): void;
}

/** Opens the configured database (SQLite in WAL mode, or a PostgreSQL pool). Does not migrate. */
export async function openDatabase(config: Config['database']): Promise<Database> {
  if (config.dialect === 'sqlite') {
    fs.mkdirSync(path.dirname(config.file), { recursive: true });
    const sqlite = new SQLite(config.file);
    sqlite.pragma('journal_mode = WAL');
    sqlite.pragma('synchronous = NORMAL');
    sqlite.pragma('foreign_keys = ON');
    sqlite.pragma('busy_timeout = 5000');
    const db = new Kysely<Tables>({
      dialect: new SqliteDialect({ database: sqlite }),
      plugins: [new SqliteBooleanPlugin()],
    });
    return { db, dialect: 'sqlite', destroy: () => db.destroy() };
  }

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
    connectionTimeoutMillis: 10_000,
    options: config.schema ? `-c search_path="${config.schema}"` : undefined,
    types: { getTypeParser: pgTypeParser },
  });
  // A connection PostgreSQL drops (restart, failover, a cut link) emits 'error' on its client and,
  // while idle, on the pool: unheard, either would end the process. The pool discards the broken
  // client and connects a new one on demand; the query that was running on it fails on its own.
  let log: { warn(obj: object, msg: string): void } = { warn: (obj, msg) => console.warn(msg, obj) };
  const dropped = (err: Error) => log.warn({ err }, 'PostgreSQL connection lost; it will be replaced');
  const reported = new WeakSet<Error>();
  const onceEach = (err: Error) => {
    // The same failure reaches both the client and the pool's idle listener: say it once.
    if (reported.has(err)) return;
    reported.add(err);
    dropped(err);
  };
  pool.on('error', onceEach);
  pool.on('connect', (client) => client.on('error', onceEach));
  const db = new Kysely<Tables>({ dialect: new PostgresDialect({ pool }) });
  return { db, dialect: 'postgres', destroy: () => db.destroy(), useLogger: (l) => (log = l) };
}

const PG_INT8 = 20;
const PG_TIMESTAMPTZ = 1184;

/** Make PostgreSQL answer like SQLite: counts and sizes as numbers, timestamps as ISO strings. */
function pgTypeParser(oid: number, format?: 'text' | 'binary') {
  if (oid === PG_INT8) return (v: string) => Number(v);
  if (oid === PG_TIMESTAMPTZ) return (v: string) => new Date(v).toISOString();
  return pg.types.getTypeParser(oid, format as 'text');
}

/** Every migration, in order of their names. */
const migrations = (dialect: Dialect) => ({
  '001_initial': initial(dialect),
  '002_activity_seq': activitySeq(dialect),
  '007_documents': documents(dialect),
});

export const migrationNames = Object.keys(migrations('sqlite'));

/** Brings the schema up to date. On PostgreSQL Kysely holds an advisory lock, so instances may start together. */
export async function migrate(database: Database): Promise<void> {
  // Kysely looks for its own tables in every schema unless told which; name the one in use.
  const schema =
    database.dialect === 'postgres' ? (await sql<{ s: string }>`select current_schema() as s`.execute(database.db)).rows[0]?.s : undefined;
  const migrator = new Migrator({
    db: database.db,
    provider: { getMigrations: async () => migrations(database.dialect) },
    migrationTableSchema: schema,
  });
  for (let attempt = 1; ; attempt++) {
    const { error } = await migrator.migrateToLatest();
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

/** better-sqlite3 binds no booleans: turn them into 1/0 on the way in. */
class SqliteBooleanPlugin implements KyselyPlugin {
  readonly #transformer = new BooleanToInteger();
  transformQuery(args: PluginTransformQueryArgs): RootOperationNode {
    return this.#transformer.transformNode(args.node);
  }
  async transformResult(args: PluginTransformResultArgs): Promise<QueryResult<UnknownRow>> {
    return args.result;
  }
}

class BooleanToInteger extends OperationNodeTransformer {
  protected override transformValue(node: ValueNode): ValueNode {
    return typeof node.value === 'boolean' ? ValueNode.create(node.value ? 1 : 0) : node;
  }
  protected override transformPrimitiveValueList(node: PrimitiveValueListNode): PrimitiveValueListNode {
    return PrimitiveValueListNode.create(node.values.map((v) => (typeof v === 'boolean' ? (v ? 1 : 0) : v)));
  }
}
