import fs from 'node:fs';
import path from 'node:path';
import SQLite from 'better-sqlite3';
import type { Config } from './config.js';
import { nowDate } from './clock.js';

/** What a backup directory holds besides the database and the files. */
interface Manifest {
  createdAt: string;
  database: 'sqlite';
  storage: string;
  files: number;
}

const DATABASE_FILE = 'app.db';
const UPLOADS = 'uploads';
const MANIFEST = 'backup.json';
/** The local driver's temporary files: never part of a backup. */
const INCOMING = '.incoming';

export class BackupError extends Error {}

/**
 * Writes a consistent copy of the SQLite database (SQLite's online backup, safe while the service
 * runs) and then of the local driver's files into `dir`, which must be new or empty. The database
 * comes first: files are only ever added, so every record in the copy finds its file (a file added
 * meanwhile comes along without a record; the reconciler removes it after a restore).
 */
export async function backup(config: Config, dir: string): Promise<Manifest> {
  if (config.database.dialect !== 'sqlite') {
    throw new BackupError(
      'The database is PostgreSQL: back it up with pg_dump (pg_dump --format=custom "$DATABASE_URL" > print-orders.dump), then copy DATA_DIR/uploads if STORAGE_DRIVER=local (see README, Backups).',
    );
  }
  if (fs.existsSync(dir) && fs.readdirSync(dir).length) throw new BackupError(`${dir} is not empty: choose a new directory`);
  fs.mkdirSync(dir, { recursive: true });

  const source = new SQLite(config.database.file, { fileMustExist: true });
  try {
    await source.backup(path.join(dir, DATABASE_FILE));
  } finally {
    source.close();
  }

  let files = 0;
  if (config.storage.driver === 'local') {
    const from = path.join(config.dataDir, UPLOADS);
    if (fs.existsSync(from)) {
      await fs.promises.cp(from, path.join(dir, UPLOADS), {
        recursive: true,
        preserveTimestamps: true,
        filter: (src) => path.basename(src) !== INCOMING,
      });
      files = countFiles(path.join(dir, UPLOADS));
    }
  }
  const manifest: Manifest = { createdAt: nowDate().toISOString(), database: 'sqlite', storage: config.storage.driver, files };
  fs.writeFileSync(path.join(dir, MANIFEST), `${JSON.stringify(manifest, null, 2)}\n`);
  return manifest;
}

/**
 * Puts a backup made by {@link backup} in place of the current database and local files. The
 * service must be stopped. What was there before is moved aside (`<name>.before-restore-<time>`),
 * never deleted.
 */
export async function restore(config: Config, dir: string): Promise<Manifest & { setAside: string[] }> {
  if (config.database.dialect !== 'sqlite') {
    throw new BackupError('The database is PostgreSQL: restore it with pg_restore (see README, Backups).');
  }
  const manifestFile = path.join(dir, MANIFEST);
  if (!fs.existsSync(manifestFile) || !fs.existsSync(path.join(dir, DATABASE_FILE))) throw new BackupError(`${dir} holds no backup (no ${MANIFEST} or ${DATABASE_FILE})`);
  const manifest = JSON.parse(fs.readFileSync(manifestFile, 'utf8')) as Manifest;

  const stamp = nowDate().toISOString().replace(/[:.]/g, '-');
  const setAside: string[] = [];
  const moveAside = (file: string) => {
    if (!fs.existsSync(file)) return;
    const aside = `${file}.before-restore-${stamp}`;
    fs.renameSync(file, aside);
    setAside.push(aside);
  };

  const target = config.database.file;
  fs.mkdirSync(path.dirname(target), { recursive: true });
  // The WAL and shared-memory files belong to the database being replaced.
  for (const suffix of ['', '-wal', '-shm']) moveAside(`${target}${suffix}`);
  fs.copyFileSync(path.join(dir, DATABASE_FILE), target);

  if (config.storage.driver === 'local' && fs.existsSync(path.join(dir, UPLOADS))) {
    const uploads = path.join(config.dataDir, UPLOADS);
    moveAside(uploads);
    await fs.promises.cp(path.join(dir, UPLOADS), uploads, { recursive: true, preserveTimestamps: true });
  }
  return { ...manifest, setAside };
}

function countFiles(dir: string): number {
  return (fs.readdirSync(dir, { recursive: true, withFileTypes: true }) as fs.Dirent[]).filter((e) => e.isFile()).length;
}
