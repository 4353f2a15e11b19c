/** `npm run cli -- send-test-email <address>`: one email through the configured transport, to check the settings. */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { promisify } from 'node:util';
import { type TestSmtpServer, startSmtpServer } from './helpers/smtp.js';

const root = path.resolve(import.meta.dirname, '..');
const run = (args: string[], env: Record<string, string>) =>
  promisify(execFile)(process.execPath, ['--import', 'tsx', 'src/cli.ts', ...args], { cwd: root, env: { PATH: process.env.PATH ?? '', ...env }, timeout: 60_000 });

let smtp: TestSmtpServer;
let dataDir: string;
before(async () => {
  smtp = await startSmtpServer();
  dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'print-orders-cli-'));
});
after(async () => {
  await smtp?.stop();
  fs.rmSync(dataDir, { recursive: true, force: true });
});

test('send-test-email through SMTP_URL: the SMTP server receives it', async () => {
  const { stdout } = await run(['send-test-email', 'ops@example.com'], { DATA_DIR: dataDir, SMTP_URL: smtp.url, MAIL_FROM: 'Shop <shop@example.com>', PUBLIC_URL: 'https://orders.example' });
  assert.match(stdout, /^Sent to ops@example\.com through smtp: 250/);
  const [mail] = smtp.to('ops@example.com');
  assert.equal(mail?.subject, 'Test email from the print-order service');
  assert.equal(mail?.from, '"Shop" <shop@example.com>');
  assert.match(mail?.text ?? '', /https:\/\/orders\.example \(transport: smtp\)/);
});

test('send-test-email without SMTP_URL writes the .eml file and says where; a refused send exits 1 with the reason', async () => {
  const { stdout } = await run(['send-test-email', 'ops@example.com'], { DATA_DIR: dataDir });
  const file = /written to (.+\.eml)$/m.exec(stdout)?.[1];
  assert.ok(file && fs.existsSync(file) && file.startsWith(path.join(dataDir, 'mail')), stdout);
  assert.match(fs.readFileSync(file, 'utf8'), /^Subject: Test email from the print-order service$/m);

  await assert.rejects(run(['send-test-email', 'ops@example.com'], { DATA_DIR: dataDir, SMTP_URL: smtp.url.replace('secret-pass', 'wrong') }), (err: { code: number; stderr: string }) => {
    assert.equal(err.code, 1);
    assert.match(err.stderr, /^Error: .*(auth|Invalid)/im);
    return true;
  });
  await assert.rejects(run(['send-test-email'], { DATA_DIR: dataDir }), /send-test-email needs one email address/);
});
