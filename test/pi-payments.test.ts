/**
 * The PI and payments (interface.md, "The PI and payments"), over real HTTP on both databases:
 * submit-pi's figures (each field checked, the lifecycle's rules kept, a rejected PI submitted
 * again with new figures), POST /api/projects/:id/payments (roles, each field, the received date
 * in TIMEZONE, the currency rules), paid and balance exact at amounts near 2^53, the dashboard's
 * PI figures, and the CURRENCY setting.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { ConfigError, loadConfig } from '../src/config.js';
import { MAX_AMOUNT } from '../src/domain/money.js';
import { ISO, PROJECT_KEYS, type Someone, UUID, activityOf, changeEvents, startJobService, withoutIds } from './helpers/projects.js';
import { type Client, type TestService, collectEvents, startTestService } from './helpers/service.js';

let svc: TestService;
let admin: Someone;
let poc: Someone;
let otherPoc: Someone;
let clientUser: Someone;

/** 20:00 UTC on 10 March is already 11 March in Kolkata (UTC+05:30): "today" for a payment is the 11th. */
const NOW = '2026-03-10T20:00:00.000Z';
const TODAY = '2026-03-11';

before(async () => {
  ({ svc, admin, poc, otherPoc, clientUser } = await startJobService(() => NOW));
});
after(() => svc?.close());

const NOT_FOUND = { error: 'Project not found' };
const FORBIDDEN = { error: 'Forbidden' };
const UNAUTHORIZED = { error: 'Unauthorized' };

const submitPi = (who: { client: Client }, id: string, json?: unknown) => who.client.request('POST', `/api/projects/${id}/submit-pi`, { json });
const pay = (who: { client: Client }, id: string, json?: unknown) => who.client.request('POST', `/api/projects/${id}/payments`, { json });
const detail = async (id: string) => {
  const res = await admin.client.get(`/api/projects/${id}`);
  assert.equal(res.status, 200, res.text);
  return res.body;
};
/** An approved project of the POC's, its PI not yet submitted. */
const approvedProject = (pocId = poc.user.id) => svc.createProject(pocId, { status: 'APPROVED' });

describe('POST /api/projects/:id/submit-pi', () => {
  test('the figures are kept: the project carries pi in its detail and in the list; PI_SUBMITTED carries them too', async () => {
    const p = await approvedProject();
    const res = await submitPi(poc, p.id, { number: ' PI-2026-014 ', amount: 12_500_050, validUntil: '2026-04-30', note: 'as agreed' });
    assert.equal(res.status, 200, res.text);
    assert.deepEqual(Object.keys(res.body).sort(), PROJECT_KEYS);
    assert.equal(res.body.piStatus, 'SUBMITTED');
    assert.match(res.body.pi.submittedAt, ISO);
    const pi = { number: 'PI-2026-014', amount: 12_500_050, currency: 'INR', validUntil: '2026-04-30', submittedAt: res.body.pi.submittedAt, submittedById: poc.user.id, submittedByName: poc.user.name };
    assert.deepEqual(res.body.pi, pi);
    assert.deepEqual([res.body.paid, res.body.balance], [0, 12_500_050]);
    const shown = await detail(p.id);
    assert.deepEqual([shown.pi, shown.paid, shown.balance, shown.payments], [pi, 0, 12_500_050, []]);
    const listed = (await poc.client.get('/api/projects?limit=200')).body.items.find((x: { id: string }) => x.id === p.id);
    assert.deepEqual([listed.pi, listed.paid, listed.balance], [pi, 0, 12_500_050]);
    assert.equal(listed.payments, undefined, 'lists carry paid and balance, not the payments');

    const entry = (await activityOf(admin.client, p.id))[0]!;
    assert.equal(entry.action, 'PI_SUBMITTED');
    assert.deepEqual(entry.details, {
      from: { status: 'APPROVED', piStatus: 'PENDING' },
      to: { status: 'APPROVED', piStatus: 'SUBMITTED' },
      number: 'PI-2026-014',
      amount: 12_500_050,
      currency: 'INR',
      validUntil: '2026-04-30',
      note: 'as agreed',
    });
  });

  test('verify-pi and reject-pi keep the figures; a rejected PI is submitted again with new ones, which replace them', async () => {
    const p = await approvedProject();
    assert.equal((await submitPi(poc, p.id, { number: 'PI-1', amount: 100_000 })).status, 200);
    const rejected = await admin.client.post(`/api/projects/${p.id}/reject-pi`, { note: 'wrong rate' });
    assert.equal(rejected.status, 200, rejected.text);
    assert.deepEqual([rejected.body.piStatus, rejected.body.pi.number, rejected.body.pi.amount], ['REJECTED', 'PI-1', 100_000]);
    const again = await submitPi(admin, p.id, { number: 'PI-1/R1', amount: 90_000, currency: 'USD' });
    assert.equal(again.status, 200, again.text);
    assert.deepEqual([again.body.pi.number, again.body.pi.amount, again.body.pi.currency, again.body.pi.validUntil, again.body.pi.submittedById], [
      'PI-1/R1',
      90_000,
      'USD',
      null,
      admin.user.id,
    ]);
    const verified = await admin.client.post(`/api/projects/${p.id}/verify-pi`, {});
    assert.equal(verified.status, 200, verified.text);
    assert.deepEqual([verified.body.piStatus, verified.body.pi], ['VERIFIED', again.body.pi]);
    // The lifecycle is unchanged: a verified PI is not submitted again.
    const twice = await submitPi(poc, p.id, { number: 'PI-2', amount: 1 });
    assert.deepEqual([twice.status, twice.body], [409, { error: 'Cannot submit pi a project that is PI VERIFIED' }]);
  });

  test('each field is checked with a message naming it, and nothing changes', async () => {
    const p = await approvedProject();
    const cases: [unknown, string][] = [
      [{}, 'PI number is required'],
      [{ amount: 100 }, 'PI number is required'],
      [{ number: '   ', amount: 100 }, 'PI number is required'],
      [{ number: 42, amount: 100 }, 'PI number must be text'],
      [{ number: 'x'.repeat(101), amount: 100 }, 'PI number must be at most 100 characters'],
      [{ number: 'PI-1' }, 'Amount is required'],
      [{ number: 'PI-1', amount: 0 }, 'Amount must be more than 0'],
      [{ number: 'PI-1', amount: -5 }, 'Amount must be more than 0'],
      [{ number: 'PI-1', amount: 10.5 }, 'Amount must be a whole number'],
      [{ number: 'PI-1', amount: '100' }, 'Amount must be a whole number'],
      [{ number: 'PI-1', amount: MAX_AMOUNT + 1 }, `Amount must be at most ${MAX_AMOUNT}`],
      [{ number: 'PI-1', amount: 1e20 }, `Amount must be at most ${MAX_AMOUNT}`],
      [{ number: 'PI-1', amount: 100, currency: 'inr' }, 'Currency must be an ISO 4217 currency code in capitals, such as INR'],
      [{ number: 'PI-1', amount: 100, currency: 'ABC' }, 'Currency must be an ISO 4217 currency code in capitals, such as INR'],
      [{ number: 'PI-1', amount: 100, validUntil: '2026-02-30' }, 'Valid until must be a real date written YYYY-MM-DD'],
      [{ number: 'PI-1', amount: 100, validUntil: 20260430 }, 'Valid until must be text'],
      [{ number: 'PI-1', amount: 100, discount: 'x' }, 'discount is not a known field'],
    ];
    for (const [body, error] of cases) {
      const res = await submitPi(poc, p.id, body);
      assert.equal(res.status, 400, JSON.stringify(body));
      assert.ok(res.body.error.startsWith(error), `${JSON.stringify(body)}: ${res.body.error}`);
    }
    const none = await submitPi(poc, p.id);
    assert.equal(none.status, 400, 'no body at all');
    const after = await detail(p.id);
    assert.deepEqual([after.piStatus, after.pi], ['PENDING', null]);
    assert.equal((await activityOf(admin.client, p.id)).length, 0);
  });

  test('who may submit: the owner and an ADMIN; anyone else who may see 403, who may not 404, no session 401 — before the body is read', async () => {
    const p = await approvedProject();
    const body = { number: 'PI-9', amount: 500 };
    for (const bodyOrNot of [body, {}]) {
      assert.deepEqual(await submitPi(otherPoc, p.id, bodyOrNot).then((r) => [r.status, r.body]), [404, NOT_FOUND]);
      assert.deepEqual(await submitPi(clientUser, p.id, bodyOrNot).then((r) => [r.status, r.body]), [404, NOT_FOUND]);
      assert.deepEqual(await submitPi({ client: svc.anonymous }, p.id, bodyOrNot).then((r) => [r.status, r.body]), [401, UNAUTHORIZED]);
      assert.deepEqual(await submitPi(poc, '0190aaaa-0000-7000-8000-000000000000', bodyOrNot).then((r) => [r.status, r.body]), [404, NOT_FOUND]);
    }
    const cancelled = await svc.createProject(poc.user.id, { status: 'CANCELLED' });
    assert.deepEqual(await submitPi(poc, cancelled.id, {}).then((r) => [r.status, r.body]), [409, { error: 'Cannot submit pi a project that is CANCELLED' }]);
    assert.equal((await detail(p.id)).pi, null);
    assert.equal((await submitPi(poc, p.id, body)).status, 200);
  });
});

describe('POST /api/projects/:id/payments', () => {
  test('an ADMIN records a payment: 201 with the payment; the project carries payments (newest first), paid and balance; the two notifications', async () => {
    const p = await approvedProject();
    assert.equal((await submitPi(poc, p.id, { number: 'PI-77', amount: 12_500_000 })).status, 200);
    let res!: Awaited<ReturnType<typeof pay>>;
    const events = await collectEvents(poc.client, 2, async () => {
      res = await pay(admin, p.id, { amount: 5_000_000, receivedOn: '2026-03-01', method: ' NEFT ', reference: 'UTR 1234' });
    });
    assert.equal(res.status, 201, res.text);
    assert.deepEqual(withoutIds(events), changeEvents(p.id));
    assert.match(res.body.id, UUID);
    assert.match(res.body.createdAt, ISO);
    const first = { id: res.body.id, amount: 5_000_000, currency: 'INR', receivedOn: '2026-03-01', method: 'NEFT', reference: 'UTR 1234', recordedById: admin.user.id, createdAt: res.body.createdAt };
    assert.deepEqual(res.body, first);
    // Today in Kolkata is already the 11th (UTC's date is still the 10th).
    const second = await pay(admin, p.id, { amount: 2_500_000, receivedOn: TODAY });
    assert.equal(second.status, 201, second.text);
    assert.deepEqual([second.body.currency, second.body.method, second.body.reference], ['INR', null, null]);

    const shown = await detail(p.id);
    assert.deepEqual(shown.payments, [second.body, first]);
    assert.deepEqual([shown.paid, shown.balance], [7_500_000, 5_000_000]);
    const ownerView = await poc.client.get(`/api/projects/${p.id}`);
    assert.deepEqual([ownerView.body.paid, ownerView.body.balance, ownerView.body.payments.length], [7_500_000, 5_000_000, 2], 'who may see the project sees its payments');
    const listed = (await admin.client.get('/api/projects?limit=200')).body.items.find((x: { id: string }) => x.id === p.id);
    assert.deepEqual([listed.paid, listed.balance], [7_500_000, 5_000_000]);

    const entry = (await activityOf(admin.client, p.id))[0]!;
    assert.deepEqual([entry.action, entry.userId, entry.details], ['PAYMENT_RECORDED', admin.user.id, { paymentId: second.body.id, amount: 2_500_000, currency: 'INR', receivedOn: TODAY }]);
  });

  test('only an ADMIN: the owner 403, anyone else 404, no session 401 — whatever the body — and nothing is stored', async () => {
    const p = await approvedProject();
    const body = { amount: 100, receivedOn: '2026-03-01' };
    for (const bodyOrNot of [body, { amount: 'lots' }]) {
      assert.deepEqual(await pay(poc, p.id, bodyOrNot).then((r) => [r.status, r.body]), [403, FORBIDDEN]);
      assert.deepEqual(await pay(otherPoc, p.id, bodyOrNot).then((r) => [r.status, r.body]), [404, NOT_FOUND]);
      assert.deepEqual(await pay(clientUser, p.id, bodyOrNot).then((r) => [r.status, r.body]), [404, NOT_FOUND]);
      assert.deepEqual(await pay({ client: svc.anonymous }, p.id, bodyOrNot).then((r) => [r.status, r.body]), [401, UNAUTHORIZED]);
    }
    assert.deepEqual(await pay(admin, '0190aaaa-0000-7000-8000-000000000000', body).then((r) => [r.status, r.body]), [404, NOT_FOUND]);
    const shown = await detail(p.id);
    assert.deepEqual([shown.payments, shown.paid], [[], 0]);
    assert.equal((await activityOf(admin.client, p.id)).length, 0);
  });

  test('each field is checked with a message naming it (the received date against today in TIMEZONE), and nothing is stored', async () => {
    const p = await approvedProject();
    const cases: [unknown, string][] = [
      [{ receivedOn: TODAY }, 'Amount is required'],
      [{ amount: 0, receivedOn: TODAY }, 'Amount must be more than 0'],
      [{ amount: 1.25, receivedOn: TODAY }, 'Amount must be a whole number'],
      [{ amount: MAX_AMOUNT + 1, receivedOn: TODAY }, `Amount must be at most ${MAX_AMOUNT}`],
      [{ amount: 100 }, 'Received on is required'],
      [{ amount: 100, receivedOn: '11/03/2026' }, 'Received on must be a real date written YYYY-MM-DD'],
      [{ amount: 100, receivedOn: '2026-02-29' }, 'Received on must be a real date written YYYY-MM-DD'],
      [{ amount: 100, receivedOn: '2026-03-12' }, 'Received on must not be in the future (today is 2026-03-11)'],
      [{ amount: 100, receivedOn: TODAY, currency: 'rupees' }, 'Currency must be an ISO 4217 currency code in capitals, such as INR'],
      [{ amount: 100, receivedOn: TODAY, method: 'x'.repeat(101) }, 'Method must be at most 100 characters'],
      [{ amount: 100, receivedOn: TODAY, reference: 'x'.repeat(101) }, 'Reference must be at most 100 characters'],
      [{ amount: 100, receivedOn: TODAY, note: 'x' }, 'Note is not a known field'],
    ];
    for (const [body, error] of cases) {
      const res = await pay(admin, p.id, body);
      assert.equal(res.status, 400, JSON.stringify(body));
      assert.ok(res.body.error.startsWith(error), `${JSON.stringify(body)}: ${res.body.error}`);
    }
    const shown = await detail(p.id);
    assert.deepEqual([shown.payments, shown.paid, shown.balance], [[], 0, null]);
  });

  test('currency: an advance before any PI is in CURRENCY; later ones and the PI must keep to it; then the PI’s currency', async () => {
    const p = await approvedProject();
    const advance = await pay(admin, p.id, { amount: 1_000_000, receivedOn: '2026-03-02' });
    assert.equal(advance.status, 201, advance.text);
    assert.equal(advance.body.currency, 'INR');
    let shown = await detail(p.id);
    assert.deepEqual([shown.paid, shown.balance], [1_000_000, null], 'no PI: paid, and no balance');
    const euros = await pay(admin, p.id, { amount: 5, receivedOn: '2026-03-02', currency: 'EUR' });
    assert.deepEqual([euros.status, euros.body], [400, { error: 'Currency must be INR, the currency of the payments already recorded' }]);
    const usdPi = await submitPi(poc, p.id, { number: 'PI-USD', amount: 20_000, currency: 'USD' });
    assert.deepEqual([usdPi.status, usdPi.body], [400, { error: 'Currency must be INR, the currency of the payments already recorded' }]);
    assert.equal((await detail(p.id)).piStatus, 'PENDING', 'the refused PI changed nothing');
    assert.equal((await submitPi(poc, p.id, { number: 'PI-INR', amount: 3_000_000 })).status, 200);
    shown = await detail(p.id);
    assert.deepEqual([shown.paid, shown.balance], [1_000_000, 2_000_000]);

    const q = await approvedProject();
    assert.equal((await submitPi(poc, q.id, { number: 'PI-D', amount: 20_000, currency: 'USD' })).status, 200);
    const inr = await pay(admin, q.id, { amount: 5, receivedOn: '2026-03-02', currency: 'INR' });
    assert.deepEqual([inr.status, inr.body], [400, { error: "Currency must be USD, the currency of the project's PI" }]);
    const usd = await pay(admin, q.id, { amount: 20_000, receivedOn: '2026-03-02' });
    assert.deepEqual([usd.status, usd.body.currency], [201, 'USD']);
    assert.deepEqual(await detail(q.id).then((d) => [d.paid, d.balance]), [20_000, 0]);
  });

  test('paid and balance stay exact near 2^53: a PI of MAX_AMOUNT paid in full; past it refused; an overpaid PI has a negative balance', async () => {
    const p = await approvedProject();
    assert.equal((await submitPi(poc, p.id, { number: 'PI-MAX', amount: MAX_AMOUNT })).status, 200);
    assert.equal((await pay(admin, p.id, { amount: MAX_AMOUNT - 1, receivedOn: '2026-03-01' })).status, 201);
    let shown = await detail(p.id);
    assert.deepEqual([shown.paid, shown.balance], [MAX_AMOUNT - 1, 1]);
    assert.equal((await pay(admin, p.id, { amount: 1, receivedOn: '2026-03-01' })).status, 201);
    shown = await detail(p.id);
    assert.deepEqual([shown.paid, shown.balance], [MAX_AMOUNT, 0]);
    const past = await pay(admin, p.id, { amount: 1, receivedOn: '2026-03-01' });
    assert.deepEqual([past.status, past.body], [400, { error: `Amount would take this project's payments beyond ${MAX_AMOUNT} in all` }]);
    assert.equal((await detail(p.id)).payments.length, 2);

    const small = await approvedProject();
    assert.equal((await submitPi(poc, small.id, { number: 'PI-S', amount: 100 })).status, 200);
    assert.equal((await pay(admin, small.id, { amount: MAX_AMOUNT, receivedOn: '2026-03-01' })).status, 201);
    assert.deepEqual(await detail(small.id).then((d) => [d.paid, d.balance]), [MAX_AMOUNT, 100 - MAX_AMOUNT]);
  });
});

describe('the dashboard', () => {
  test('pi.awaitingVerification is scoped like the rest; ADMINs also get what is outstanding per currency, exact beyond 2^53', async () => {
    const stats = async (who: Someone) => {
      const res = await who.client.get('/api/dashboard/stats');
      assert.equal(res.status, 200, res.text);
      return res.body;
    };
    const owner = await svc.signIn('POC');
    const before = (await stats(admin)).pi.awaitingVerification;
    assert.deepEqual((await stats(owner)).pi, { awaitingVerification: 0 }, 'no outstanding for a POC');

    // Kuwaiti dinars and yen: currencies no other test uses, so the totals are this test's own.
    const a = await approvedProject(owner.user.id);
    const b = await approvedProject(owner.user.id);
    const c = await approvedProject(owner.user.id);
    const d = await approvedProject(owner.user.id);
    assert.equal((await submitPi(owner, a.id, { number: 'K-1', amount: 5_000, currency: 'KWD' })).status, 200);
    assert.equal((await submitPi(owner, b.id, { number: 'K-2', amount: 7_250, currency: 'KWD' })).status, 200);
    assert.equal((await pay(admin, b.id, { amount: 250, receivedOn: '2026-03-01' })).status, 201);
    // Overpaid: no negative share in the total.
    assert.equal((await submitPi(owner, c.id, { number: 'K-3', amount: 100, currency: 'KWD' })).status, 200);
    assert.equal((await pay(admin, c.id, { amount: 900, receivedOn: '2026-03-01' })).status, 201);
    assert.equal((await admin.client.post(`/api/projects/${a.id}/verify-pi`, {})).status, 200);
    // A rejected PI is not owed until it comes back.
    assert.equal((await submitPi(owner, d.id, { number: 'K-4', amount: 999_999, currency: 'KWD' })).status, 200);
    assert.equal((await admin.client.post(`/api/projects/${d.id}/reject-pi`, {})).status, 200);

    assert.deepEqual((await stats(owner)).pi, { awaitingVerification: 2 });
    assert.deepEqual((await stats(otherPoc)).pi.awaitingVerification, 0);
    const adminStats = (await stats(admin)).pi;
    assert.equal(adminStats.awaitingVerification, before + 2);
    assert.deepEqual(adminStats.outstanding.KWD, { amount: 5_000 + 7_000, projects: 2 });

    // Two PIs of MAX_AMOUNT yen: their total exact (totals past 2^53 and 2^63: test/amount-limits.test.ts).
    for (const number of ['Y-1', 'Y-2']) {
      const y = await approvedProject(owner.user.id);
      assert.equal((await submitPi(owner, y.id, { number, amount: MAX_AMOUNT, currency: 'JPY' })).status, 200);
    }
    assert.deepEqual((await stats(admin)).pi.outstanding.JPY, { amount: 2 * MAX_AMOUNT, projects: 2 });
  });
});

describe('CURRENCY', () => {
  test('an ISO 4217 code in capitals is taken; anything else stops start-up with a message naming the variable; unset, INR', () => {
    const env = { DATA_DIR: '/tmp/unused' };
    assert.equal(loadConfig(env).currency, 'INR');
    assert.equal(loadConfig({ ...env, CURRENCY: 'USD' }).currency, 'USD');
    for (const bad of ['usd', 'RUPEE', 'XQZ', '₹']) {
      assert.throws(
        () => loadConfig({ ...env, CURRENCY: bad }),
        (err: unknown) => err instanceof ConfigError && err.message === `CURRENCY must be an ISO 4217 currency code in capitals such as INR or USD, got "${bad}"`,
        bad,
      );
    }
  });

  test('a service with CURRENCY=USD takes a PI and an advance in dollars when none is named', async () => {
    const usd = await startTestService({ env: { CURRENCY: 'USD' } });
    try {
      const [a, o] = await Promise.all([usd.signIn('ADMIN'), usd.signIn('POC')]);
      const p = await usd.createProject(o.user.id, { status: 'APPROVED' });
      const advance = await a.client.post(`/api/projects/${p.id}/payments`, { amount: 100, receivedOn: '2026-01-05' });
      assert.deepEqual([advance.status, advance.body.currency], [201, 'USD']);
      const pi = await o.client.post(`/api/projects/${p.id}/submit-pi`, { number: 'PI-1', amount: 1_000 });
      assert.deepEqual([pi.status, pi.body.pi.currency, pi.body.balance], [200, 'USD', 900]);
    } finally {
      await usd.close();
    }
  });
});
