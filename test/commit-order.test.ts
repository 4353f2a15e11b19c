/**
 * Issue 39, item 3: one order across instances. Two instances on one PostgreSQL schema whose clocks
 * differ by 100 ms (CLOCK_OFFSET_MS, src/clock.ts) take uploads in turn, each answered before the
 * next is sent (so the commit order is the order sent), then a burst on both at once. The activity
 * log (GET /api/activity, newest first), an endpoint's webhook deliveries and the realtime replay
 * (Last-Event-ID; the instances hear each other through Redis) must all give the commit order: the event log's position, not either clock. With
 * the clocks' timestamps, every upload on the instance 100 ms ahead sorts after the next one.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { newId } from '../src/ids.js';
import { type ServiceProcess, spawnService } from './helpers/child-service.js';
import { eventually } from './helpers/eventually.js';
import { Client, openEventStream, testConfig } from './helpers/service.js';
import { postMultipart } from './helpers/upload.js';
import { type Receiver, startReceiver } from './helpers/webhook-receiver.js';

const PG_URL = process.env.TEST_DATABASE_URL;
const REDIS_URL = process.env.REDIS_URL;
const skip = PG_URL && REDIS_URL ? false : 'TEST_DATABASE_URL or REDIS_URL not set: two instances share one PostgreSQL schema and hear each other through Redis';
if (skip) console.log(`NOTICE: ${skip}, so the commit-order test is skipped.`);

const ADMIN = { ADMIN_EMAIL: 'admin@example.com', ADMIN_PASSWORD: 'admin-password' };
const ENV = { ...ADMIN, WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true', WEBHOOK_POLL_MS: '30', MAIL_BATCH_SECONDS: '0', REALTIME_DRIVER: 'redis' };

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
  // Redis carries each instance's "read the log" to the other (the replay itself reads the log), on a prefix of this test's own.
  const realtime = { REDIS_URL: REDIS_URL!, REDIS_CHANNEL_PREFIX: `test-${newId()}` };
  const a = await testConfig({ env: { ...ENV, ...realtime, CLOCK_OFFSET_MS: '100' }, postgresUrl: PG_URL });
  cleanups.push(a.cleanup);
  ahead = await spawnService(a.env, { startTimeoutMs: 90_000 });
  const database = a.config.database;
  const b = await testConfig({ env: { ...ENV, ...realtime, CLOCK_OFFSET_MS: '0' }, sharedDatabase: database });
  cleanups.push(b.cleanup);
  behind = await spawnService(b.env, { startTimeoutMs: 90_000 });
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

/** New projects, approved (a PO is taken once the project is approved): one per upload, so each change names its upload's project in all three views. */
async function newProjects(n: number, from: number): Promise<string[]> {
  const ids: string[] = [];
  for (let i = from; i < from + n; i++) {
    const res = await onAhead.post('/api/projects', { name: `Order ${String(i).padStart(3, '0')}` });
    assert.equal(res.status, 201, res.text);
    assert.equal((await onAhead.post(`/api/projects/${res.body.id}/approve`, {})).status, 200);
    ids.push(res.body.id as string);
  }
  return ids;
}

/** The PO_UPLOADED entries, oldest first (the API lists newest first): their projects and their timestamps. */
async function uploadsListed(): Promise<{ entityId: string; createdAt: string }[]> {
  const activity = await onBehind.get('/api/activity?action=PO_UPLOADED&limit=200');
  assert.equal(activity.status, 200, activity.text);
  return (activity.body.items as { entityId: string; createdAt: string }[]).reverse();
}

/** Entries stamped earlier than one committed before them: what an order by timestamp gets wrong. */
const inversionsOf = (stamps: string[]) => stamps.filter((t, i) => stamps.slice(0, i).some((earlier) => earlier > t)).length;

test('uploads on two instances whose clocks differ by 100 ms: the activity log, the webhook deliveries and the realtime replay all follow the commit order', { skip, timeout: 300_000 }, async () => {
  const hook = await onAhead.post('/api/webhooks', { url: receiver.url, events: ['document.uploaded'], description: 'commit order' });
  assert.equal(hook.status, 201, hook.text);
  // Every project first, so that from the stream's position on only uploads change them.
  const projects = await newProjects(6 + 4 * 16, 0);
  const inTurn = projects.slice(0, 6);
  // Where a reconnecting stream (on the instance behind) will start.
  const before = await openEventStream(onBehind, '?channels=projects');
  const lastEventId = await before.idWithin(300);
  before.close();
  assert.ok(lastEventId);

  // In turn, each answered before the next: the commit order is the order sent.
  for (const [i, id] of inTurn.entries()) await upload(i % 2 ? onBehind : onAhead, id);
  assert.deepEqual(
    (await uploadsListed()).map((e) => e.entityId),
    inTurn,
    'the activity log in the order the uploads were answered',
  );
  // Then pairs sent to both at once, until the clocks' timestamps disagree with the commit order
  // (on a fast machine at once; on a loaded one the requests' own delays may hide the 100 ms).
  for (let round = 0; round < 4 && inversionsOf((await uploadsListed()).map((e) => e.createdAt)) === 0; round++) {
    const ids = projects.slice(6 + 16 * round, 6 + 16 * (round + 1));
    for (let i = 0; i < ids.length; i += 2) await Promise.all([upload(onAhead, ids[i]!), upload(onBehind, ids[i + 1]!)]);
  }
  const entries = await uploadsListed();
  const listed = entries.map((e) => e.entityId);
  const inversions = inversionsOf(entries.map((e) => e.createdAt));
  console.log(`# entries stamped earlier than one committed before them: ${inversions} of ${entries.length}`);
  assert.ok(inversions > 0, 'the clocks disagree with the commit order somewhere (else this test shows nothing)');

  await eventually('every upload delivered', () => receiver.received.length >= listed.length, 30_000);
  const delivered = receiver.received.map((r) => (JSON.parse(r.body) as { data: { project: { id: string } } }).data.project.id);
  assert.deepEqual(delivered, listed, 'webhook deliveries in the activity log’s order');

  // Every project change since the stream's position (an upload may write more than its PO_UPLOADED entry), oldest first.
  const all = ((await onBehind.get('/api/activity?entityType=project&limit=200')).body.items as { entityId: string; action: string }[]).reverse();
  const since = all.slice(all.findIndex((e) => e.action === 'PO_UPLOADED')).map((e) => e.entityId);
  assert.ok(since.length >= listed.length);
  const replay = await openEventStream(onBehind, '?channels=projects', { 'last-event-id': lastEventId });
  try {
    const replayed = (await replay.next(since.length, 10_000)).map((e) => (e.data as { payload: { id: string } }).payload.id);
    assert.deepEqual(replayed, since, 'the realtime replay in the activity log’s order');
  } finally {
    replay.close();
  }
});
