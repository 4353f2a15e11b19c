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
import { needsDocuments } from '../src/presenters/webhooks.js';
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

test('015_pi_payments: projects written before it read back without a PI or payments, and take them afterwards', async () => {
  // A database of its own: the one above is at the latest migration already (migrateTo never goes down).
  const made = await testConfig();
  const database = await openDatabase(made.config.database, silentLog);
  const store = createStore(database);
  try {
    await migrate(database, { to: previousOf('015_pi_payments') });
    const now = '2026-04-01T10:00:00.000Z';
    const userId = newId();
    await database.db
      .insertInto('users')
      .values({ id: userId, name: 'Older POC', email: 'older@example.com', email_key: 'older@example.com', role: 'POC', active: true, password_hash: 'x', created_at: now, updated_at: now })
      .execute();
    const id = newId();
    // Only the columns the schema had then: a PI verified before PIs had figures.
    await database.db
      .insertInto('projects')
      .values({ id, name: 'Older', description: null, poc_id: userId, status: 'APPROVED', pi_status: 'VERIFIED', created_at: now, updated_at: now })
      .execute();

    await migrate(database);

    const old = await store.projects.findWithNames(id);
    assert.ok(old);
    assert.deepEqual([old.piStatus, old.pi, old.paid], ['VERIFIED', null, 0]);
    assert.deepEqual(await store.payments.listForProject(id), []);
    const all = { all: true } as const;
    assert.deepEqual(await store.stats.outstanding(all), [], 'a PI without figures owes nothing');

    // The new columns and table work on the old rows, with amounts past 2^32.
    const amount = 5_000_000_000_000;
    await store.projects.update(id, { pi: { number: 'PI-OLD', amount, currency: 'INR', validUntil: null, submittedAt: now, submittedById: userId } }, now);
    await store.payments.insert({ id: newId(), projectId: id, amount: 1_000_000_000_000, currency: 'INR', receivedOn: '2026-04-01', method: null, reference: null, recordedById: userId, createdAt: now });
    const updated = (await store.projects.findWithNames(id))!;
    assert.deepEqual([updated.pi?.amount, updated.pi?.submittedByName, updated.paid], [amount, 'Older POC', 1_000_000_000_000]);
    assert.deepEqual(await store.stats.outstanding(all), [{ currency: 'INR', amount: 4_000_000_000_000n, projects: 1 }]);
  } finally {
    await database.destroy();
    await made.cleanup();
  }
});

test('014_customers: users and projects written before it read back without a customer, and take one afterwards', async () => {
  // A database of its own: the one above is at the latest already.
  const made = await testConfig();
  const database = await openDatabase(made.config.database, silentLog);
  const store = createStore(database);
  try {
  await migrate(database, { to: previousOf('014_customers') });
  const now = '2026-04-01T10:00:00.000Z';
  const userId = newId();
  const projectId = newId();
  await database.db
    .insertInto('users')
    .values({ id: userId, name: 'Old client', email: `c-${userId}@example.com`, email_key: `c-${userId}@example.com`, role: 'CLIENT', active: true, password_hash: 'x', created_at: now, updated_at: now })
    .execute();
  await database.db
    .insertInto('projects')
    .values({ id: projectId, name: 'Old job', description: null, poc_id: userId, status: 'REQUESTED', pi_status: 'PENDING', created_at: now, updated_at: now })
    .execute();

  await migrate(database);

  assert.equal((await store.users.findById(userId))!.customerId, null);
  const before = (await store.projects.findWithNames(projectId))!;
  assert.deepEqual([before.customerId, before.customerName], [null, null]);
  const customerId = newId();
  await store.customers.insert({ id: customerId, name: 'Acme', gstin: null, email: null, phone: null, billingAddress: null, active: true, createdAt: now, updatedAt: now });
  await store.users.update(userId, { customerId }, now);
  await store.projects.update(projectId, { customerId }, now);
  const after = (await store.projects.findWithNames(projectId))!;
  assert.deepEqual([after.customerId, after.customerName], [customerId, 'Acme']);
  const listed = await store.projects.list({ id: newId(), role: 'CLIENT', customerId }, { limit: 10 });
  assert.deepEqual(listed.items.map((p) => p.id), [projectId], 'a CLIENT of the customer sees the old project once it has the customer');
  } finally {
    await database.destroy();
    await made.cleanup();
  }
});

test('017_void_documents: documents written before it read back standing, and can be withdrawn afterwards', async () => {
  // A database of its own: the one above is at the latest migration already.
  const made = await testConfig();
  const database = await openDatabase(made.config.database, silentLog);
  const store = createStore(database);
  try {
    await migrate(database, { to: previousOf('017_void_documents') });
    const now = '2026-03-01T10:00:00.000Z';
    const userId = newId();
    const projectId = newId();
    const fileId = newId();
    // Only the columns the schema had then.
    await database.db
      .insertInto('users')
      .values({ id: userId, name: 'Older POC', email: `older-${userId}@example.com`, email_key: `older-${userId}@example.com`, role: 'POC', active: true, password_hash: 'x', created_at: now, updated_at: now })
      .execute();
    await database.db
      .insertInto('projects')
      .values({ id: projectId, name: 'Older', description: null, poc_id: userId, status: 'DISPATCHED', pi_status: 'VERIFIED', created_at: now, updated_at: now })
      .execute();
    await database.db
      .insertInto('file_uploads')
      .values({ id: fileId, project_id: projectId, type: 'PO', url: 'http://x/po.pdf', filename: 'po.pdf', size: 3, content_type: 'application/pdf', storage_key: `k-${fileId}`, uploaded_by_id: userId, created_at: now })
      .execute();

    await migrate(database);

    const [old] = await store.files.listForProject(projectId);
    assert.deepEqual([old!.id, old!.voidedAt, old!.voidedById, old!.voidedByName, old!.voidReason], [fileId, null, null, null, null]);
    assert.equal((await store.stats.documentsByType({ all: true })).PO! >= 1, true);
    assert.deepEqual(await store.files.pendingDeletions(null, 10), []);

    // The new columns work on the old row: voided once, its deletion pending until recorded.
    assert.equal(await store.files.markVoided(fileId, { voidedAt: now, voidedById: userId, voidReason: 'Wrong customer' }), true);
    assert.equal(await store.files.markVoided(fileId, { voidedAt: now, voidedById: userId, voidReason: 'Again' }), false);
    assert.deepEqual((await store.files.pendingDeletions(null, 10)).map((f) => f.id), [fileId]);
    await store.files.markBytesDeleted(fileId, now);
    assert.deepEqual(await store.files.pendingDeletions(null, 10), []);
    const voided = await store.files.findWithNames(fileId);
    assert.deepEqual([voided!.voidedAt, voided!.voidedByName, voided!.voidReason], [now, 'Older POC', 'Wrong customer']);
  } finally {
    await database.destroy();
    await made.cleanup();
  }
});

test('021_search: projects written before it are found by q afterwards, and edits, new projects and deletions keep the index in step', async () => {
  // A database of its own: the one above is at the latest already.
  const made = await testConfig();
  const database = await openDatabase(made.config.database, silentLog);
  const store = createStore(database);
  try {
    await migrate(database, { to: previousOf('021_search') });
    const now = '2026-05-01T10:00:00.000Z';
    const userId = newId();
    const oldId = newId();
    await database.db
      .insertInto('users')
      .values({ id: userId, name: 'Searcher POC', email: `s-${userId}@example.com`, email_key: `s-${userId}@example.com`, role: 'POC', active: true, password_hash: 'x', created_at: now, updated_at: now })
      .execute();
    await database.db
      .insertInto('projects')
      .values({ id: oldId, name: 'Calendar Quartz', reference: 'PO-OLD-991', description: null, poc_id: userId, status: 'REQUESTED', pi_status: 'PENDING', created_at: now, updated_at: now })
      .execute();

    await migrate(database);

    const all = { all: true } as const;
    const found = async (q: string) => (await store.projects.list(all, { q, limit: 10 })).items.map((p) => p.id);
    assert.deepEqual(await found('quartz'), [oldId], 'by name, written before the migration');
    assert.deepEqual(await found('old-99'), [oldId], 'by reference');
    await store.projects.update(oldId, { name: 'Calendar Onyx', reference: 'PO-NEW-112' }, now);
    assert.deepEqual(await found('quartz'), [], 'the old name is gone from the index');
    assert.deepEqual(await found('old-99'), []);
    assert.deepEqual(await found('CALENDAR ONYX'), [oldId], 'the new name, case-insensitively');
    assert.deepEqual(await found('new-112'), [oldId]);
    const newId2 = newId();
    await store.projects.insert({ id: newId2, name: 'Menu Cards', description: null, pocId: userId, status: 'REQUESTED', piStatus: 'PENDING', approval: null, createdAt: now, updatedAt: now, reference: 'PO-ZZ-5' });
    assert.deepEqual(await found('menu ca'), [newId2]);
    await database.db.deleteFrom('projects').where('id', '=', newId2).execute();
    assert.deepEqual(await found('menu ca'), []);
    assert.deepEqual(await found('searcher p'), [oldId], "by the POC's name");
  } finally {
    await database.destroy();
    await made.cleanup();
  }
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

test('022_webhook_events and 023_webhook_fan_out: deliveries queued before them keep their event, stored once, are not made again, and are sent as they were written', async () => {
  const made = await testConfig();
  const own = await openDatabase(made.config.database, silentLog);
  try {
    await migrate(own, { to: previousOf('022_webhook_events') });
    const now = '2026-03-01T10:00:00.000Z';
    const hooks = [newId(), newId()];
    for (const id of hooks) {
      await own.db
        .insertInto('webhooks')
        .values({ id, url: `http://example.com/${id}`, events: '["*"]', description: null, secret: 'whsec_x', previous_secret: null, previous_secret_expires_at: null, active: true, failing_since: null, created_at: now, updated_at: now })
        .execute();
    }
    // The old shape: the event's data, with the project's documents, in each endpoint's row.
    const oldPayload = { action: 'PO_UPLOADED', actorId: 'u', details: {}, project: { id: 'p', name: 'Old' }, files: [{ id: 'f', filename: 'po.pdf' }], fileId: 'f' };
    const events = [newId(), newId()];
    const deliveries: string[] = [];
    for (const eventId of events) {
      for (const webhookId of hooks) {
        const id = newId();
        deliveries.push(id);
        await own.db
          .insertInto('webhook_deliveries')
          .values({ id, webhook_id: webhookId, event_id: eventId, event_type: 'document.uploaded', payload: JSON.stringify(oldPayload), status: 'pending', attempts: 0, next_attempt_at: now, created_at: now } as never)
          .execute();
      }
    }

    await migrate(own);

    const ownStore = createStore(own);
    assert.deepEqual((await own.db.selectFrom('webhook_events').select('id').orderBy('id').execute()).map((e) => e.id), [...events].sort(), 'each event once');
    const read = await ownStore.webhookDeliveries.events(events);
    for (const id of events) assert.deepEqual(read.get(id), { id, type: 'document.uploaded', payload: oldPayload, createdAt: now });
    assert.equal(needsDocuments(read.get(events[0]!)!.payload), false, 'sent with the documents it was written with');
    assert.equal(await ownStore.transaction((store) => store.webhookDeliveries.fanOut(100, newId)), 0, '023_webhook_fan_out: their deliveries are made already, none is made again');
    // The endpoints' oldest first: the first event, one delivery per endpoint.
    const claimed = await ownStore.webhookDeliveries.claim('2026-03-01T10:00:01.000Z', '2026-03-01T10:05:00.000Z', 10, newId());
    assert.deepEqual(claimed.map((d) => d.id).sort(), deliveries.slice(0, 2).sort());
    assert.deepEqual(claimed.map((d) => d.eventId), [events[0], events[0]]);
  } finally {
    await own.destroy();
    await made.cleanup();
  }
});

test('026_money_documents: customers, lines and projects written before it read back unpriced, the GSTIN gives the state, and invoices can be issued afterwards', async () => {
  // A database of its own: the one above is at the latest already.
  const made = await testConfig();
  const database = await openDatabase(made.config.database, silentLog);
  const store = createStore(database);
  try {
    await migrate(database, { to: previousOf('026_money_documents') });
    const now = '2026-05-01T10:00:00.000Z';
    const userId = newId();
    const projectId = newId();
    const [withGstin, without] = [newId(), newId()];
    // Only the columns the schema had then.
    await database.db
      .insertInto('users')
      .values({ id: userId, name: 'Old admin', email: `a-${userId}@example.com`, email_key: `a-${userId}@example.com`, role: 'ADMIN', active: true, password_hash: 'x', created_at: now, updated_at: now })
      .execute();
    for (const [id, gstin] of [[withGstin, '27AAPFU0939F1ZV'], [without, null]] as const) {
      await database.db.insertInto('customers').values({ id, name: `C ${id}`, name_key: `c ${id}`, gstin, email: null, phone: null, billing_address: null, active: true, created_at: now, updated_at: now }).execute();
    }
    await database.db
      .insertInto('projects')
      .values({ id: projectId, number: 1, name: 'Old job', description: null, poc_id: userId, status: 'DISPATCHED', pi_status: 'VERIFIED', created_at: now, updated_at: now, customer_id: withGstin })
      .execute();
    await database.db
      .insertInto('project_items')
      .values({ id: newId(), project_id: projectId, position: 0, description: 'Leaflets', quantity: 500, unit: 'pcs', size: null, stock: null, colours: null, finishing: null, notes: null })
      .execute();

    await migrate(database);

    assert.equal((await store.customers.findById(withGstin))!.stateCode, '27', "filled from the GSTIN's first two digits");
    assert.equal((await store.customers.findById(without))!.stateCode, null);
    const old = (await store.projects.findWithNames(projectId))!;
    assert.deepEqual(old.items.map((l) => [l.description, l.unitPrice, l.hsnSac, l.gstRate]), [['Leaflets', null, null, null]]);
    assert.deepEqual([old.customerStateCode, old.shopStateCode, old.invoice], ['27', null, null]);
    assert.deepEqual(await store.shopSettings.get(), { name: null, address: null, gstin: null, phone: null, email: null, bankDetails: null, invoicePrefix: 'INV', updatedAt: null });

    // The new columns and tables work on the old rows.
    await store.projectItems.replace(projectId, [{ ...old.items[0]!, unitPrice: 250, hsnSac: '4911', gstRate: 18 }]);
    assert.deepEqual((await store.projects.findWithNames(projectId))!.items.map((l) => [l.unitPrice, l.hsnSac, l.gstRate]), [[250, '4911', 18]]);
    assert.equal(await store.invoices.lastSequence('2026-27'), 0);
    assert.equal(await store.invoices.take('2026-27', 0), true);
    assert.equal(await store.invoices.take('2026-27', 0), false, 'the guard: the counter moved on');
  } finally {
    await database.destroy();
    await made.cleanup();
  }
});

test('025_floor: projects written before it are numbered by creation, the next one follows; none held, none rush', async () => {
  const made = await testConfig();
  const own = await openDatabase(made.config.database, silentLog);
  try {
    await migrate(own, { to: previousOf('025_floor') });
    const userId = newId();
    const now = '2026-03-01T10:00:00.000Z';
    await own.db
      .insertInto('users')
      .values({ id: userId, name: 'Old POC', email: 'old@example.com', email_key: 'old@example.com', role: 'POC', active: true, password_hash: 'x', created_at: now, updated_at: now })
      .execute();
    // Inserted out of creation order, two at the same instant (then by id).
    const made3 = ['2026-03-03T10:00:00.000Z', '2026-03-01T10:00:00.000Z', '2026-03-02T10:00:00.000Z', '2026-03-02T10:00:00.000Z'];
    const ids = made3.map(() => newId());
    for (const [i, id] of ids.entries()) {
      await own.db.insertInto('projects').values({ id, name: `Old ${i}`, description: null, poc_id: userId, status: 'REQUESTED', pi_status: 'PENDING', created_at: made3[i]!, updated_at: made3[i]! }).execute();
    }

    await migrate(own);

    const ownStore = createStore(own);
    const numbers = new Map<string, number>();
    for (const id of ids) {
      const p = (await ownStore.projects.findWithNames(id))!;
      numbers.set(id, p.number);
      assert.deepEqual([p.rush, p.hold, p.repeatOf], [false, null, null]);
    }
    const [sameA, sameB] = [ids[2]!, ids[3]!].sort();
    assert.deepEqual([numbers.get(ids[1]!), numbers.get(sameA!), numbers.get(sameB!), numbers.get(ids[0]!)], [1, 2, 3, 4]);
    const next = await ownStore.transaction((store) =>
      store.projects.insert({ id: newId(), name: 'New', description: null, pocId: userId, status: 'REQUESTED', piStatus: 'PENDING', approval: null, createdAt: now, updatedAt: now }),
    );
    assert.equal(next, 5);
  } finally {
    await own.destroy();
    await made.cleanup();
  }
});

test('024_proofs: the activity log keeps its entries, positions and indexes; an entry without a user is written after it; projects read back without a proof', async () => {
  const made = await testConfig();
  const own = await openDatabase(made.config.database, silentLog);
  try {
    await migrate(own, { to: previousOf('024_proofs') });
    const now = '2026-03-01T10:00:00.000Z';
    const userId = newId();
    const projectId = newId();
    await own.db
      .insertInto('users')
      .values({ id: userId, name: 'Old POC', email: 'old-poc@example.com', email_key: 'old-poc@example.com', role: 'POC', active: true, password_hash: 'x', created_at: now, updated_at: now })
      .execute();
    await own.db.insertInto('projects').values({ id: projectId, name: 'Old', description: null, poc_id: userId, status: 'APPROVED', pi_status: 'VERIFIED', created_at: now, updated_at: now }).execute();
    const ownStore = createStore(own);
    for (let i = 0; i < 3; i++) await ownStore.activity.insert({ id: newId(), userId, action: 'PROJECT_UPDATED', entityType: 'project', entityId: projectId, details: { i }, createdAt: now });

    await migrate(own);

    const admin = { id: 'someone', role: 'ADMIN' as const };
    const before = await ownStore.activity.list(admin, { limit: 10 });
    assert.deepEqual(before.items.map((e) => [e.userId, e.details.i]), [[userId, 2], [userId, 1], [userId, 0]]);
    const seq = await ownStore.activity.insert({ id: newId(), userId: null, action: 'PROOF_APPROVED', entityType: 'project', entityId: projectId, details: { via: 'link' }, createdAt: now });
    assert.equal(seq, 4, 'positions go on densely');
    assert.deepEqual((await ownStore.activity.changesAfter(0, 10, admin)).map((c) => c.seq), [1, 2, 3, 4]);
    const duplicate = ownStore.activity.insert({ id: newId(), userId, action: 'PROJECT_UPDATED', entityType: 'project', entityId: projectId, details: {}, createdAt: now });
    assert.equal(typeof (await duplicate), 'number');
    assert.equal((await ownStore.projects.findWithNames(projectId))!.proof, null);
    assert.deepEqual(await ownStore.proofs.list(projectId), []);
  } finally {
    await own.destroy();
    await made.cleanup();
  }
});
