/**
 * Issue 39, item 4: a crashed instance's work resumes at once. Two instances on one PostgreSQL
 * schema; the first claims a webhook delivery and an email and is killed (SIGKILL) while the
 * receiver and the SMTP server hold them, unanswered. The second takes both over within a lease
 * (WORK_LEASE_MS, default 10 s, kept alive by its holder's heartbeat while it lives) and delivers
 * them: each arrives once more (at least once: the first attempt was cut mid-flight), and no more.
 */
import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import { SMTPServer } from 'smtp-server';
import { type ServiceProcess, spawnService } from './helpers/child-service.js';
import { eventually } from './helpers/eventually.js';
import { Client, freePort, testConfig } from './helpers/service.js';
import { type Receiver, startReceiver } from './helpers/webhook-receiver.js';

const PG_URL = process.env.TEST_DATABASE_URL;
const skip = PG_URL ? false : 'TEST_DATABASE_URL not set: two instances share one PostgreSQL schema';
if (skip) console.log(`NOTICE: ${skip}, so the lease takeover test is skipped.`);

const ADMIN = { ADMIN_EMAIL: 'admin@example.com', ADMIN_PASSWORD: 'admin-password' };
/** The default lease (config.ts, WORK_LEASE_MS) and the bound the takeover must meet: a lease, a poll, and room for a loaded machine. */
const LEASE_MS = 10_000;
const TAKEOVER_BOUND_MS = LEASE_MS + 5_000;

/** An SMTP server that holds the first message it is sent (never answers its DATA) and accepts the rest. */
async function holdingSmtp(): Promise<{ url: string; subjects: string[]; close(): Promise<void> }> {
  const port = await freePort();
  const subjects: string[] = [];
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS', 'AUTH'],
    logger: false,
    onData(stream, _session, cb) {
      const chunks: Buffer[] = [];
      stream.on('data', (c: Buffer) => chunks.push(c));
      stream.on('end', () => {
        subjects.push(/^Subject: (.*)$/m.exec(Buffer.concat(chunks).toString('utf8'))?.[1] ?? '');
        if (subjects.length > 1) cb();
      });
    },
  });
  server.on('error', () => {});
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  return { url: `smtp://127.0.0.1:${port}`, subjects, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}

const toClose: (() => Promise<unknown>)[] = [];
after(async () => {
  for (const c of toClose.reverse()) await c().catch(() => {});
});

test('kill -9 during a webhook delivery and an email: the other instance delivers both within a lease, once more each', { skip, timeout: 120_000 }, async () => {
  // The first request is held (the instance dies before the answer); the next ones are answered.
  let held = 0;
  const receiver: Receiver = await startReceiver(() => (++held === 1 ? { status: 200, delayMs: 600_000 } : { status: 200 }));
  toClose.push(() => receiver.close());
  const smtp = await holdingSmtp();
  toClose.push(() => smtp.close());
  const env = { ...ADMIN, WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true', WEBHOOK_POLL_MS: '100', WEBHOOK_TIMEOUT_MS: '60000', SMTP_URL: smtp.url, MAIL_FROM: 'Print shop <orders@shop.example>', MAIL_BATCH_SECONDS: '0', MAIL_POLL_MS: '100' };

  const a = await testConfig({ env, postgresUrl: PG_URL });
  toClose.push(a.cleanup);
  const first: ServiceProcess = await spawnService(a.env, { startTimeoutMs: 90_000 });
  toClose.push(() => first.stop());
  const admin = new Client(first.url);
  assert.equal((await admin.post('/api/auth/login', { email: ADMIN.ADMIN_EMAIL, password: ADMIN.ADMIN_PASSWORD })).status, 200);
  // A second admin, told of the new project by email.
  const other = await admin.post('/api/team', { name: 'Other admin', email: 'other-admin@example.com', password: 'other-password', role: 'ADMIN' });
  assert.equal(other.status, 201, other.text);
  const hook = await admin.post('/api/webhooks', { url: receiver.url, events: ['project.created'], description: 'takeover' });
  assert.equal(hook.status, 201, hook.text);
  assert.equal((await admin.post('/api/projects', { name: 'Held twice' })).status, 201);

  // The first instance is the only one running: both are in its hands, unanswered.
  await eventually('the delivery is held by the receiver', () => receiver.received.length === 1, 10_000);
  await eventually('the email is held by the SMTP server', () => smtp.subjects.length === 1, 10_000);

  const b = await testConfig({ env, sharedDatabase: a.config.database });
  toClose.push(b.cleanup);
  const second = await spawnService(b.env, { startTimeoutMs: 90_000 });
  toClose.push(() => second.stop());
  // Longer than a lease with the first one alive: its heartbeat keeps what it holds.
  await new Promise((r) => setTimeout(r, LEASE_MS + 2_000));
  assert.equal(receiver.received.length, 1, 'a live holder keeps its delivery past the lease (heartbeat)');
  assert.equal(smtp.subjects.length, 1, 'a live holder keeps its email past the lease (heartbeat)');

  first.child.kill('SIGKILL');
  await first.exited;
  const killedAt = Date.now();
  await eventually('the delivery is taken over', () => receiver.received.length === 2, TAKEOVER_BOUND_MS);
  const webhookAfterMs = Date.now() - killedAt;
  await eventually('the email is taken over', () => smtp.subjects.length === 2, TAKEOVER_BOUND_MS);
  const mailAfterMs = Date.now() - killedAt;
  console.log(`# taken over after the kill: webhook ${webhookAfterMs} ms, email ${mailAfterMs} ms (lease ${LEASE_MS} ms)`);

  assert.equal(receiver.received[1]!.headers['webhook-id'], receiver.received[0]!.headers['webhook-id'], 'the same event, sent again');
  assert.equal(smtp.subjects[1], smtp.subjects[0], 'the same email, sent again');
  const onSecond = new Client(second.url);
  assert.equal((await onSecond.post('/api/auth/login', { email: ADMIN.ADMIN_EMAIL, password: ADMIN.ADMIN_PASSWORD })).status, 200);
  await eventually('the delivery is recorded as delivered', async () => {
    const items = (await onSecond.get(`/api/webhooks/${hook.body.id}/deliveries`)).body.items as { status: string; attempts: number }[];
    return items.length === 1 && items[0]!.status === 'delivered';
  });
  // Nothing more: at least once, not again and again.
  await new Promise((r) => setTimeout(r, 1_500));
  assert.equal(receiver.received.length, 2);
  assert.equal(smtp.subjects.length, 2);
});
