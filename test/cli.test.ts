import assert from 'node:assert/strict';
import { execFile, execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { promisify } from 'node:util';
import { describeDatabase } from '../src/config.js';
import { startService } from '../src/service.js';
import { testConfig } from './helpers/service.js';

const ROOT = path.resolve(import.meta.dirname, '..');

/** npm run cli -- …, on a fresh database of the current dialect: exit code and output. */
async function cli(env: Record<string, string>, ...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await promisify(execFile)(process.execPath, ['--import', 'tsx', path.join(ROOT, 'src', 'cli.ts'), ...args], {
      cwd: ROOT,
      env: { ...process.env, ...env },
      timeout: 60_000,
    });
    return { code: 0, stdout, stderr };
  } catch (err) {
    const e = err as { code: number; stdout: string; stderr: string };
    return { code: e.code, stdout: e.stdout, stderr: e.stderr };
  }
}

test('the CLI asks new passwords for at least 8 characters, unlike the specification’s POST /api/team', async () => {
  const { env, cleanup } = await testConfig();
  try {
    const user = ['--email', 'cli@example.com', '--name', 'Cli User', '--role', 'ADMIN'];
    const weak = await cli(env, 'create-user', ...user, '--password', 'short');
    assert.equal(weak.code, 1);
    assert.match(weak.stderr, /^Error: Password must be at least 8 characters$/m);
    const ok = await cli(env, 'create-user', ...user, '--password', 'long-enough');
    assert.equal(ok.code, 0, ok.stderr);
    assert.match(ok.stdout, /^Created ADMIN cli@example\.com/m);
    const reset = await cli(env, 'reset-password', '--email', 'cli@example.com', '--password', '1234567');
    assert.equal(reset.code, 1);
    assert.match(reset.stderr, /^Error: Password must be at least 8 characters$/m);
  } finally {
    await cleanup();
  }
});

test('create-token prints a token once, on stdout, that authenticates as the user; bad arguments exit 1', async () => {
  const { env, config, cleanup } = await testConfig();
  try {
    assert.equal((await cli(env, 'create-user', '--email', 'bot@example.com', '--name', 'Bot Owner', '--password', 'long-enough')).code, 0);
    const made = await cli(env, 'create-token', 'bot@example.com', 'ERP sync', '--scope', 'write', '--expires-in-days', '30');
    assert.equal(made.code, 0, made.stderr);
    const token = made.stdout.trim();
    assert.match(token, /^pos_[0-9A-Za-z]{32,}$/, 'stdout is the token alone');
    assert.match(made.stderr, /Created write token "ERP sync" for bot@example\.com .*expires .*shown only now/);
    for (const [args, message] of [
      [['nobody@example.com', 'x'], /No active user with email nobody@example\.com/],
      [['bot@example.com'], /create-token needs an email and a name/],
      [['bot@example.com', 'x', '--scope', 'admin'], /Scope must be read or write/],
      [['bot@example.com', 'x', '--expires-in-days', '0'], /Expires in days must be a whole number from 1 to 3650/],
      [['bot@example.com', 'x', '--expires-in-days', 'soon'], /--expires-in-days must be a whole number/],
    ] as const) {
      const res = await cli(env, 'create-token', ...args);
      assert.equal(res.code, 1, res.stderr);
      assert.match(res.stderr, message);
    }
    const running = await startService(config);
    try {
      const res = await fetch(`${running.url}/api/auth/session`, { headers: { authorization: `Bearer ${token}` } });
      assert.equal(res.status, 200);
      assert.equal(((await res.json()) as { user: { email: string } }).user.email, 'bot@example.com');
      const read = await fetch(`${running.url}/api/account/tokens`, { headers: { authorization: `Bearer ${token}` } });
      const [listed] = (await read.json()) as { name: string; scope: string }[];
      assert.deepEqual([listed?.name, listed?.scope], ['ERP sync', 'write']);
    } finally {
      await running.close();
    }
  } finally {
    await cleanup();
  }
});

/** The CLI run from `cwd` with the runner's environment but none of the service's database settings: only what `env` and cwd's .env say. */
async function cliIn(cwd: string, env: Record<string, string>, ...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  const childEnv: Record<string, string | undefined> = { ...process.env };
  for (const name of ['DATA_DIR', 'DATABASE_URL', 'DATABASE_SCHEMA', 'PORT', 'HOST', 'PUBLIC_URL']) delete childEnv[name];
  try {
    const { stdout, stderr } = await promisify(execFile)(process.execPath, ['--import', import.meta.resolve('tsx'), path.join(ROOT, 'src', 'cli.ts'), ...args], {
      cwd,
      env: { ...childEnv, ...env },
      timeout: 60_000,
    });
    return { code: 0, stdout, stderr };
  } catch (err) {
    const e = err as { code: number; stdout: string; stderr: string };
    return { code: e.code, stdout: e.stdout, stderr: e.stderr };
  }
}

/** Signs in to a service on this configuration: the answer's status. */
async function signInStatus(config: Awaited<ReturnType<typeof testConfig>>['config'], email: string, password: string): Promise<number> {
  const running = await startService(config);
  try {
    const res = await fetch(`${running.url}/api/auth/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email, password }) });
    return res.status;
  } finally {
    await running.close();
  }
}

test('create-user reads the service’s .env (its DATA_DIR or DATABASE_URL), says which database it wrote to, and that admin signs in (issue 33, item 9)', async () => {
  const { env, config, cleanup } = await testConfig();
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'print-orders-cli-'));
  try {
    fs.writeFileSync(path.join(dir, '.env'), Object.entries(env).map(([k, v]) => `${k}=${v}`).join('\n') + '\n');
    const made = await cliIn(dir, {}, 'create-user', '--email', 'first-admin@example.com', '--name', 'First Admin', '--role', 'ADMIN', '--password', 'long-enough');
    assert.equal(made.code, 0, made.stderr);
    assert.equal(made.stdout.trim().split('\n').length, 1);
    assert.match(made.stdout, new RegExp(`^Created ADMIN first-admin@example\\.com \\(id [^)]+\\) in ${escape(describeDatabase(config.database))} \\(settings from the environment and ${escape(path.join(fs.realpathSync(dir), '.env'))}\\)\\.$`, 'm'));
    assert.ok(!made.stdout.includes('long-enough') && !made.stderr.includes('long-enough'), 'the password is never printed');
    if (config.database.dialect === 'sqlite') assert.match(made.stderr, /^Note: there was no database at .*app\.db; a new, empty one was made\. If the service runs with another DATA_DIR or DATABASE_URL/m);
    assert.equal(await signInStatus(config, 'first-admin@example.com', 'long-enough'), 200);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
    await cleanup();
  }
});

const escape = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

test('create-user without --password and no terminal to ask at: a clear error, nothing written (issue 33, item 9)', async () => {
  const { env, config, cleanup } = await testConfig();
  try {
    const res = await cliIn(ROOT, env, 'create-user', '--email', 'nopass@example.com', '--name', 'No Pass');
    assert.equal(res.code, 1);
    assert.equal(res.stderr.trim(), 'Error: create-user needs a password: give --password, or run it at a terminal to type it without it being shown');
    if (config.database.dialect === 'sqlite') assert.ok(!fs.existsSync(config.database.file), 'no database made');
    assert.equal(await signInStatus(config, 'nopass@example.com', 'anything-at-all'), 401);
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

test('create-user at a terminal asks for the password twice and never shows it (issue 33, item 9)', { skip: hasScript ? false : 'needs util-linux script(1) for a terminal' }, async () => {
  const { env, config, cleanup } = await testConfig();
  try {
    const secret = 'typed-at-the-terminal';
    const command = [process.execPath, '--import', import.meta.resolve('tsx'), path.join(ROOT, 'src', 'cli.ts'), 'create-user', '--email', 'tty@example.com', '--name', 'Tty Admin', '--role', 'ADMIN']
      .map((a) => `'${a}'`)
      .join(' ');
    // script(1) runs the CLI on a pseudo-terminal: what it shows is what a person at one would see.
    const child = spawn('script', ['-qefc', command, '/dev/null'], { cwd: ROOT, env: { ...process.env, ...env }, stdio: ['pipe', 'pipe', 'pipe'] });
    let shown = '';
    const answered = new Set<string>();
    child.stdout.on('data', (chunk: Buffer) => {
      shown += chunk.toString();
      for (const question of ['Password (not shown): ', 'The same password again: ']) {
        if (shown.includes(question) && !answered.has(question)) {
          answered.add(question);
          child.stdin.write(`${secret}\r`);
        }
      }
    });
    const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
    assert.equal(code, 0, shown);
    assert.deepEqual([...answered], ['Password (not shown): ', 'The same password again: ']);
    assert.match(shown, /Created ADMIN tty@example\.com/);
    assert.ok(!shown.includes(secret), `the password was shown: ${shown}`);
    assert.equal(await signInStatus(config, 'tty@example.com', secret), 200);
  } finally {
    await cleanup();
  }
});
