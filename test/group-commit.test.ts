import assert from 'node:assert/strict';
import { after, before, beforeEach, test } from 'node:test';
import { type Store, createStore } from '../src/db/store.js';
import { nowIso } from '../src/deps.js';
import { newId } from '../src/ids.js';
import { failCommitsOf } from './helpers/faults.js';
import { type TestService, startTestService } from './helpers/service.js';

/**
 * The group commit (src/db/group-commit.ts) on the service's real database (SQLite, or PostgreSQL
 * under TEST_DB=postgres). Grouping is read from the writer's counts, never from timing: units
 * handed over while a batch commits wait for the next one. Each test has a store, so a writer and
 * counts, of its own; its units reserve storage names (an upload's first write).
 */

let svc: TestService;
let store: Store;
before(async () => {
  svc = await startTestService();
});
after(() => svc?.close());
beforeEach(() => {
  store = createStore(svc.deps.database);
});

/** A unit that reserves `key` and answers it. */
const reserve = (key: string) => async (s: Store) => {
  assert.equal(await s.storageNames.reserve(key, nowIso()), true);
  return key;
};
/** SQLite's writer gathers the units of one event-loop turn; PostgreSQL's starts at once and gathers what arrives while it commits. */
const sqlite = () => svc.deps.database.dialect === 'sqlite';
const keys = (n: number, prefix = 'gc') => Array.from({ length: n }, () => `${prefix}-${newId()}`);

/** Which of these keys are reserved, as another reader sees the database. */
async function reserved(wanted: string[]): Promise<string[]> {
  const rows = await svc.deps.database.db.selectFrom('storage_names').select('key').where('key', 'in', wanted).execute();
  return rows.map((r) => r.key).sort();
}

test('an idle writer begins the transaction at once: no window, no batch of one waiting for company', async () => {
  const [key] = keys(1);
  const answer = store.groupCommit(reserve(key!));
  // PostgreSQL: before groupCommit returned; SQLite: at the end of this event-loop turn, before any timer.
  await new Promise((resolve) => setImmediate(resolve));
  assert.equal(store.groupCommits.transactions, 1, 'begun within the turn it was asked in');
  assert.equal(await answer, key);
  assert.deepEqual(await reserved([key!]), [key]);
  assert.deepEqual(store.groupCommits, { transactions: 1, units: 1, retriedAlone: 0, largestBatch: 1 });
});

test('units that arrive while a batch commits share the next transaction, at most 64 in one', async () => {
  const first = keys(1);
  const waiting = keys(70);
  const answers = [...first, ...waiting].map((key) => store.groupCommit(reserve(key)));
  assert.deepEqual(await Promise.all(answers), [...first, ...waiting]);
  assert.deepEqual(await reserved([...first, ...waiting]), [...first, ...waiting].sort());
  // PostgreSQL: the first alone (the writer was idle), then the 70 that queued behind it: 64, then 6.
  // SQLite: all 71 were handed over in this turn: 64, then 7.
  assert.deepEqual(store.groupCommits, { transactions: sqlite() ? 2 : 3, units: 71, retriedAlone: 0, largestBatch: 64 });
});

test('a failing unit fails only its own request, and its writes alone are undone', async () => {
  const [first, ...others] = keys(6);
  const bad = `gc-bad-${newId()}`;
  const answers = [
    store.groupCommit(reserve(first!)),
    ...others.slice(0, 2).map((key) => store.groupCommit(reserve(key))),
    store.groupCommit(async (s) => {
      await s.storageNames.reserve(bad, nowIso());
      throw new Error('this upload is broken');
    }),
    ...others.slice(2).map((key) => store.groupCommit(reserve(key))),
  ];
  const settled = await Promise.allSettled(answers);
  assert.deepEqual(settled.map((s) => s.status), ['fulfilled', 'fulfilled', 'fulfilled', 'rejected', 'fulfilled', 'fulfilled', 'fulfilled']);
  assert.equal(((settled[3] as PromiseRejectedResult).reason as Error).message, 'this upload is broken');
  assert.deepEqual(await reserved([first!, ...others, bad]), [first!, ...others].sort(), 'the others committed, the broken one left nothing');
  assert.deepEqual(store.groupCommits, { transactions: sqlite() ? 1 : 2, units: 7, retriedAlone: 0, largestBatch: sqlite() ? 7 : 6 }, 'one shared transaction, nothing retried');
});

test('a unit without a savepoint of its own that fails still fails alone: its batch is rolled back and the others run again alone', async () => {
  const [first, ...others] = keys(5);
  const bad = `gc-bad-${newId()}`;
  const answers = [
    store.groupCommit(reserve(first!)),
    ...others.slice(0, 2).map((key) => store.groupCommit(reserve(key), { noSavepoint: true })),
    store.groupCommit(
      async (s) => {
        await s.storageNames.reserve(bad, nowIso());
        throw new Error('this upload is broken');
      },
      { noSavepoint: true },
    ),
    ...others.slice(2).map((key) => store.groupCommit(reserve(key))),
  ];
  const settled = await Promise.allSettled(answers);
  assert.deepEqual(settled.map((s) => s.status), ['fulfilled', 'fulfilled', 'fulfilled', 'rejected', 'fulfilled', 'fulfilled']);
  assert.equal(((settled[3] as PromiseRejectedResult).reason as Error).message, 'this upload is broken', 'run once: its failure is its answer');
  assert.deepEqual(await reserved([first!, ...others, bad]), [first!, ...others].sort(), 'the others committed, the broken one left nothing');
  // PostgreSQL: the first alone; the five behind it together, rolled back at the broken one; the other four alone.
  // SQLite: the six together, rolled back; the other five alone.
  assert.deepEqual(store.groupCommits, sqlite() ? { transactions: 6, units: 6, retriedAlone: 5, largestBatch: 6 } : { transactions: 6, units: 6, retriedAlone: 4, largestBatch: 5 });
});

test('a batch whose commit fails is retried unit by unit, each alone: only the unit that breaks it fails', async () => {
  const stopFailing = await failCommitsOf(svc, 'refused-');
  try {
    const [first, ...others] = keys(5);
    const refused = `refused-${newId()}`;
    const answers = [first!, ...others.slice(0, 2), refused, ...others.slice(2)].map((key) => store.groupCommit(reserve(key)));
    const settled = await Promise.allSettled(answers);
    assert.deepEqual(settled.map((s) => s.status), ['fulfilled', 'fulfilled', 'fulfilled', 'rejected', 'fulfilled', 'fulfilled']);
    assert.deepEqual(await reserved([first!, ...others, refused]), [first!, ...others].sort());
    // PostgreSQL: the first alone; the five behind it together (refused at commit); then each of the five alone.
    // SQLite: the six together (refused at commit), then each alone.
    assert.deepEqual(store.groupCommits, sqlite() ? { transactions: 7, units: 6, retriedAlone: 6, largestBatch: 6 } : { transactions: 7, units: 6, retriedAlone: 5, largestBatch: 5 });
  } finally {
    await stopFailing();
  }
});

test('a unit of one statement: PostgreSQL commits it on its own, outside the writer; SQLite through the writer', async () => {
  const [key] = keys(1);
  assert.equal(await store.groupCommit(reserve(key!), { oneStatement: true }), key);
  assert.deepEqual(await reserved([key!]), [key], 'durable once answered');
  assert.deepEqual(store.groupCommits, sqlite() ? { transactions: 1, units: 1, retriedAlone: 0, largestBatch: 1 } : { transactions: 0, units: 0, retriedAlone: 0, largestBatch: 0 });
});

test('inside a transaction a unit runs in it, in a savepoint: it commits with that transaction', async () => {
  const [kept, undone] = keys(2);
  await assert.rejects(
    store.transaction(async (trx) => {
      await trx.groupCommit(reserve(undone!));
      throw new Error('the surrounding transaction fails');
    }),
    /the surrounding transaction fails/,
  );
  await store.transaction((trx) => trx.groupCommit(reserve(kept!)));
  assert.deepEqual(await reserved([kept!, undone!]), [kept]);
  assert.equal(store.groupCommits.transactions, 0, 'the writer took no part');
});

test('PostgreSQL: a change holding its project row and then waiting for the event log does not deadlock with an upload batch that holds the event log', async (t) => {
  if (sqlite()) return t.skip('SQLite has one writer: no row locks');
  const { user, client } = await svc.signIn('ADMIN');
  const project = await svc.createProject(user.id, { status: 'APPROVED', piStatus: 'VERIFIED' });
  let go!: () => void;
  const gate = new Promise<void>((resolve) => (go = resolve));
  let locked!: () => void;
  const rowLocked = new Promise<void>((resolve) => (locked = resolve));
  // As a lifecycle change or a details edit does: the project's row first, then the activity entry (the event log's lock).
  const change = svc.deps.store.transaction(async (trx) => {
    await trx.projects.findById(project.id, { forUpdate: true });
    locked();
    await gate;
    await trx.activity.insert({ id: newId(), userId: user.id, action: 'PROJECT_UPDATED', entityType: 'project', entityId: project.id, details: {}, createdAt: nowIso() });
  });
  await rowLocked;
  // The upload's batch takes the event log's lock, then writes a document that refers to the locked project.
  const upload = client.upload([['projectId', project.id], ['fileType', 'PO'], ['file', { data: '%PDF-1.4\n% deadlock\n', filename: 'po.pdf', type: 'application/pdf' }]]);
  await new Promise((resolve) => setTimeout(resolve, 300));
  go();
  const [answer] = await Promise.all([upload, change]);
  assert.equal(answer.status, 201, answer.text);
});

test("a batch's units share their read of a project for its event until one forgets it: a unit's own rows are seen after it, and not once undone", async () => {
  const { user } = await svc.signIn('ADMIN');
  const project = await svc.createProject(user.id, { status: 'APPROVED', piStatus: 'VERIFIED' });
  const payment = (amount: number) => ({ id: newId(), projectId: project.id, amount, currency: 'INR', receivedOn: '2026-11-28', method: null, reference: null, recordedById: user.id, createdAt: nowIso() });
  const paid = async (s: Store) => (await s.projects.forEvent(project.id))!.payments.map((p) => p.amount);
  /** A unit that writes a payment of its own, as an upload with rows of its own does (uploads/record.ts). */
  const ownRows = (amount: number, fail: boolean) => async (s: Store) => {
    s.forgetProjectReads();
    try {
      await s.payments.insert(payment(amount));
      const seen = await paid(s);
      if (fail) throw new Error('undone');
      return seen;
    } finally {
      s.forgetProjectReads();
    }
  };
  const [first] = keys(1);
  const answers = [
    store.groupCommit(reserve(first!)), // PostgreSQL: begins alone; the others queue into the next batch
    store.groupCommit(paid),
    store.groupCommit(async (s) => {
      await s.payments.insert(payment(5)); // written without forgetting: the shared read does not see it
      return paid(s);
    }),
    store.groupCommit(ownRows(7, false)),
    store.groupCommit(paid),
    store.groupCommit(ownRows(11, true)).catch((err: Error) => err.message),
    store.groupCommit(paid),
  ];
  const [, before, stale, own, after, undone, afterUndone] = await Promise.all(answers);
  // PostgreSQL: the first alone, the six behind it together; SQLite: all seven were handed over in this turn.
  assert.equal(store.groupCommits.largestBatch, sqlite() ? 7 : 6, 'the project units shared one batch');
  assert.deepEqual(before, []);
  assert.deepEqual(stale, [], 'read once for the batch');
  assert.deepEqual((own as number[]).sort(), [5, 7]);
  assert.deepEqual((after as number[]).sort(), [5, 7]);
  assert.equal(undone, 'undone');
  assert.deepEqual((afterUndone as number[]).sort(), [5, 7], 'the undone payment is not carried');
});
