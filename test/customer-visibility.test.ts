/**
 * Who may see a project, widened to a CLIENT's company (interface.md, additions of 2026-11-24),
 * over real HTTP on the memory broker: a CLIENT of the project's customer follows it in the list,
 * its detail, the activity, the dashboard, documents.zip, the realtime stream and the emails; a
 * CLIENT of another customer, or of none, does not. Seeing is not acting: detail edits, lifecycle
 * actions and uploads keep their rules. A project moved to another customer, or a CLIENT moved to
 * another company, moves what open streams receive at once.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { User } from '../src/domain/model.js';
import { changeEvents, withoutIds } from './helpers/projects.js';
import { type Client, type EventStream, type TestService, openEventStream, startTestService } from './helpers/service.js';

type Someone = { user: User; client: Client };

let svc: TestService;
let admin: Someone;
let poc: Someone;
let acmeClient: Someone;
let betaClient: Someone;
let loneClient: Someone;
let acmeId: string;
let betaId: string;

async function newCustomer(name: string): Promise<string> {
  const res = await admin.client.post('/api/customers', { name: `${name} ${Math.random().toString(36).slice(2, 8)}` });
  assert.equal(res.status, 201, res.text);
  return res.body.id;
}

async function attach(who: Someone, customerId: string | null) {
  const res = await admin.client.patch(`/api/team/${who.user.id}`, { customerId });
  assert.equal(res.status, 200, res.text);
}

before(async () => {
  svc = await startTestService({ env: { MAIL_BATCH_SECONDS: '3600' } });
  [admin, poc, acmeClient, betaClient, loneClient] = await Promise.all([
    svc.signIn('ADMIN'),
    svc.signIn('POC'),
    svc.signIn('CLIENT'),
    svc.signIn('CLIENT'),
    svc.signIn('CLIENT'),
  ]);
  acmeId = await newCustomer('Acme');
  betaId = await newCustomer('Beta');
  await attach(acmeClient, acmeId);
  await attach(betaClient, betaId);
});
after(() => svc?.close());

const ids = (items: { id: string }[]) => items.map((p) => p.id);

describe('a CLIENT follows their company’s projects', () => {
  test('list, detail, activity, dashboard and documents.zip: the CLIENT of the customer sees; another customer’s, or none, 404 and nothing listed', async () => {
    const project = await svc.createProject(poc.user.id, { customerId: acmeId, status: 'APPROVED', piStatus: 'VERIFIED' });
    const touched = await admin.client.patch(`/api/projects/${project.id}`, { name: 'Acme brochures' });
    assert.equal(touched.status, 200, touched.text);

    const list = await acmeClient.client.get('/api/projects?limit=200');
    assert.ok(ids(list.body.items).includes(project.id));
    const byCustomer = await acmeClient.client.get(`/api/projects?customerId=${acmeId}`);
    assert.deepEqual(ids(byCustomer.body.items), [project.id]);
    const detail = await acmeClient.client.get(`/api/projects/${project.id}`);
    assert.equal(detail.status, 200, detail.text);
    assert.equal(detail.body.customerName.startsWith('Acme'), true);
    // Seeing is not acting: no lifecycle action, no detail edit, and the specification's upload refusal.
    assert.deepEqual(detail.body.allowedActions, []);
    assert.equal(detail.body.canEditDetails, false);
    assert.equal(detail.body.uploads.PO, 'You can only upload files to your own projects');
    const activity = await acmeClient.client.get(`/api/activity?entityId=${project.id}`);
    assert.deepEqual(activity.body.items.map((e: { action: string }) => e.action), ['PROJECT_UPDATED']);
    const stats = await acmeClient.client.get('/api/dashboard/stats');
    assert.equal(stats.body.projects.total, 1);
    assert.equal((await acmeClient.client.get(`/api/projects/${project.id}/documents.zip`)).status, 200);

    for (const outsider of [betaClient, loneClient]) {
      assert.ok(!ids((await outsider.client.get('/api/projects?limit=200')).body.items).includes(project.id));
      assert.deepEqual((await outsider.client.get(`/api/projects/${project.id}`)).body, { error: 'Project not found' });
      assert.deepEqual((await outsider.client.get(`/api/activity?entityId=${project.id}`)).body.items, []);
      assert.equal((await outsider.client.get(`/api/projects/${project.id}/documents.zip`)).status, 404);
      assert.equal((await outsider.client.get('/api/dashboard/stats')).body.projects.total, 0);
    }
  });

  test('seeing is not acting: a detail edit is 403 for the CLIENT who sees, 404 for one who may not; an upload gets the specification’s 403', async () => {
    const project = await svc.createProject(poc.user.id, { customerId: acmeId, status: 'APPROVED', piStatus: 'VERIFIED' });
    const edit = await acmeClient.client.patch(`/api/projects/${project.id}/details`, { name: 'Mine now' });
    assert.deepEqual([edit.status, edit.body], [403, { error: 'Forbidden' }]);
    const outsider = await betaClient.client.patch(`/api/projects/${project.id}/details`, { name: 'Mine now' });
    assert.deepEqual([outsider.status, outsider.body], [404, { error: 'Project not found' }]);
    const action = await acmeClient.client.post(`/api/projects/${project.id}/cancel`);
    assert.equal(action.status, 403);
    const upload = await acmeClient.client.upload([['projectId', project.id], ['fileType', 'PO'], ['file', { data: '%PDF-1.4\n', filename: 'po.pdf', type: 'application/pdf' }]]);
    assert.deepEqual([upload.status, upload.body], [403, { error: 'You can only upload files to your own projects' }]);
    assert.equal((await admin.client.get(`/api/projects/${project.id}`)).body.name, project.name);
  });

  test('emails: the CLIENTs of the project’s customer hear what its POC hears (unless switched off); another customer’s do not', async () => {
    const project = await svc.createProject(poc.user.id, { customerId: acmeId });
    const quiet = await svc.signIn('CLIENT');
    await attach(quiet, acmeId);
    const off = await quiet.client.patch('/api/account', { emailPreferences: { approvals: false } });
    assert.equal(off.status, 200, off.text);
    const approved = await admin.client.post(`/api/projects/${project.id}/approve`);
    assert.equal(approved.status, 200, approved.text);
    const rows = await svc.deps.database.db.selectFrom('outbox').select('recipient_id').where('project_id', '=', project.id).execute();
    assert.deepEqual(rows.map((r) => r.recipient_id).sort(), [poc.user.id, acmeClient.user.id].sort());
  });
});

/** A change by the admin to a project: two events to whoever may see it. */
async function touch(projectId: string) {
  const res = await admin.client.patch(`/api/projects/${projectId}`, { description: `touched ${Date.now()}` });
  assert.equal(res.status, 200, res.text);
}

/** Makes a change the stream must not hear, then one it must: had the first come through, it would arrive first. */
async function hearsOnly(stream: EventStream, hidden: () => Promise<unknown>, visibleProjectId: string) {
  await hidden();
  await touch(visibleProjectId);
  assert.deepEqual(withoutIds(await stream.next(2)), changeEvents(visibleProjectId));
}

describe('moves take effect at once on open streams (memory broker)', () => {
  test('a project moved to another customer: the old customer’s CLIENT stops hearing it, the new one’s starts', async () => {
    const [oldClient, newClient] = [await svc.signIn('CLIENT'), await svc.signIn('CLIENT')];
    const [oldCustomer, nextCustomer] = [await newCustomer('Old'), await newCustomer('New')];
    await attach(oldClient, oldCustomer);
    await attach(newClient, nextCustomer);
    const project = await svc.createProject(poc.user.id, { customerId: oldCustomer });
    const oldOwn = await svc.createProject(oldClient.user.id);
    const [oldStream, newStream] = [await openEventStream(oldClient.client), await openEventStream(newClient.client)];
    try {
      await touch(project.id);
      assert.deepEqual(withoutIds(await oldStream.next(2)), changeEvents(project.id));
      const moved = await admin.client.patch(`/api/projects/${project.id}`, { customerId: nextCustomer });
      assert.equal(moved.status, 200, moved.text);
      assert.deepEqual(withoutIds(await newStream.next(2)), changeEvents(project.id));
      await hearsOnly(oldStream, () => touch(project.id), oldOwn.id);
      assert.deepEqual(withoutIds(await newStream.next(2)), changeEvents(project.id));
    } finally {
      oldStream.close();
      newStream.close();
    }
  });

  test('a CLIENT moved to another company (or to none): their open stream follows at once, without ending', async () => {
    const mover = await svc.signIn('CLIENT');
    const [first, second] = [await newCustomer('First'), await newCustomer('Second')];
    await attach(mover, first);
    const ofFirst = await svc.createProject(poc.user.id, { customerId: first });
    const ofSecond = await svc.createProject(poc.user.id, { customerId: second });
    const own = await svc.createProject(mover.user.id);
    const stream = await openEventStream(mover.client);
    try {
      await hearsOnly(stream, () => touch(ofSecond.id), ofFirst.id);
      await attach(mover, second);
      await hearsOnly(stream, () => touch(ofFirst.id), ofSecond.id);
      await attach(mover, null);
      await hearsOnly(stream, async () => {
        await touch(ofFirst.id);
        await touch(ofSecond.id);
      }, own.id);
    } finally {
      stream.close();
    }
  });

  test('replay: a reconnecting CLIENT gets the company’s events it missed, and nothing of another company', async () => {
    const client = await svc.signIn('CLIENT');
    const mine = await newCustomer('Replay');
    await attach(client, mine);
    const ours = await svc.createProject(poc.user.id, { customerId: mine });
    const others = await svc.createProject(poc.user.id, { customerId: betaId });
    const stream = await openEventStream(client.client);
    await touch(ours.id);
    await stream.next(2);
    const last = stream.lastEventId!;
    stream.close();
    await touch(others.id);
    await touch(ours.id);
    const again = await openEventStream(client.client, '', { 'last-event-id': last });
    try {
      assert.deepEqual(withoutIds(await again.next(2)), changeEvents(ours.id));
    } finally {
      again.close();
    }
  });
});
