/**
 * Reports (interface.md, "Additions of 2026-11-27", Reports) over real HTTP, on the database the
 * run selects: every figure of GET /api/reports and GET /api/reports.csv against values computed
 * by hand on a crafted set in TIMEZONE Asia/Kolkata (UTC+05:30), where a moment after midnight is
 * still the day before in UTC. The projects go through the API (customers, lifecycle, PIs,
 * payments); the instants the API cannot set in the past (creation, delivery, verification) are
 * then moved in the database, as the log would hold them had the work happened then.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Client, Response, TestService } from './helpers/service.js';
import { startTestService } from './helpers/service.js';
import { gstinCheckCharacter } from '../src/domain/gstin.js';

/** An instant given as IST wall-clock time ("2026-01-15 23:59"), as the ISO UTC string tables hold. */
const ist = (local: string) => new Date(`${local.replace(' ', 'T')}:00+05:30`).toISOString();

interface Crafted {
  name: string;
  customer: 'acme' | 'brill' | null;
  dueDate?: string;
  created: string;
  pi?: { amount: number; currency?: string; verified: string };
  delivered?: string;
  cancel?: boolean;
  payments?: { amount: number; receivedOn: string }[];
}

/*
 * The set, and the figures by hand for 2026-01-01..2026-03-31:
 * deliveries in range: P7 (Jan 2, due Jan 5, 13 days), P1 (Jan 15 23:59, due Jan 15: on time, 10 days),
 * P2 (Jan 16 00:01, due Jan 15: late, 6 days), P3 (Feb 25, due Mar 1, 5 days), P4 (Mar 12, no due date,
 * created Mar 10 00:10 IST = Mar 9 in UTC: 2 days). delivered 5, withDueDate 4, onTime 3, rate 0.75;
 * turnaround [2, 5, 6, 10, 13]: median rank 3 → 6, p90 rank 5 → 13.
 * created: Jan P1 P2; Feb P5 (Feb 1 00:20 IST = Jan 31 in UTC) P3; Mar P4 P6 (P7 in December).
 * received INR: Jan 40,000 (P1), Feb 60,000 (P1), Mar 10,000 (P2); P3's April payment is after `to`; P6's is USD.
 * outstanding as of Mar 31: P1 paid in full; P2 40,000 Acme verified Feb 15 00:05 IST (Feb 14 in UTC) → 44 days;
 * P3 300,000 Brill verified Dec 1 → 120 days; P4 20,000 no customer verified Mar 20 → 11 days; P5 cancelled; P6 USD.
 */
const SET: Crafted[] = [
  { name: 'P1', customer: 'acme', dueDate: '2026-01-15', created: '2026-01-05 10:00', pi: { amount: 100_000, verified: '2026-01-06 11:00' }, delivered: '2026-01-15 23:59', payments: [{ amount: 40_000, receivedOn: '2026-01-20' }, { amount: 60_000, receivedOn: '2026-02-10' }] },
  { name: 'P2', customer: 'acme', dueDate: '2026-01-15', created: '2026-01-10 09:00', pi: { amount: 50_000, verified: '2026-02-15 00:05' }, delivered: '2026-01-16 00:01', payments: [{ amount: 10_000, receivedOn: '2026-03-05' }] },
  { name: 'P3', customer: 'brill', dueDate: '2026-03-01', created: '2026-02-20 15:00', pi: { amount: 300_000, verified: '2025-12-01 12:00' }, delivered: '2026-02-25 12:00', payments: [{ amount: 100_000, receivedOn: '2026-04-02' }] },
  { name: 'P4', customer: null, created: '2026-03-10 00:10', pi: { amount: 20_000, verified: '2026-03-20 10:00' }, delivered: '2026-03-12 18:00' },
  { name: 'P5', customer: 'acme', dueDate: '2026-02-20', created: '2026-02-01 00:20', pi: { amount: 70_000, verified: '2026-02-02 10:00' }, cancel: true },
  { name: 'P6', customer: 'brill', created: '2026-03-15 10:00', pi: { amount: 5_000, currency: 'USD', verified: '2026-03-16 10:00' }, payments: [{ amount: 1_000, receivedOn: '2026-03-20' }] },
  { name: 'P7', customer: 'brill', dueDate: '2026-01-05', created: '2025-12-20 10:00', pi: { amount: 10_000, verified: '2025-12-21 10:00' }, delivered: '2026-01-02 10:00', payments: [{ amount: 10_000, receivedOn: '2025-12-22' }] },
];

const ok = async (res: Promise<Response>, status = 200) => {
  const r = await res;
  assert.equal(r.status, status, r.text);
  return r.body;
};

describe('reports: every figure against a crafted set', () => {
  let svc: TestService;
  let admin: Client;
  const ids: Record<string, string> = {};
  const customers: Record<string, string> = {};

  before(async () => {
    svc = await startTestService({ env: { TIMEZONE: 'Asia/Kolkata', CURRENCY: 'INR' } });
    svc.deps.clock = { now: () => new Date(ist('2026-04-10 12:00')) };
    ({ client: admin } = await svc.signIn('ADMIN'));
    customers.acme = (await ok(admin.post('/api/customers', { name: 'Acme Prints' }), 201)).id;
    customers.brill = (await ok(admin.post('/api/customers', { name: 'Brill Stationers' }), 201)).id;
    const db = svc.deps.database.db;
    for (const p of SET) {
      const project = await ok(admin.post('/api/projects', { name: p.name, customerId: p.customer && customers[p.customer], dueDate: p.dueDate ?? null }), 201);
      const id: string = project.id;
      ids[p.name] = id;
      await ok(admin.post(`/api/projects/${id}/approve`, {}));
      if (p.pi) {
        await ok(admin.post(`/api/projects/${id}/submit-pi`, { number: `PI-${p.name}`, amount: p.pi.amount, currency: p.pi.currency }));
        await ok(admin.post(`/api/projects/${id}/verify-pi`, {}));
      }
      if (p.delivered) {
        for (const action of ['start-printing', 'dispatch', 'deliver']) await ok(admin.post(`/api/projects/${id}/${action}`, {}));
      }
      if (p.cancel) await ok(admin.post(`/api/projects/${id}/cancel`, { note: 'customer withdrew' }));
      for (const pay of p.payments ?? []) await ok(admin.post(`/api/projects/${id}/payments`, pay), 201);
      await db.updateTable('projects').set({ created_at: ist(p.created) }).where('id', '=', id).execute();
      const move = (action: string, at: string) => db.updateTable('activity_log').set({ created_at: ist(at) }).where('entity_id', '=', id).where('action', '=', action).execute();
      if (p.pi) await move('PI_VERIFIED', p.pi.verified);
      if (p.delivered) await move('PROJECT_DELIVERED', p.delivered);
    }
  });
  after(() => svc?.close());

  test('GET /api/reports: on time, turnaround, by month, outstanding, aging, other currencies', async () => {
    const report = await ok(admin.get('/api/reports?from=2026-01-01&to=2026-03-31'));
    assert.deepEqual(report, {
      from: '2026-01-01',
      to: '2026-03-31',
      currency: 'INR',
      onTime: { delivered: 5, withDueDate: 4, onTime: 3, rate: 0.75 },
      turnaround: { medianDays: 6, p90Days: 13 },
      byMonth: [
        { month: '2026-01', created: 2, delivered: 3, invoiced: 0, received: 40_000 },
        { month: '2026-02', created: 2, delivered: 1, invoiced: 0, received: 60_000 },
        { month: '2026-03', created: 2, delivered: 1, invoiced: 0, received: 10_000 },
      ],
      outstanding: [
        { customerId: customers.brill, customerName: 'Brill Stationers', balance: 300_000, oldestDays: 120 },
        { customerId: customers.acme, customerName: 'Acme Prints', balance: 40_000, oldestDays: 44 },
        { customerId: null, customerName: null, balance: 20_000, oldestDays: 11 },
      ],
      aging: { '0-30': 20_000, '31-60': 40_000, '61-90': 0, '90+': 300_000 },
      otherCurrencies: { USD: 1 },
    });
  });

  test('figures are as of `to`: a shorter range leaves out later deliveries, payments and verifications', async () => {
    const report = await ok(admin.get('/api/reports?from=2026-01-16&to=2026-02-14'));
    // Only P2's delivery (Jan 16 00:01 IST) falls in; it was late. P3 is delivered after; P2's PI verified after (Feb 15 IST).
    assert.deepEqual(report.onTime, { delivered: 1, withDueDate: 1, onTime: 0, rate: 0 });
    assert.deepEqual(report.turnaround, { medianDays: 6, p90Days: 6 });
    // P5 created Feb 1 00:20 IST counts in February; P1's Feb 10 payment in February, its Jan 20 one outside the range.
    assert.deepEqual(report.byMonth, [
      { month: '2026-01', created: 0, delivered: 1, invoiced: 0, received: 40_000 },
      { month: '2026-02', created: 1, delivered: 0, invoiced: 0, received: 60_000 },
    ]);
    // As of Feb 14: P3 owes 300,000 (75 days); P1 is paid in full by Feb 10; P2 not yet verified; P4 not yet; P5 cancelled.
    assert.deepEqual(report.outstanding, [{ customerId: customers.brill, customerName: 'Brill Stationers', balance: 300_000, oldestDays: 75 }]);
    assert.deepEqual(report.aging, { '0-30': 0, '31-60': 0, '61-90': 300_000, '90+': 0 });
    assert.deepEqual(report.otherCurrencies, {});
  });

  test('the default range: the first day of the month 11 months ago to today in TIMEZONE', async () => {
    const report = await ok(admin.get('/api/reports'));
    assert.equal(report.from, '2025-05-01');
    assert.equal(report.to, '2026-04-10');
    assert.equal(report.byMonth.length, 12);
    assert.deepEqual(report.byMonth.at(-1), { month: '2026-04', created: 0, delivered: 0, invoiced: 0, received: 100_000 });
    // P7's December: created, verified and paid.
    assert.deepEqual(report.byMonth[7], { month: '2025-12', created: 1, delivered: 0, invoiced: 0, received: 10_000 });
    // As of Apr 10 P3 owes 200,000.
    assert.equal(report.outstanding[0].balance, 200_000);
  });

  test('bad ranges are 400 naming the parameter', async () => {
    const cases: [string, string][] = [
      ['from=2026-02-30', 'querystring.from must be a real date written YYYY-MM-DD'],
      ['to=31-03-2026', 'querystring.to must be a real date written YYYY-MM-DD'],
      ['from=2026-03-02&to=2026-03-01', 'to must not be before from'],
      ['from=2021-03-01&to=2026-03-02', 'from and to must be at most 5 years apart'],
    ];
    for (const [query, error] of cases) {
      const res = await admin.get(`/api/reports?${query}`);
      assert.equal(res.status, 400, query);
      assert.deepEqual(res.body, { error }, query);
    }
    assert.equal((await admin.get('/api/reports?from=2021-03-01&to=2026-03-01')).status, 200);
    const csv = await admin.get('/api/reports.csv?report=projects');
    assert.equal(csv.status, 400);
    assert.match(csv.body.error, /^querystring\.report /);
  });

  test('POC and CLIENT are refused, and no session is 401', async () => {
    for (const role of ['POC', 'CLIENT'] as const) {
      const { client } = await svc.signIn(role);
      for (const path of ['/api/reports', '/api/reports.csv?report=byMonth']) {
        const res = await client.get(path);
        assert.equal(res.status, 403, `${role} ${path}`);
        assert.deepEqual(res.body, { error: 'Forbidden' });
      }
    }
    assert.equal((await svc.anonymous.get('/api/reports')).status, 401);
  });

  test('GET /api/reports.csv: byMonth and outstanding, amounts in major units', async () => {
    // The raw bytes: fetch's text() would drop the byte-order mark.
    const download = async (query: string) => {
      const res = await fetch(`${svc.url}/api/reports.csv?${query}`, { headers: { cookie: admin.cookie! } });
      return { status: res.status, headers: res.headers, text: Buffer.from(await res.arrayBuffer()).toString('utf8') };
    };
    const byMonth = await download('report=byMonth&from=2026-01-01&to=2026-03-31');
    assert.equal(byMonth.status, 200);
    assert.equal(byMonth.headers.get('content-type'), 'text/csv; charset=utf-8');
    assert.match(byMonth.headers.get('content-disposition')!, /^attachment; filename="report-byMonth-2026-01-01-2026-03-31\.csv"$/);
    assert.equal(
      byMonth.text,
      '\uFEFFmonth,created,delivered,invoiced,received\r\n2026-01,2,3,0.00,400.00\r\n2026-02,2,1,0.00,600.00\r\n2026-03,2,1,0.00,100.00\r\n',
    );
    const outstanding = await download('report=outstanding&from=2026-01-01&to=2026-03-31');
    assert.equal(outstanding.status, 200);
    assert.equal(outstanding.text, '\uFEFFcustomer,balance,oldestDays\r\nBrill Stationers,3000.00,120\r\nAcme Prints,400.00,44\r\n,200.00,11\r\n');
  });

  test('invoiced: the totals of the tax invoices dated in each month; a withdrawn one is left out, its reissue counted', async () => {
    const shopGstin = '29AAGCB7383J1Z' + gstinCheckCharacter('29AAGCB7383J1Z')!;
    await ok(admin.patch('/api/settings/shop', { name: 'Sharma Printers', gstin: shopGstin }));
    // 10 × 10.00 at 18 %, the customer without a state: CGST 9.00 + SGST 9.00, total 118.00 (11,800 paise).
    const invoiceable = async (name: string) => {
      const { id } = await ok(admin.post('/api/projects', { name, customerId: customers.acme, items: [{ description: 'Cards', quantity: 10, unitPrice: 1_000, gstRate: 18 }] }), 201);
      await ok(admin.post(`/api/projects/${id}/approve`, {}));
      await ok(admin.post(`/api/projects/${id}/submit-pi`, { number: `PI-${name}`, amount: 11_800 }));
      await ok(admin.post(`/api/projects/${id}/verify-pi`, {}));
      for (const action of ['start-printing', 'dispatch']) await ok(admin.post(`/api/projects/${id}/${action}`, {}));
      return id as string;
    };
    const february = await invoiceable('Invoiced in February');
    const march = await invoiceable('Invoiced in March');
    const feb = await ok(admin.post(`/api/projects/${february}/invoice`, { invoiceDate: '2026-02-10' }), 201);
    assert.equal(feb.total, 11_800);
    const withdrawn = await ok(admin.post(`/api/projects/${march}/invoice`, { invoiceDate: '2026-03-05' }), 201);
    await ok(admin.post(`/api/projects/${march}/files/${withdrawn.file.id}/void`, { reason: 'Wrong date' }));
    const before = await ok(admin.get('/api/reports?from=2026-01-01&to=2026-03-31'));
    assert.deepEqual(before.byMonth.map((m: { invoiced: number }) => m.invoiced), [0, 11_800, 0]);
    await ok(admin.post(`/api/projects/${march}/invoice`, { invoiceDate: '2026-03-06' }), 201);
    const report = await ok(admin.get('/api/reports?from=2026-01-01&to=2026-03-31'));
    assert.deepEqual(report.byMonth.map((m: { invoiced: number }) => m.invoiced), [0, 11_800, 11_800]);
    // The other figures are as before: these projects were created and verified after the range.
    assert.deepEqual(report.onTime, { delivered: 5, withDueDate: 4, onTime: 3, rate: 0.75 });
    assert.equal(report.outstanding.length, 3);
    const csv = await admin.get('/api/reports.csv?report=byMonth&from=2026-02-01&to=2026-03-31');
    assert.equal(csv.text, 'month,created,delivered,invoiced,received\r\n2026-02,2,1,118.00,600.00\r\n2026-03,2,1,118.00,100.00\r\n');
  });
});
