import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { User } from '../src/domain/model.js';
import { settled, startMailService } from './helpers/mail.js';
import type { Client, TestService } from './helpers/service.js';
import type { TestSmtpServer } from './helpers/smtp.js';

/** Orders placed by a customer's people, and the shop's own notes (interface.md, "Job numbers, orders placed by a customer, and whose notes a customer reads"). */

type Someone = { user: User; client: Client };
let svc: TestService;
let smtp: TestSmtpServer;
let close: () => Promise<void>;
let admin: Someone;
let manager: Someone;
let poc: Someone;
let acmeClient: Someone;
let loneClient: Someone;
let acmeId: string;
let betaId: string;

const projectCount = async () => Number((await svc.deps.database.db.selectFrom('projects').select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow()).n);

before(async () => {
  ({ smtp, svc, close } = await startMailService(0));
  [admin, manager, poc, acmeClient, loneClient] = await Promise.all([svc.signIn('ADMIN'), svc.signIn('POC'), svc.signIn('POC'), svc.signIn('CLIENT'), svc.signIn('CLIENT')]);
  acmeId = (await admin.client.post('/api/customers', { name: 'Acme Orders' })).body.id;
  betaId = (await admin.client.post('/api/customers', { name: 'Beta Orders' })).body.id;
  assert.equal((await admin.client.patch(`/api/team/${acmeClient.user.id}`, { customerId: acmeId })).status, 200);
});
after(() => close());

describe('account managers and orders placed by a customer’s people', () => {
  test('only an ADMIN sets accountManagerId, to an active POC or ADMIN', async () => {
    const byPoc = await poc.client.patch(`/api/customers/${acmeId}`, { accountManagerId: manager.user.id });
    assert.deepEqual([byPoc.status, byPoc.body], [403, { error: 'Forbidden' }]);
    assert.equal((await poc.client.post('/api/customers', { name: 'Poc Made', accountManagerId: manager.user.id })).status, 403);
    const wrong = await admin.client.patch(`/api/customers/${acmeId}`, { accountManagerId: acmeClient.user.id });
    assert.equal(wrong.status, 400);
    assert.match(wrong.body.error, /accountManagerId/);
    const gone = await svc.createUser({ role: 'POC', active: false });
    assert.equal((await admin.client.patch(`/api/customers/${acmeId}`, { accountManagerId: gone.user.id })).status, 400);
    assert.equal((await admin.client.get(`/api/customers/${acmeId}`)).body.accountManagerId, null);
  });

  test('a CLIENT without an account manager, or without a company: 409, nothing stored', async () => {
    const before = await projectCount();
    const none = await acmeClient.client.post('/api/projects', { name: 'Too early' });
    assert.deepEqual([none.status, none.body], [409, { error: 'Your company has no account manager yet' }]);
    const lone = await loneClient.client.post('/api/projects', { name: 'No company' });
    assert.deepEqual([lone.status, lone.body], [409, { error: 'Your account is not attached to a company' }]);
    assert.equal(await projectCount(), before);
  });

  test('a CLIENT’s order: for their own company whatever customerId says, owned by the account manager, who is emailed', async () => {
    const set = await admin.client.patch(`/api/customers/${acmeId}`, { accountManagerId: manager.user.id });
    assert.equal(set.status, 200, set.text);
    assert.equal(set.body.accountManagerId, manager.user.id);
    const from = smtp.received.length;
    const res = await acmeClient.client.post('/api/projects', { name: 'Client order', customerId: betaId, pocId: poc.user.id });
    assert.equal(res.status, 201, res.text);
    assert.deepEqual([res.body.customerId, res.body.pocId, res.body.pocName], [acmeId, manager.user.id, manager.user.name]);
    assert.ok(res.body.number >= 1);
    await settled(svc);
    const to = smtp.received.slice(from).filter((m) => m.subject.startsWith('New project')).flatMap((m) => m.rcptTo);
    assert.ok(to.includes(manager.user.email) && to.includes(admin.user.email), to.join());
    const detail = (await acmeClient.client.get(`/api/projects/${res.body.id}`)).body;
    assert.ok(!detail.allowedActions.includes('submit-pi'), 'the customer is not offered Submit PI');
  });
});

describe('the shop’s own notes', () => {
  test('approve, reject, verify-pi and reject-pi notes never reach a CLIENT (API, activity, email); dispatch’s does', async () => {
    // A project a CLIENT owns (an order from before account managers): they hear of its approval by email.
    const owned = await svc.createProject(acmeClient.user.id, { name: 'Old client order', customerId: acmeId });
    const from = smtp.received.length;
    assert.equal((await admin.client.post(`/api/projects/${owned.id}/approve`, { note: 'Margin is thin, keep quiet' })).status, 200);
    const asClient = (await acmeClient.client.get(`/api/projects/${owned.id}`)).body;
    assert.equal(asClient.approval.status, 'APPROVED');
    assert.equal(asClient.approval.note, null);
    assert.equal((await admin.client.get(`/api/projects/${owned.id}`)).body.approval.note, 'Margin is thin, keep quiet');
    const listed = (await acmeClient.client.get('/api/projects?limit=100')).body.items.find((p: { id: string }) => p.id === owned.id);
    assert.equal(listed.approval.note, null);

    const p = await svc.createProject(poc.user.id, { name: 'Noted job', customerId: acmeId, status: 'APPROVED', piStatus: 'SUBMITTED' });
    assert.equal((await admin.client.post(`/api/projects/${p.id}/reject-pi`, { note: 'Rates do not match Q-2211' })).status, 200);
    assert.equal((await poc.client.post(`/api/projects/${p.id}/submit-pi`, { number: 'PI-9', amount: 100, note: 'Fixed' })).status, 200);
    assert.equal((await admin.client.post(`/api/projects/${p.id}/verify-pi`, { note: 'Rates match quotation Q-2211' })).status, 200);
    assert.equal((await admin.client.post(`/api/projects/${p.id}/start-printing`, {})).status, 200);
    assert.equal((await admin.client.post(`/api/projects/${p.id}/dispatch`, { note: 'AWB 12345' })).status, 200);
    const entries = async (who: Someone, id: string) =>
      (await who.client.get(`/api/activity?entityId=${id}&limit=50`)).body.items.map((e: { action: string; details: { note?: string } }) => [e.action, e.details.note ?? null]);
    const clientSees = await entries(acmeClient, p.id);
    assert.deepEqual(clientSees.filter(([a]: [string]) => ['PI_REJECTED', 'PI_VERIFIED', 'PROJECT_DISPATCHED', 'PI_SUBMITTED'].includes(a)).sort(), [
      ['PI_REJECTED', null],
      ['PI_SUBMITTED', 'Fixed'],
      ['PI_VERIFIED', null],
      ['PROJECT_DISPATCHED', 'AWB 12345'],
    ]);
    const pocSees = await entries(poc, p.id);
    assert.ok(pocSees.some(([a, n]: [string, string]) => a === 'PI_VERIFIED' && n === 'Rates match quotation Q-2211'));
    assert.deepEqual((await entries(acmeClient, owned.id)).find(([a]: [string]) => a === 'PROJECT_APPROVED'), ['PROJECT_APPROVED', null]);

    await settled(svc);
    const toClient = smtp.received.slice(from).filter((m) => m.rcptTo.includes(acmeClient.user.email));
    const approved = toClient.find((m) => m.subject.includes('Old client order'));
    assert.ok(approved, 'the owning CLIENT is emailed the approval');
    assert.doesNotMatch(approved.text, /Margin is thin/);
    for (const m of smtp.received.slice(from)) if (m.rcptTo.includes(acmeClient.user.email)) assert.doesNotMatch(m.text, /Q-2211|Margin/);
    const toPoc = smtp.received.slice(from).filter((m) => m.rcptTo.includes(poc.user.email)).map((m) => m.text).join('\n');
    assert.match(toPoc, /Rates match quotation Q-2211/);
  });
});
