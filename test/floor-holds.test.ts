import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { User } from '../src/domain/model.js';
import { startMailService, settled } from './helpers/mail.js';
import type { Client, TestService } from './helpers/service.js';
import type { TestSmtpServer } from './helpers/smtp.js';

/** Holds and rush (interface.md, "Holds, rush, reorders"). */

type Someone = { user: User; client: Client };
let svc: TestService;
let smtp: TestSmtpServer;
let close: () => Promise<void>;
let admin: Someone;
let poc: Someone;
let otherPoc: Someone;
let acmeClient: Someone;
let acmeId: string;

before(async () => {
  ({ smtp, svc, close } = await startMailService(0));
  [admin, poc, otherPoc, acmeClient] = await Promise.all([svc.signIn('ADMIN'), svc.signIn('POC'), svc.signIn('POC'), svc.signIn('CLIENT')]);
  acmeId = (await admin.client.post('/api/customers', { name: 'Acme Holds' })).body.id;
  assert.equal((await admin.client.patch(`/api/team/${acmeClient.user.id}`, { customerId: acmeId })).status, 200);
});
after(() => close());

const ACTIONS = ['approve', 'reject', 'submit-pi', 'verify-pi', 'reject-pi', 'start-printing', 'dispatch', 'deliver'];

describe('hold and release', () => {
  test('the owner holds with a reason: the project carries it, PROJECT_HELD is written, the owner, admins and the customer’s people are emailed', async () => {
    const p = await svc.createProject(poc.user.id, { name: 'Held leaflets', customerId: acmeId });
    const from = smtp.received.length;
    const res = await poc.client.post(`/api/projects/${p.id}/hold`, { reason: '  Waiting for the logo  ' });
    assert.equal(res.status, 200, res.text);
    assert.deepEqual({ ...res.body.hold, since: 'x' }, { reason: 'Waiting for the logo', since: 'x', byId: poc.user.id, byName: poc.user.name });
    assert.equal((await acmeClient.client.get(`/api/projects/${p.id}`)).body.hold.reason, 'Waiting for the logo', 'shown to everyone who may see it');
    const entries = (await admin.client.get(`/api/activity?projectId=${p.id}`)).body.items;
    assert.deepEqual(entries.filter((e: { action: string }) => e.action === 'PROJECT_HELD').map((e: { details: unknown }) => e.details), [{ reason: 'Waiting for the logo' }]);
    await settled(svc);
    const to = smtp.received.slice(from).flatMap((m) => m.rcptTo);
    assert.ok(to.includes(admin.user.email) && to.includes(acmeClient.user.email), to.join());
    const mail = smtp.received.slice(from).find((m) => m.rcptTo.includes(acmeClient.user.email))!;
    assert.match(mail.subject, new RegExp(`On hold: #${p.number} Held leaflets`));
    assert.match(mail.text, /Reason: Waiting for the logo/);
  });

  test('refusals in order: 404 unseen, 403 not admin or owner, 409 delivered/cancelled, 409 held twice or released unheld, 400 without a reason', async () => {
    const p = await svc.createProject(poc.user.id, { name: 'Refusals', customerId: acmeId });
    assert.equal((await otherPoc.client.post(`/api/projects/${p.id}/hold`, { reason: 'x' })).status, 404);
    const client = await acmeClient.client.post(`/api/projects/${p.id}/hold`, { reason: 'x' });
    assert.deepEqual([client.status, client.body], [403, { error: 'Forbidden' }]);
    assert.equal((await poc.client.post(`/api/projects/${p.id}/hold`, {})).status, 400);
    const blank = await poc.client.post(`/api/projects/${p.id}/hold`, { reason: '   ' });
    assert.equal(blank.status, 400);
    assert.match(blank.body.error, /reason/i);
    assert.equal((await poc.client.post(`/api/projects/${p.id}/hold`, { reason: 'x'.repeat(501) })).status, 400);
    const notHeld = await poc.client.post(`/api/projects/${p.id}/release`, {});
    assert.equal(notHeld.status, 409);
    assert.equal((await admin.client.post(`/api/projects/${p.id}/hold`, { reason: 'Stock' })).status, 200);
    assert.equal((await poc.client.post(`/api/projects/${p.id}/hold`, { reason: 'Again' })).status, 409);
    const released = await poc.client.post(`/api/projects/${p.id}/release`, { note: 'Stock arrived' });
    assert.equal(released.status, 200, released.text);
    assert.equal(released.body.hold, null);
    const delivered = await svc.createProject(poc.user.id, { status: 'DELIVERED' });
    assert.equal((await admin.client.post(`/api/projects/${delivered.id}/hold`, { reason: 'x' })).status, 409);
    const cancelled = await svc.createProject(poc.user.id, { status: 'CANCELLED' });
    assert.equal((await admin.client.post(`/api/projects/${cancelled.id}/hold`, { reason: 'x' })).status, 409);
  });

  test('while held, every lifecycle action but cancel is refused with the reason, after who may take it and before the states', async () => {
    const p = await svc.createProject(poc.user.id, { name: 'Blocked', status: 'APPROVED', piStatus: 'SUBMITTED' });
    assert.equal((await admin.client.post(`/api/projects/${p.id}/hold`, { reason: 'Paper shortage' })).status, 200);
    for (const action of ACTIONS) {
      const body = action === 'submit-pi' ? { number: 'PI-1', amount: 100 } : {};
      const res = await admin.client.post(`/api/projects/${p.id}/${action}`, body);
      assert.deepEqual([res.status, res.body], [409, { error: 'The project is on hold: Paper shortage' }], action);
    }
    // Who may take it comes first: a POC approving is 403, held or not.
    assert.equal((await poc.client.post(`/api/projects/${p.id}/approve`, {})).status, 403);
    // The owner's deliver (theirs to take) meets the hold before the state rule.
    assert.deepEqual((await poc.client.post(`/api/projects/${p.id}/deliver`, {})).body, { error: 'The project is on hold: Paper shortage' });
    const detail = (await admin.client.get(`/api/projects/${p.id}`)).body;
    assert.deepEqual(detail.allowedActions, ['cancel']);
    assert.equal(detail.canHold, true);
    const cancelled = await poc.client.post(`/api/projects/${p.id}/cancel`, { note: 'Called off' });
    assert.equal(cancelled.status, 200, cancelled.text);
  });
});

describe('rush, filters, priority', () => {
  test('rush is a detail: set on creation and by PATCH …/details; a wrong type 400', async () => {
    const created = await poc.client.post('/api/projects', { name: 'Rush cards', rush: true });
    assert.equal(created.body.rush, true);
    const off = await poc.client.patch(`/api/projects/${created.body.id}/details`, { rush: false });
    assert.equal(off.status, 200, off.text);
    assert.equal(off.body.rush, false);
    assert.equal((await poc.client.patch(`/api/projects/${created.body.id}/details`, { rush: 'yes' })).status, 400);
  });

  test('sort=priority on a crafted set, paged: held last, rush first, earliest due (none last), newest', async () => {
    const owner = await svc.signIn('POC');
    const make = async (name: string, o: { rush?: boolean; dueDate?: string; held?: boolean } = {}) => {
      const res = await owner.client.post('/api/projects', { name, rush: o.rush ?? false, dueDate: o.dueDate ?? null });
      assert.equal(res.status, 201, res.text);
      if (o.held) assert.equal((await owner.client.post(`/api/projects/${res.body.id}/hold`, { reason: 'r' })).status, 200);
      return res.body.id as string;
    };
    await make('heldRushEarly', { held: true, rush: true, dueDate: '2026-01-01' });
    await make('plainNone1');
    await make('rushLate', { rush: true, dueDate: '2026-12-01' });
    await make('plainEarly', { dueDate: '2026-02-01' });
    await make('rushEarly', { rush: true, dueDate: '2026-03-01' });
    await make('rushNone', { rush: true });
    await make('heldPlain', { held: true });
    await make('plainNone2');
    await make('plainEarlyToo', { dueDate: '2026-02-01' });
    const expected = ['rushEarly', 'rushLate', 'rushNone', 'plainEarlyToo', 'plainEarly', 'plainNone2', 'plainNone1', 'heldRushEarly', 'heldPlain'];
    const names: string[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const res = await owner.client.get(`/api/projects?sort=priority&limit=2${cursor ? `&cursor=${cursor}` : ''}`);
      assert.equal(res.status, 200, res.text);
      names.push(...res.body.items.map((p: { name: string }) => p.name));
      cursor = res.body.nextCursor;
      pages++;
    } while (cursor);
    assert.deepEqual(names, expected);
    assert.equal(pages, 5);
    const held = (await owner.client.get('/api/projects?sort=priority&held=true')).body.items.map((p: { name: string }) => p.name);
    assert.deepEqual(held, ['heldRushEarly', 'heldPlain']);
    const rush = (await owner.client.get('/api/projects?rush=true&held=false&sort=priority')).body.items.map((p: { name: string }) => p.name);
    assert.deepEqual(rush, ['rushEarly', 'rushLate', 'rushNone']);
    const due = (await owner.client.get('/api/projects?sort=priority&dueFrom=2026-02-01&dueTo=2026-03-01')).body.items.map((p: { name: string }) => p.name);
    assert.deepEqual(due, ['rushEarly', 'plainEarlyToo', 'plainEarly']);
    const alone = (await owner.client.get('/api/projects?dueFrom=2026-11-30')).body.items.map((p: { name: string }) => p.name);
    assert.deepEqual(alone, ['rushLate']);
    assert.equal((await owner.client.get('/api/projects?sort=priority&cursor=bogus')).status, 400);
  });

  test('dueFrom/dueTo refused naming the parameter: a bad date, inverted, more than 366 days apart', async () => {
    for (const [query, field] of [
      ['dueFrom=2026-02-30', 'dueFrom'],
      ['dueTo=tomorrow', 'dueTo'],
      ['dueFrom=2026-03-02&dueTo=2026-03-01', 'dueTo'],
      ['dueFrom=2026-01-01&dueTo=2027-01-03', 'dueTo'],
    ]) {
      const res = await admin.client.get(`/api/projects?${query}`);
      assert.equal(res.status, 400, query);
      assert.match(res.body.error, new RegExp(field!), query);
      assert.equal((await admin.client.get(`/api/projects.csv?${query}`)).status, 400, `csv ${query}`);
    }
    assert.equal((await admin.client.get('/api/projects?dueFrom=2026-01-01&dueTo=2027-01-02')).status, 200, '366 days apart');
  });

  test('the dashboard counts open held and rush projects (a held rush job in both), scoped; the CSV shows them', async () => {
    const owner = await svc.signIn('POC');
    const a = (await owner.client.post('/api/projects', { name: 'Dash rush', rush: true })).body.id;
    await owner.client.post('/api/projects', { name: 'Dash plain' });
    assert.equal((await owner.client.post(`/api/projects/${a}/hold`, { reason: 'Proof' })).status, 200);
    const gone = (await owner.client.post('/api/projects', { name: 'Dash gone', rush: true })).body.id;
    assert.equal((await owner.client.post(`/api/projects/${gone}/cancel`, {})).status, 200);
    const stats = (await owner.client.get('/api/dashboard/stats')).body;
    assert.deepEqual([stats.held, stats.rush], [1, 1]);
    const csv = (await owner.client.get('/api/projects.csv')).text;
    assert.match(csv, /Dash rush,.*,true,true,Proof,\d+\r\n/);
  });
});
