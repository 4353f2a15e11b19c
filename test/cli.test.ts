import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import path from 'node:path';
import { test } from 'node:test';
import { promisify } from 'node:util';
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
