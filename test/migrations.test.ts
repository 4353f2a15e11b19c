/**
 * Migrations on a populated database (SQLite, or PostgreSQL under TEST_DB=postgres): the schema as
 * the migration before left it, filled with rows written then, is migrated to the latest, and what
 * was there reads back with the new fields at their defaults and works with the new features.
 */
import { silentLog } from '../src/logger.js';
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { type Database, migrate, migrationNames, openDatabase } from '../src/db/index.js';
import { type Store, createStore } from '../src/db/store.js';
import { newId } from '../src/ids.js';
import { testConfig } from './helpers/service.js';

let database: Database;
let store: Store;
let cleanup: () => Promise<void>;

before(async () => {
  const made = await testConfig();
  cleanup = made.cleanup;
  database = await openDatabase(made.config.database, silentLog);
  store = createStore(database);
});
after(async () => {
  await database?.destroy();
  await cleanup?.();
});

/** The migration before `name`: where an older version left the schema. */
const previousOf = (name: string) => {
  const at = migrationNames.indexOf(name);
  assert.ok(at > 0, `${name} is a migration with one before it`);
  return migrationNames[at - 1]!;
};

test('013_job: projects written before it read back without a job, and take one afterwards', async () => {
  await migrate(database, { to: previousOf('013_job') });
  const now = '2026-03-01T10:00:00.000Z';
  const userId = newId();
  // Only the columns the schema had then.
  await database.db
    .insertInto('users')
    .values({ id: userId, name: 'Old POC', email: 'old@example.com', email_key: 'old@example.com', role: 'POC', active: true, password_hash: 'x', created_at: now, updated_at: now })
    .execute();
  const projects = [newId(), newId()];
  for (const [i, id] of projects.entries()) {
    await database.db
      .insertInto('projects')
      .values({ id, name: `Old ${i}`, description: null, poc_id: userId, status: i ? 'DELIVERED' : 'APPROVED', pi_status: 'VERIFIED', created_at: now, updated_at: now })
      .execute();
  }
  await database.db
    .insertInto('file_uploads')
    .values({ id: newId(), project_id: projects[0]!, type: 'PO', url: 'http://x/po.pdf', filename: 'po.pdf', size: 3, content_type: 'application/pdf', storage_key: 'k', uploaded_by_id: userId, created_at: now })
    .execute();

  await migrate(database);

  const old = await store.projects.findWithNames(projects[0]!);
  assert.ok(old);
  assert.deepEqual([old.name, old.status, old.pocName], ['Old 0', 'APPROVED', 'Old POC']);
  assert.deepEqual([old.reference, old.dueDate, old.deliveryAddress, old.items], [null, null, null, []]);
  const all = { all: true } as const;
  const byDue = await store.projects.list(all, { limit: 10, sort: 'due' });
  assert.deepEqual(byDue.items.map((p) => p.id), [...projects].sort(), 'without due dates: last, by id');
  assert.deepEqual(await store.stats.dueCounts(all, '2026-03-10', '2026-03-16'), { overdue: 0, today: 0, week: 0 });
  assert.equal((await store.files.listForProject(projects[0]!)).length, 1);

  // The new columns and table work on the old rows.
  for (const id of projects) await store.projects.update(id, { dueDate: '2026-03-05', reference: 'PO-1' }, now);
  await store.projectItems.replace(projects[0]!, [
    { id: newId(), description: 'Leaflets', quantity: 500, unit: 'pcs', size: 'A5', stock: null, colours: null, finishing: null, notes: null },
  ]);
  const overdue = await store.projects.list(all, { limit: 10, dueRange: { before: '2026-03-10' } });
  assert.deepEqual(overdue.items.map((p) => p.id), [projects[0]], 'the delivered one is not overdue');
  assert.deepEqual(overdue.items[0]!.items.map((l) => [l.description, l.quantity]), [['Leaflets', 500]]);
  assert.deepEqual(await store.stats.dueCounts(all, '2026-03-10', '2026-03-16'), { overdue: 1, today: 0, week: 0 });
});

test('019_comments: activity entries written before it are not internal, and every viewer keeps seeing them; comments work after it', async () => {
  const made = await testConfig();
  const own = await openDatabase(made.config.database, silentLog);
  try {
    await migrate(own, { to: previousOf('019_comments') });
    const now = '2026-03-01T10:00:00.000Z';
    const userId = newId();
    const projectId = newId();
    await own.db
      .insertInto('users')
      .values({ id: userId, name: 'Old Client', email: 'old-client@example.com', email_key: 'old-client@example.com', role: 'CLIENT', active: true, password_hash: 'x', created_at: now, updated_at: now })
      .execute();
    await own.db.insertInto('projects').values({ id: projectId, name: 'Old', description: null, poc_id: userId, status: 'REQUESTED', pi_status: 'PENDING', created_at: now, updated_at: now }).execute();
    // Only the columns the log had then.
    await own.db
      .insertInto('activity_log')
      .values({ id: newId(), seq: 1, user_id: userId, action: 'PROJECT_CREATED', entity_type: 'project', entity_id: projectId, details: '{}', created_at: now } as never)
      .execute();

    await migrate(own);

    const ownStore = createStore(own);
    const client = { id: userId, role: 'CLIENT' as const };
    const seen = await ownStore.activity.list(client, { limit: 10 });
    assert.deepEqual(seen.items.map((e) => e.action), ['PROJECT_CREATED']);
    assert.deepEqual((await ownStore.activity.changesAfter(0, 10, client)).map((c) => c.internal), [false]);
    await ownStore.comments.insert({ id: newId(), projectId, authorId: userId, body: 'After the migration', internal: false, createdAt: now });
    assert.deepEqual((await ownStore.comments.list(client, projectId, { limit: 10 })).items.map((c) => c.body), ['After the migration']);
  } finally {
    await own.destroy();
    await made.cleanup();
  }
});
