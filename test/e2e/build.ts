import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { testDialect } from '../helpers/service.js';

/** Shared by the browser tests: where Chromium is, whether they run, and the built web app (rebuilt when its sources changed). */

const ROOT = path.resolve(import.meta.dirname, '..', '..');
// The app's sources, and the server modules it takes its enumerations and answer shapes from.
const WEB_SOURCES = [path.join(ROOT, 'web'), path.join(ROOT, 'src', 'domain'), path.join(ROOT, 'src', 'presenters'), path.join(ROOT, 'src', 'mail')];
const WEB_BUILD = path.join(ROOT, 'dist', 'web');
export const SCREENSHOTS = path.join(ROOT, 'docs', 'screenshots');
export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

/** Why the browser tests of `file` are skipped (noticed once), or null when they run. */
export function browserTestsSkipped(file: string): string | null {
  const skip =
    testDialect !== 'sqlite'
      ? 'the browser tests run in the SQLite pass only (the API suites cover PostgreSQL)'
      : !fs.existsSync(CHROMIUM)
        ? `no Chromium at ${CHROMIUM} (install it, e.g. apt-get install chromium, or set CHROMIUM_PATH)`
        : null;
  if (skip) console.log(`NOTICE: ${file} skipped: ${skip}`);
  return skip;
}

/** Newest modification time of any file under dir. */
function newestMtime(dir: string): number {
  let newest = 0;
  for (const entry of fs.readdirSync(dir, { withFileTypes: true, recursive: true })) {
    if (entry.isFile()) newest = Math.max(newest, fs.statSync(path.join(entry.parentPath, entry.name)).mtimeMs);
  }
  return newest;
}

/**
 * The tests need the built app (dist/web). `npm ci` builds it; after editing web/ a stale bundle
 * must not be tested, so rebuild when any source is newer than dist/web/index.html. The build goes
 * to a temporary directory first and then replaces dist/web, so a concurrent run never sees half of one.
 */
export async function ensureFreshBuild(): Promise<void> {
  const index = path.join(WEB_BUILD, 'index.html');
  if (fs.existsSync(index) && fs.statSync(index).mtimeMs >= Math.max(...WEB_SOURCES.map(newestMtime))) return;
  console.log('NOTICE: building the web app (dist/web is missing or older than web/)');
  const tmp = `${WEB_BUILD}.tmp-${process.pid}`;
  const old = `${WEB_BUILD}.old-${process.pid}`;
  try {
    const vite = path.join(ROOT, 'node_modules', 'vite', 'bin', 'vite.js');
    await promisify(execFile)(process.execPath, [vite, 'build', '--config', 'web/vite.config.ts', '--outDir', tmp, '--emptyOutDir', '--logLevel', 'warn'], { cwd: ROOT });
    if (fs.existsSync(WEB_BUILD)) fs.renameSync(WEB_BUILD, old);
    try {
      fs.renameSync(tmp, WEB_BUILD);
    } catch (err) {
      // Another run put its own fresh build in place meanwhile: use that one.
      if ((err as NodeJS.ErrnoException).code !== 'ENOTEMPTY' && (err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    }
  } finally {
    fs.rmSync(tmp, { recursive: true, force: true });
    fs.rmSync(old, { recursive: true, force: true });
  }
}

