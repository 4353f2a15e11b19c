#!/usr/bin/env node
// npm test: type check, lint, then the whole suite on SQLite and, when TEST_DATABASE_URL is set, again on PostgreSQL.
import { spawn, spawnSync } from 'node:child_process';
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

/**
 * One pass of the suite (files one after another, as node --test does on two cores), its spec
 * output kept in a file so that two passes can run side by side and still print one after the other.
 */
function startSuite(label, env) {
  const stem = path.join(os.tmpdir(), `print-orders-test-${process.pid}-${label.replace(/\W+/g, '_')}`);
  const tap = `${stem}.tap`;
  const out = `${stem}.out`;
  const fd = fs.openSync(out, 'w');
  const started = Date.now();
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', '--test', '--test-reporter=spec', '--test-reporter-destination=stdout', '--test-reporter=tap', `--test-reporter-destination=${tap}`, ...testFiles()],
    { cwd: root, stdio: ['ignore', fd, fd], env: { ...process.env, ...env } },
  );
  return new Promise((resolve) => {
    child.on('close', (status) => {
      fs.closeSync(fd);
      const summary = fs.existsSync(tap) ? fs.readFileSync(tap, 'utf8') : '';
      const count = (name) => Number(new RegExp(`^# ${name} (\\d+)$`, 'm').exec(summary)?.[1] ?? 0);
      const result = { label, status, out, seconds: Math.round((Date.now() - started) / 1000), pass: count('pass'), fail: count('fail'), skipped: count('skipped') };
      fs.rmSync(tap, { force: true });
      resolve(result);
    });
  });
}

/** Prints a finished pass's output and adds up its counts; the pass's failure ends npm test. */
function report(result) {
  console.log(`\n=== tests on ${result.label} (${result.seconds} s)`);
  process.stdout.write(fs.readFileSync(result.out));
  fs.rmSync(result.out, { force: true });
  totals.pass += result.pass;
  totals.fail += result.fail;
  totals.skipped += result.skipped;
  return result.status === 0;
}

if (!only.length) {
  run('type check (tsc --noEmit)', process.execPath, [path.join(root, 'node_modules/typescript/bin/tsc'), '--noEmit', '-p', root]);
  run('type check the web app (tsc -p web)', process.execPath, [path.join(root, 'node_modules/typescript/bin/tsc'), '--noEmit', '-p', path.join(root, 'web')]);
  run('lint (eslint)', process.execPath, [path.join(root, 'node_modules/eslint/bin/eslint.js'), root]);
}

const passes = [{ label: 'SQLite', env: { TEST_DB: 'sqlite' } }];
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
  passes.push({ label: 'PostgreSQL', env: { TEST_DB: 'postgres' } });
}
// The two passes share nothing (each test makes its own data dir, PostgreSQL schema and Redis prefix),
// so they run side by side: on two cores that roughly halves the time. TEST_PASSES_IN_TURN=1 runs them one after the other.
const inTurn = process.env.TEST_PASSES_IN_TURN === '1';
console.log(`\n=== tests on ${passes.map((p) => p.label).join(' and ')}${passes.length > 1 ? (inTurn ? ', one after the other' : ', side by side') : ''}`);
const results = [];
if (inTurn) for (const p of passes) results.push(await startSuite(p.label, p.env));
else results.push(...(await Promise.all(passes.map((p) => startSuite(p.label, p.env)))));
const failed = results.filter((r) => !report(r));
if (failed.length) {
  console.error(`\ntests on ${failed.map((r) => r.label).join(' and ')} failed`);
  console.log(`\n${totals.pass} passed, ${Math.max(totals.fail, 1)} failed`);
  process.exit(1);
}

if (!process.env.REDIS_URL && !only.length) {
  console.log('\nNOTICE: REDIS_URL is not set, so the Redis realtime tests were skipped (CI sets it; see README).');
}
console.log(`\n${totals.pass} passed, ${totals.fail} failed, ${totals.skipped} skipped`);
