import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { failWrites } from './helpers/faults.js';
import { type TestService, startTestService } from './helpers/service.js';
import { sideEffectsOf } from './helpers/team.js';

/**
 * Specification 4.1 steps 9–11 with the record and the activity entry committed together: a failing
 * activity entry (step 10) still leaves the record (step 9) and the file (step 8), answers 500 with
 * the failure's message, and sends no notification (step 11 never ran).
 */

let svc: TestService;
before(async () => {
  svc = await startTestService();
});
after(() => svc?.close());

test('a failing activity entry does not undo the record or the file; no notification goes out', async () => {
  const { client: admin, user } = await svc.signIn('ADMIN');
  const project = await svc.createProject(user.id, { status: 'APPROVED', piStatus: 'VERIFIED' });
  const upload = (filename: string) =>
    admin.upload([
      ['projectId', project.id],
      ['fileType', 'PO'],
      ['file', { data: 'the purchase order', filename, type: 'application/pdf' }],
    ]);

  const stopFailing = await failWrites(svc, 'activity_log', 'insert', 'activity log is full');
  let res;
  try {
    const effects = await sideEffectsOf(svc, async () => {
      res = await upload('kept.pdf');
    });
    assert.equal(res!.status, 500, res!.text);
    assert.deepEqual(res!.body, { error: 'activity log is full' });
    assert.equal(effects.activityRows, 0);
    assert.deepEqual(effects.notifications, []);
  } finally {
    await stopFailing();
  }
  const files = await svc.deps.store.files.listForProject(project.id);
  assert.deepEqual(files.map((f) => f.filename), ['kept.pdf'], 'step 9 stays');
  assert.equal(fs.readFileSync(path.join(svc.dataDir, 'uploads', files[0]!.storageKey), 'utf8'), 'the purchase order', 'step 8 stays');

  // And once the log takes entries again, both are written and both notifications sent.
  const effects = await sideEffectsOf(svc, async () => assert.equal((await upload('next.pdf')).status, 201));
  assert.equal(effects.activityRows, 1);
  assert.deepEqual(effects.notifications.map((n) => n.channel), ['projects', 'dashboard']);
});

test("emails that cannot be queued change nothing else: 201, the record, the activity entry and both notifications", async () => {
  const { client: poc, user } = await svc.signIn('POC');
  await svc.signIn('ADMIN'); // an admin to be emailed about the POC's upload
  const project = await svc.createProject(user.id, { status: 'APPROVED', piStatus: 'VERIFIED' });
  const stopFailing = await failWrites(svc, 'outbox', 'insert', 'outbox is full');
  try {
    let res;
    const effects = await sideEffectsOf(svc, async () => {
      res = await poc.upload([
        ['projectId', project.id],
        ['fileType', 'PO'],
        ['file', { data: 'the purchase order', filename: 'po.pdf', type: 'application/pdf' }],
      ]);
    });
    assert.equal(res!.status, 201, res!.text);
    assert.equal(effects.activityRows, 1);
    assert.deepEqual(effects.notifications.map((n) => n.channel), ['projects', 'dashboard']);
    assert.deepEqual((await svc.deps.store.files.listForProject(project.id)).map((f) => f.filename), ['po.pdf']);
  } finally {
    await stopFailing();
  }
  const queued = await svc.deps.database.db.selectFrom('outbox').select((eb) => eb.fn.countAll<number>().as('n')).where('project_id', '=', project.id).executeTakeFirstOrThrow();
  assert.equal(Number(queued.n), 0, 'the failed emails left no row');
});

test('a failing record (step 9) keeps neither the record nor the activity entry: 500 with its message, no notification', async () => {
  const { client: admin, user } = await svc.signIn('ADMIN');
  const project = await svc.createProject(user.id, { status: 'APPROVED', piStatus: 'VERIFIED' });
  // On PostgreSQL the record and its entry are one statement: its failure must not be taken for step 10's.
  const stopFailing = await failWrites(svc, 'file_uploads', 'insert', 'the records are full');
  try {
    let res;
    const effects = await sideEffectsOf(svc, async () => {
      res = await admin.upload([
        ['projectId', project.id],
        ['fileType', 'PO'],
        ['file', { data: 'the purchase order', filename: 'lost.pdf', type: 'application/pdf' }],
      ]);
    });
    assert.equal(res!.status, 500, res!.text);
    assert.deepEqual(res!.body, { error: 'the records are full' });
    assert.equal(effects.activityRows, 0);
    assert.deepEqual(effects.notifications, []);
  } finally {
    await stopFailing();
  }
  assert.deepEqual(await svc.deps.store.files.listForProject(project.id), []);
});
