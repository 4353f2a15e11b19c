/**
 * Issue 39, item 3: one order across instances. Two instances on one PostgreSQL schema whose clocks
 * differ by 100 ms (CLOCK_OFFSET_MS, src/clock.ts) take uploads in turn, each answered before the
 * next is sent (so the commit order is the order sent), then a burst on both at once. The activity
 * log (GET /api/activity, newest first), an endpoint's webhook deliveries and the realtime replay
 * (Last-Event-ID) must all give the commit order: the event log's position, not either clock. With
 * the clocks' timestamps, every upload on the instance 100 ms ahead sorts after the next one.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { type ServiceProcess, spawnService } from './helpers/child-service.js';
import { eventually } from './helpers/eventually.js';
import { Client, openEventStream, testConfig } from './helpers/service.js';
import { postMultipart } from './helpers/upload.js';
import { type Receiver, startReceiver } from './helpers/webhook-receiver.js';

const PG_URL = process.env.TEST_DATABASE_URL;
const skip = PG_URL ? false : 'TEST_DATABASE_URL not set: two instances share one PostgreSQL schema';
if (skip) console.log(`NOTICE: ${skip}, so the commit-order test is skipped.`);

const ADMIN = { ADMIN_EMAIL: 'admin@example.com', ADMIN_PASSWORD: 'admin-password' };
const ENV = { ...ADMIN, WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true', WEBHOOK_POLL_MS: '30', MAIL_BATCH_SECONDS: '0' };

let ahead: ServiceProcess; // its clock 100 ms ahead
let behind: ServiceProcess;
let onAhead: Client;
let onBehind: Client;
let receiver: Receiver;
const cleanups: (() => Promise<void>)[] = [];

async function signedIn(url: string): Promise<Client> {
  const client = new Client(url);
  const login = await client.post('/api/auth/login', { email: ADMIN.ADMIN_EMAIL, password: ADMIN.ADMIN_PASSWORD });
  assert.equal(login.status, 200, login.text);
  return client;
}

before(async () => {
  if (skip) return;
  receiver = await startReceiver(() => ({ status: 200 }));
  const a = await testConfig({ env: { ...ENV, CLOCK_OFFSET_MS: '100' }, postgresUrl: PG_URL });
  cleanups.push(a.cleanup);
  ahead = await spawnService(a.env);
  const database = a.config.database;
  const b = await testConfig({ env: { ...ENV, CLOCK_OFFSET_MS: '0' }, sharedDatabase: database });
  cleanups.push(b.cleanup);
  behind = await spawnService(b.env);
  [onAhead, onBehind] = await Promise.all([signedIn(ahead.url), signedIn(behind.url)]);
});

after(async () => {
  await Promise.all([ahead?.stop(), behind?.stop()]);
  for (const c of cleanups.reverse()) await c();
  await receiver?.close();
});

const upload = async (client: Client, projectId: string) => {
  const res = await postMultipart(client, [
    { name: 'projectId', value: projectId },
    { name: 'fileType', value: 'PO' },
    { name: 'file', data: `%PDF-1.4\n% ${projectId}\n%%EOF\n`, filename: 'po.pdf', type: 'application/pdf' },
  ]);
  assert.equal(res.status, 201, res.text);
};

test('uploads on two instances whose clocks differ by 100 ms: the activity log, the webhook deliveries and the realtime replay all follow the commit order', { skip, timeout: 120_000 }, async () => {
  const hook = await onAhead.post('/api/webhooks', { url: receiver.url, events: ['document.uploaded'], description: 'commit order' });
  assert.equal(hook.status, 201, hook.text);
  // One project per upload: each change names its upload's project in all three views.
  const projects: string[] = [];
  for (let i = 0; i < 24; i++) {
    const res = await onAhead.post('/api/projects', { name: `Order ${String(i).padStart(2, '0')}` });
    assert.equal(res.status, 201, res.text);
    projects.push(res.body.id as string);
  }
  // Where a reconnecting stream (on the instance behind) will start.
  const before = await openEventStream(onBehind, '?channels=projects');
  const lastEventId = await before.idWithin(300);
  before.close();
  assert.ok(lastEventId);

  // In turn, each answered before the next: the ahead one's entry is stamped ~100 ms later than the behind one's that commits after it.
  const inTurn = projects.slice(0, 12);
  for (const [i, id] of inTurn.entries()) await upload(i % 2 ? onBehind : onAhead, id);
  // Then a burst on both at once: whatever order they commit in, all three views must agree on it.
  await Promise.all(projects.slice(12).map((id, i) => upload(i % 2 ? onBehind : onAhead, id)));

  const activity = await onBehind.get('/api/activity?action=PO_UPLOADED&limit=200');
  assert.equal(activity.status, 200, activity.text);
  const listed = (activity.body.items as { entityId: string; createdAt: string }[]).map((e) => e.entityId).reverse();
  assert.equal(listed.length, projects.length);
  assert.deepEqual(listed.slice(0, 12), inTurn, 'the activity log (oldest first here) in the order the uploads were answered');
  // The clocks really disagree: some entry is stamped earlier than the one before it in commit order.
  const stamps = (activity.body.items as { createdAt: string }[]).map((e) => e.createdAt).reverse();
  assert.ok(stamps.slice(0, 12).some((t, i) => i > 0 && t < stamps[i - 1]!), `the clocks' timestamps disagree with the commit order: ${stamps.slice(0, 12).join(' ')}`);

  await eventually('every upload delivered', () => receiver.received.length >= projects.length, 30_000);
  const delivered = receiver.received.map((r) => (JSON.parse(r.body) as { data: { project: { id: string } } }).data.project.id);
  assert.deepEqual(delivered, listed, 'webhook deliveries in the activity log’s order');

  const replay = await openEventStream(onBehind, '?channels=projects', { 'last-event-id': lastEventId });
  try {
    const replayed = (await replay.next(projects.length, 10_000)).map((e) => (e.data as { payload: { id: string } }).payload.id);
    assert.deepEqual(replayed, listed, 'the realtime replay in the activity log’s order');
  } finally {
    replay.close();
  }
});
