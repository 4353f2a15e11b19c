/**
 * The service's log as a newcomer and a log collector meet it (issue 33, item 9): JSON lines when
 * standard output is not a terminal, pretty human lines when it is (or LOG_FORMAT=pretty).
 */
import assert from 'node:assert/strict';
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import path from 'node:path';
import { test } from 'node:test';
import { testConfig } from './helpers/service.js';

/** The text without its terminal colour codes. */
const withoutColours = (text: string) => text.replace(new RegExp(`${String.fromCharCode(27)}\\[[0-9;]*m`, 'g'), '');

const ROOT = path.resolve(import.meta.dirname, '..');
const MAIN = [process.execPath, '--import', import.meta.resolve('tsx'), path.join(ROOT, 'src', 'main.ts')];

/** Runs the service with `env` until its ready line has been written and one request logged; what it wrote to stdout. */
async function runUntilReady(env: Record<string, string>, wrap?: (argv: string[]) => string[]): Promise<string> {
  const argv = wrap ? wrap(MAIN) : MAIN;
  const childEnv: Record<string, string | undefined> = { ...process.env, ...env, LOG_LEVEL: 'info' };
  delete childEnv.NODE_OPTIONS;
  const child: ChildProcess = spawn(argv[0]!, argv.slice(1), { cwd: ROOT, env: childEnv, stdio: ['pipe', 'pipe', 'inherit'] });
  let out = '';
  child.stdout!.on('data', (chunk: Buffer) => (out += chunk.toString()));
  const exited = new Promise((resolve) => child.once('exit', resolve));
  try {
    const deadline = Date.now() + 60_000;
    while (!out.includes('ready at')) {
      if (Date.now() > deadline || child.exitCode !== null) throw new Error(`the service did not start: ${out}`);
      await new Promise((r) => setTimeout(r, 100));
    }
    await fetch(`http://127.0.0.1:${env.PORT}/healthz`);
    await new Promise((r) => setTimeout(r, 300));
    return out;
  } finally {
    child.kill('SIGTERM');
    await exited;
  }
}

test('standard output not a terminal: one JSON object per line, the ready line saying which database (issue 33, item 9)', async () => {
  const { env, config, cleanup } = await testConfig();
  try {
    const out = await runUntilReady({ ...env, LOG_FORMAT: 'auto' });
    const lines = out.trim().split('\n');
    const parsed = lines.map((l) => JSON.parse(l) as { level: number; msg: string });
    assert.ok(parsed.every((l) => typeof l.level === 'number' && typeof l.msg === 'string'), out);
    const ready = parsed.find((l) => l.msg.includes('ready at'))!;
    assert.match(ready.msg, config.database.dialect === 'sqlite' ? /\(database: SQLite \/.*app\.db, storage: local/ : /\(database: PostgreSQL .*, schema test_/);
    assert.ok(parsed.some((l) => l.msg === 'request completed'), 'requests logged');
  } finally {
    await cleanup();
  }
});

test('LOG_FORMAT=pretty: human lines with a time and a level, not JSON', async () => {
  const { env, cleanup } = await testConfig();
  try {
    const out = await runUntilReady({ ...env, LOG_FORMAT: 'pretty' });
    const plain = withoutColours(out);
    assert.match(plain, /^\[\d{2}:\d{2}:\d{2}\.\d{3}\] INFO: Print-order service ready at /m);
    assert.throws(() => JSON.parse(plain.split('\n')[0]!));
  } finally {
    await cleanup();
  }
});

const hasScript = (() => {
  try {
    execFileSync('script', ['--version'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
})();

test('standard output a terminal (LOG_FORMAT unset): pretty lines', { skip: hasScript ? false : 'needs util-linux script(1) for a terminal' }, async () => {
  const { env, cleanup } = await testConfig();
  try {
    const out = await runUntilReady({ ...env, LOG_FORMAT: '' }, (argv) => ['script', '-qefc', argv.map((a) => `'${a}'`).join(' '), '/dev/null']);
    assert.match(withoutColours(out), /^\[\d{2}:\d{2}:\d{2}\.\d{3}\] INFO: Print-order service ready at /m);
  } finally {
    await cleanup();
  }
});
