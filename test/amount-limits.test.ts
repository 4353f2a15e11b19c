/**
 * Amounts at their numeric limits (issue 33, item 11), over real HTTP on both databases: a PI or a
 * payment above MAX_AMOUNT (10^12 minor units) is a 400 naming the amount; and what older rows may
 * hold (PIs of the former bound, 9,007,199,254,740,000 paise, ~1,025 of which passed 2^63 and made
 * SQLite's sum() fail) is still summed exactly by the dashboard, the CSV and the project.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { sql } from 'kysely';
import { MAX_AMOUNT } from '../src/domain/money.js';
import { type Someone, startJobService } from './helpers/projects.js';
import { seedProjects } from './helpers/seed-projects.js';
import type { TestService } from './helpers/service.js';

const NOW = '2026-03-10T10:00:00.000Z';
const OLD_BOUND = 9_007_199_254_740_000;
let svc: TestService;
let admin: Someone;
let poc: Someone;
/** The first test's project: its PI of MAX_AMOUNT paid in full, left as it is. */
let bounded = '';

before(async () => {
  ({ svc, admin, poc } = await startJobService(() => NOW));
});
after(() => svc?.close());

test('a PI or a payment above 10^12 minor units is a 400 naming the amount; at the bound it is taken', async () => {
  assert.equal(MAX_AMOUNT, 1_000_000_000_000);
  const p = await svc.createProject(poc.user.id, { status: 'APPROVED' });
  bounded = p.id;
  for (const amount of [OLD_BOUND, MAX_AMOUNT + 1]) {
    const res = await poc.client.post(`/api/projects/${p.id}/submit-pi`, { number: 'PI-BIG', amount });
    assert.deepEqual([res.status, res.body], [400, { error: 'Amount must be at most 1000000000000' }], String(amount));
  }
  assert.equal((await poc.client.post(`/api/projects/${p.id}/submit-pi`, { number: 'PI-MAX', amount: MAX_AMOUNT })).status, 200);
  const big = await admin.client.post(`/api/projects/${p.id}/payments`, { amount: OLD_BOUND, receivedOn: '2026-03-01' });
  assert.deepEqual([big.status, big.body], [400, { error: 'Amount must be at most 1000000000000' }]);
  assert.equal((await admin.client.post(`/api/projects/${p.id}/payments`, { amount: MAX_AMOUNT, receivedOn: '2026-03-01' })).status, 201);
  const past = await admin.client.post(`/api/projects/${p.id}/payments`, { amount: 1, receivedOn: '2026-03-01' });
  assert.deepEqual([past.status, past.body], [400, { error: `Amount would take this project's payments beyond ${MAX_AMOUNT} in all` }]);
});

test('1,100 PIs of the former bound (past 2^63 together) are summed exactly by the dashboard on both databases; the CSV and the project answer', async () => {
  await seedProjects(svc.deps.database, { projects: 3_300, customers: 5, pocIds: [poc.user.id], today: '2026-03-10' });
  const db = svc.deps.database.db;
  await db.updateTable('projects').set({ pi_amount: OLD_BOUND, status: 'APPROVED' }).where('pi_status', '=', 'SUBMITTED').where('id', '!=', bounded).execute();
  // One of them part paid (its balance is summed, not its amount).
  const [one] = await db.selectFrom('projects').select('id').where('pi_amount', '=', OLD_BOUND).limit(1).execute();
  await db.insertInto('payments').values({ id: '00000000-0000-7000-8000-000000000001', project_id: one!.id, amount: 123, currency: 'INR', received_on: '2026-03-01', method: null, reference: null, recorded_by_id: admin.user.id, created_at: NOW }).execute();
  const counted = await db.selectFrom('projects').select(sql<number>`count(*)`.as('n')).where('pi_amount', '=', OLD_BOUND).executeTakeFirstOrThrow();
  const n = BigInt(counted.n);
  assert.ok(n >= 1_100n && n * BigInt(OLD_BOUND) > 2n ** 63n, 'the seeded PIs pass 2^63 together');
  // What the first test left owed: none (paid in full).
  const want = (n * BigInt(OLD_BOUND) - 123n).toString();

  const stats = await admin.client.get('/api/dashboard/stats');
  assert.equal(stats.status, 200, stats.text);
  assert.deepEqual(stats.body.pi.outstanding.INR, { amount: want, projects: Number(n) });
  // The POC sees the same projects (all theirs).
  assert.equal((await poc.client.get('/api/dashboard/stats')).status, 200);

  const csv = await fetch(`${svc.url}/api/projects.csv`, { headers: { cookie: admin.client.cookie! } });
  const text = await csv.text();
  assert.equal(csv.status, 200);
  assert.ok(text.includes(',90071992547400.00,INR,0.00,90071992547400.00,'), 'an unpaid PI of the former bound, exact');
  assert.ok(text.includes(',90071992547400.00,INR,1.23,90071992547398.77,'), 'the part paid one, exact');
  const shown = await admin.client.get(`/api/projects/${one!.id}`);
  assert.deepEqual([shown.status, shown.body.paid, shown.body.balance], [200, 123, OLD_BOUND - 123]);
});
