import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import path from 'node:path';
import { test } from 'node:test';
import { promisify } from 'node:util';
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
