#!/usr/bin/env node
// npm test: type check, lint, then the whole suite on SQLite and, when TEST_DATABASE_URL is set, again on PostgreSQL.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';

const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..');
const only = process.argv.slice(2); // npm test -- test/upload.test.ts runs just those files

function run(label, cmd, args, env = {}) {
  console.log(`\n=== ${label}`);
  const result = spawnSync(cmd, args, { cwd: root, stdio: 'inherit', env: { ...process.env, ...env } });
  if (result.status !== 0) {
    console.error(`\n${label} failed`);
    process.exit(result.status ?? 1);
  }
}

function testFiles() {
  if (only.length) return only;
  const found = [];
  const walk = (dir) => {
    for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
      const p = path.join(dir, entry.name);
      if (entry.isDirectory()) walk(p);
      else if (entry.name.endsWith('.test.ts')) found.push(path.relative(root, p));
    }
  };
  walk(path.join(root, 'src'));
  walk(path.join(root, 'test'));
  return found.sort();
}

const totals = { pass: 0, fail: 0, skipped: 0 };
function runSuite(label, env) {
  const tap = path.join(os.tmpdir(), `print-orders-tap-${process.pid}-${label.replace(/\W+/g, '_')}.txt`);
  console.log(`\n=== tests on ${label}`);
  const result = spawnSync(
    process.execPath,
    ['--import', 'tsx', '--test', '--test-reporter=spec', '--test-reporter-destination=stdout', '--test-reporter=tap', `--test-reporter-destination=${tap}`, ...testFiles()],
    { cwd: root, stdio: 'inherit', env: { ...process.env, ...env } },
  );
  const summary = fs.existsSync(tap) ? fs.readFileSync(tap, 'utf8') : '';
  fs.rmSync(tap, { force: true });
  const count = (name) => Number(new RegExp(`^# ${name} (\\d+)$`, 'm').exec(summary)?.[1] ?? 0);
  totals.pass += count('pass');
  totals.fail += count('fail');
  totals.skipped += count('skipped');
  if (result.status !== 0) {
    console.error(`\ntests on ${label} failed`);
    console.log(`\n${totals.pass} passed, ${Math.max(totals.fail, 1)} failed`);
    process.exit(result.status ?? 1);
  }
}

if (!only.length) {
  run('type check (tsc --noEmit)', process.execPath, [path.join(root, 'node_modules/typescript/bin/tsc'), '--noEmit', '-p', root]);
  run('type check the web app (tsc -p web)', process.execPath, [path.join(root, 'node_modules/typescript/bin/tsc'), '--noEmit', '-p', path.join(root, 'web')]);
  run('lint (eslint)', process.execPath, [path.join(root, 'node_modules/eslint/bin/eslint.js'), root]);
}

runSuite('SQLite', { TEST_DB: 'sqlite' });

const pgUrl = process.env.TEST_DATABASE_URL;
if (!pgUrl) {
  console.log('\nNOTICE: TEST_DATABASE_URL is not set, so the PostgreSQL pass is skipped (CI sets it; see README).');
} else {
  const client = new pg.Client({ connectionString: pgUrl, connectionTimeoutMillis: 5000 });
  try {
    await client.connect();
    await client.end();
  } catch (err) {
    console.error(`\nPostgreSQL at TEST_DATABASE_URL is unreachable: ${err.message}`);
    process.exit(1);
  }
  runSuite('PostgreSQL', { TEST_DB: 'postgres' });
}

if (!process.env.REDIS_URL && !only.length) {
  console.log('\nNOTICE: REDIS_URL is not set, so the Redis realtime tests were skipped (CI sets it; see README).');
}
console.log(`\n${totals.pass} passed, ${totals.fail} failed, ${totals.skipped} skipped`);
