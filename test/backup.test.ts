/**
 * `npm run cli -- backup <dir>` while uploads run, then `restore` into a fresh data directory: the
 * restored service finds every record's file intact. SQLite only (PostgreSQL is backed up with
 * pg_dump): on PostgreSQL the command refuses and says so.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { loadConfig } from '../src/config.js';
import { startService } from '../src/service.js';
import { Client, freePort, startTestService } from './helpers/service.js';

const root = path.resolve(import.meta.dirname, '..');

/** The command line, run as its own process (as an operator runs it beside the service). */
function cli(args: string[], env: Record<string, string>): Promise<{ status: number | null; output: string }> {
  const childEnv: Record<string, string | undefined> = { ...process.env };
  for (const name of ['DATABASE_URL', 'DATABASE_SCHEMA', 'STORAGE_DRIVER', 'NODE_OPTIONS']) delete childEnv[name];
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'src/cli.ts', ...args], { cwd: root, env: { ...childEnv, ...env } });
    let output = '';
    child.stdout.on('data', (d) => (output += d));
    child.stderr.on('data', (d) => (output += d));
    child.on('close', (status) => resolve({ status, output }));
  });
}

test('a backup taken during uploads restores with every record\'s file intact', { timeout: 180_000 }, async () => {
  const svc = await startTestService();
  const backupDir = fs.mkdtempSync(path.join(os.tmpdir(), 'print-orders-backup-'));
  const restoredDir = fs.mkdtempSync(path.join(os.tmpdir(), 'print-orders-restored-'));
  try {
    const database = svc.deps.config.database;
    if (database.dialect === 'postgres') {
      const refused = await cli(['backup', path.join(backupDir, 'b')], { DATA_DIR: svc.dataDir, DATABASE_URL: database.url, DATABASE_SCHEMA: database.schema ?? '' });
      assert.equal(refused.status, 1);
      assert.match(refused.output, /PostgreSQL: back it up with pg_dump/);
      assert.deepEqual(fs.readdirSync(backupDir), [], 'nothing written');
      return;
    }
    const env = { DATA_DIR: svc.dataDir, DATABASE_URL: `file:${database.file}` };
    const { user, client } = await svc.signIn('ADMIN');
    const project = await svc.createProject(user.id, { status: 'APPROVED', piStatus: 'VERIFIED' });
    const contents = new Map<string, string>();
    let uploading = true;
    let n = 0;
    const upload = async () => {
      const name = `doc-${++n}.pdf`;
      const body = `%PDF-1.4\n% ${name}\n${'x'.repeat(50_000 + n)}`;
      contents.set(name, body);
      const res = await client.upload([
        ['projectId', project.id],
        ['fileType', 'PO'],
        ['file', { data: body, filename: name, type: 'application/pdf' }],
      ]);
      assert.equal(res.status, 201, res.text);
    };
    for (let i = 0; i < 5; i++) await upload();
    // Four clients uploading without pause while the backup runs.
    const uploaders = Array.from({ length: 4 }, async () => {
      while (uploading) await upload();
    });
    const made = await cli(['backup', path.join(backupDir, 'b')], env);
    uploading = false;
    await Promise.all(uploaders);
    assert.equal(made.status, 0, made.output);
    assert.match(made.output, /Backed up the database and \d+ file\(s\)/);
    assert.ok(n > 5, 'uploads went on during the backup');

    // A second backup into a directory that is not empty is refused.
    const again = await cli(['backup', path.join(backupDir, 'b')], env);
    assert.equal(again.status, 1);
    assert.match(again.output, /is not empty/);

    const port = await freePort();
    const restoredEnv = { DATA_DIR: restoredDir, DATABASE_URL: `file:${path.join(restoredDir, 'app.db')}` };
    const put = await cli(['restore', path.join(backupDir, 'b')], restoredEnv);
    assert.equal(put.status, 0, put.output);

    const restored = await startService(loadConfig({ ...restoredEnv, PORT: String(port), PUBLIC_URL: `http://127.0.0.1:${port}`, LOG_LEVEL: 'silent' }));
    try {
      const admin = new Client(`http://127.0.0.1:${port}`);
      const restoredUser = await restored.deps.store.users.findById(user.id);
      assert.ok(restoredUser, 'the restored database has the users');
      // Sign in with a fresh password set in the restored database, as an operator could.
      const reset = await cli(['reset-password', '--email', restoredUser.email, '--password', 'restored-pw'], restoredEnv);
      assert.equal(reset.status, 0, reset.output);
      assert.equal((await admin.post('/api/auth/login', { email: restoredUser.email, password: 'restored-pw' })).status, 200);
      const detail = (await admin.get(`/api/projects/${project.id}`)).body as { files: { url: string; filename: string; size: number }[] };
      assert.ok(detail.files.length >= 5, `${detail.files.length} records restored`);
      // The records keep the address they were made with: read each file from the restored service.
      await svc.close();
      for (const f of detail.files) {
        const res = await fetch(new URL(new URL(f.url).pathname, admin.baseUrl));
        assert.equal(res.status, 200, f.url);
        assert.equal(await res.text(), contents.get(f.filename), `${f.filename} intact`);
      }
    } finally {
      await restored.close();
    }
  } finally {
    await svc.close();
    fs.rmSync(backupDir, { recursive: true, force: true });
    fs.rmSync(restoredDir, { recursive: true, force: true });
  }
});
