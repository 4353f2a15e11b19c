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

test('016_due_digest: users written before it get digests claimed once per day, and their claims go with them', async (t) => {
  // A database of its own: the one above is already at the latest migration.
  const made = await testConfig();
  const database = await openDatabase(made.config.database, silentLog);
  const store = createStore(database);
  t.after(async () => {
    await database.destroy();
    await made.cleanup();
  });
  await migrate(database, { to: previousOf('016_due_digest') });
  const now = '2026-03-09T10:00:00.000Z';
  const userId = newId();
  await database.db
    .insertInto('users')
    .values({ id: userId, name: 'Earlier POC', email: 'earlier@example.com', email_key: 'earlier@example.com', role: 'POC', active: true, password_hash: 'x', created_at: now, updated_at: now })
    .execute();

  await migrate(database);

  assert.deepEqual(
    (await store.dueDigests.undecided('2026-03-10', 'dueDigest')).filter((u) => u.id === userId),
    [{ id: userId, role: 'POC' }],
  );
  assert.equal(await store.dueDigests.claim(userId, '2026-03-10', now), true);
  assert.equal(await store.dueDigests.claim(userId, '2026-03-10', now), false, 'the second claim of the day finds the first');
  assert.deepEqual((await store.dueDigests.undecided('2026-03-10', 'dueDigest')).filter((u) => u.id === userId), []);
  await database.db.deleteFrom('users').where('id', '=', userId).execute();
  assert.deepEqual(await database.db.selectFrom('due_digests').selectAll().where('user_id', '=', userId).execute(), []);
});
