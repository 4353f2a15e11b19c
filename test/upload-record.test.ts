import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { sql } from 'kysely';
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

async function failActivityInserts(on: boolean): Promise<void> {
  const db = svc.deps.database.db;
  if (svc.deps.database.dialect === 'sqlite') {
    if (on) await sql`create trigger activity_full before insert on activity_log begin select raise(abort, 'activity log is full'); end`.execute(db);
    else await sql`drop trigger activity_full`.execute(db);
    return;
  }
  if (on) {
    await sql.raw(`create function activity_full() returns trigger language plpgsql as $$ begin raise exception 'activity log is full'; end $$`).execute(db);
    await sql`create trigger activity_full before insert on activity_log for each row execute function activity_full()`.execute(db);
  } else {
    await sql`drop trigger activity_full on activity_log`.execute(db);
    await sql`drop function activity_full()`.execute(db);
  }
}

test('a failing activity entry does not undo the record or the file; no notification goes out', async () => {
  const { client: admin, user } = await svc.signIn('ADMIN');
  const project = await svc.createProject(user.id, { status: 'APPROVED', piStatus: 'VERIFIED' });
  const upload = (filename: string) =>
    admin.upload([
      ['projectId', project.id],
      ['fileType', 'PO'],
      ['file', { data: 'the purchase order', filename, type: 'application/pdf' }],
    ]);

  await failActivityInserts(true);
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
    await failActivityInserts(false);
  }
  const files = await svc.deps.store.files.listForProject(project.id);
  assert.deepEqual(files.map((f) => f.filename), ['kept.pdf'], 'step 9 stays');
  assert.equal(fs.readFileSync(path.join(svc.dataDir, 'uploads', files[0]!.storageKey), 'utf8'), 'the purchase order', 'step 8 stays');

  // And once the log takes entries again, both are written and both notifications sent.
  const effects = await sideEffectsOf(svc, async () => assert.equal((await upload('next.pdf')).status, 201));
  assert.equal(effects.activityRows, 1);
  assert.deepEqual(effects.notifications.map((n) => n.channel), ['projects', 'dashboard']);
});
