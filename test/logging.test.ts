import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { type RunningService, startService } from '../src/service.js';
import { eventuallyPasses } from './helpers/eventually.js';
import { captureLogs } from './helpers/logs.js';
import { Client, testConfig } from './helpers/service.js';

/** What the service writes to its log at the most verbose level: request ids, never a password, cookie or token. */

const log = captureLogs('trace');
let running: RunningService;
let cleanup: () => Promise<void>;
let url: string;
const password = 'Sup3r-secret-passphrase';

before(async () => {
  const made = await testConfig({ env: { ADMIN_EMAIL: 'log-admin@example.com', ADMIN_PASSWORD: password } });
  cleanup = made.cleanup;
  running = await startService(made.config, { log: log.logger });
  url = `http://127.0.0.1:${made.config.port}`;
});
after(async () => {
  await running.close();
  await cleanup();
});

test('trace logs carry request ids but no password, session cookie, token or hash', async () => {
  const admin = new Client(url);
  assert.equal((await admin.post('/api/auth/login', { email: 'log-admin@example.com', password })).status, 200);
  const token = admin.cookie!.split('=')[1]!;
  await new Client(url).post('/api/auth/login', { email: 'log-admin@example.com', password: `${password}-wrong` });
  assert.equal((await admin.post('/api/team', { name: 'Logged', email: 'logged@example.com', password })).status, 201);
  await admin.request('POST', '/api/team', { body: `{"password":"${password}"`, headers: { 'content-type': 'application/json' } }); // a logged 500
  assert.equal((await admin.get('/api/team')).status, 200);

  const text = log.text.join('\n');
  assert.ok(log.lines.length > 10, 'the service logged its requests');
  assert.ok(log.lines.some((l) => l.reqId), 'lines carry the request id');
  assert.ok(log.lines.some((l) => l.level === 50), 'the failed request was logged as an error');
  assert.ok(!text.includes(password), 'no password in the log');
  assert.ok(!text.includes(token), 'no session token in the log');
  assert.doesNotMatch(text, /\$2[aby]\$\d\d\$/, 'no bcrypt hash in the log');
});

test('what an action logs about a request carries that request’s id, even after the answer', async () => {
  const admin = new Client(url);
  assert.equal((await admin.post('/api/auth/login', { email: 'log-admin@example.com', password })).status, 200);

  // The reset email goes out after the answer; the action logs its outcome through the request's logger.
  const asked = await new Client(url).post('/api/auth/forgot-password', { email: 'log-admin@example.com' });
  assert.equal(asked.status, 202);
  const sent = await eventuallyPasses(() => {
    const line = log.lines.find((l) => l.msg === 'password reset email sent');
    assert.ok(line, 'the email was logged');
    return line;
  });
  assert.equal(sent.reqId, asked.headers.get('x-request-id'));

  // A sign-out whose end cannot reach the open streams (the broker is gone) is answered, and logged with its request's id.
  await running.deps.realtime.close();
  const out = await admin.post('/api/auth/logout');
  assert.equal(out.status, 204);
  const unannounced = log.lines.find((l) => l.msg === 'the end of the session was not announced to its streams');
  assert.ok(unannounced, 'the failed signal was logged');
  assert.equal(unannounced.level, 40);
  assert.equal(unannounced.reqId, out.headers.get('x-request-id'));
  assert.match(unannounced.err?.message ?? '', /^The realtime broker is closed/);
});

test('request lines never carry a reset token, a proof link’s token or any token= in a query (issue 33, item 13)', async () => {
  const secret = 'Zz9-live-credential-0123456789abcdef';
  const client = new Client(url);
  await client.get(`/reset-password?token=${secret}`);
  await client.get(`/api/auth/reset-password?token=${secret}`);
  await client.get(`/proofs/${secret}`);
  await client.get(`/proofs/${secret}/approve`);
  await client.get(`/api/proof-links/${secret}`);
  await client.get(`/api/projects?token=${secret}&q=kept`);
  await client.get(`/api/projects?access_token=${secret}`);
  await eventuallyPasses(() => {
    const urls = log.lines.map((l) => (l.req as { url?: string } | undefined)?.url).filter(Boolean);
    assert.ok(urls.includes('/reset-password?[redacted]'), 'the reset link was logged, redacted');
    assert.ok(urls.includes('/proofs/[redacted]/approve'), 'the proof link was logged, redacted');
    assert.ok(urls.includes('/api/proof-links/[redacted]'));
    assert.ok(urls.includes('/api/projects?token=[redacted]&q=kept'), 'the rest of the query is kept');
  });
  assert.ok(!log.text.join('\n').includes(secret), 'the secret is nowhere in the log');
});
