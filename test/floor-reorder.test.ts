import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { User } from '../src/domain/model.js';
import { type Client, type TestService, startTestService } from './helpers/service.js';

/** POST /api/projects/:id/reorder (interface.md, "Holds, rush, reorders"). */

type Someone = { user: User; client: Client };
let svc: TestService;
let admin: Someone;
let poc: Someone;
let otherPoc: Someone;
let acmeClient: Someone;
let acmeId: string;

before(async () => {
  svc = await startTestService();
  [admin, poc, otherPoc, acmeClient] = await Promise.all([svc.signIn('ADMIN'), svc.signIn('POC'), svc.signIn('POC'), svc.signIn('CLIENT')]);
  acmeId = (await admin.client.post('/api/customers', { name: 'Acme Reorders' })).body.id;
  assert.equal((await admin.client.patch(`/api/team/${acmeClient.user.id}`, { customerId: acmeId })).status, 200);
});
after(() => svc.close());

test('copies exactly the name, description, customer, delivery address and lines (new ids); nothing else', async () => {
  const made = await poc.client.post('/api/projects', {
    name: 'Annual report',
    description: 'Perfect bound',
    customerId: acmeId,
    reference: 'PO-1',
    dueDate: '2026-12-01',
    deliveryAddress: 'Dock 4',
    rush: true,
    items: [{ description: 'Covers', quantity: 500, colours: '4+0', finishing: 'Matt lam' }],
  });
  assert.equal(made.status, 201, made.text);
  const o = made.body;
  assert.equal((await admin.client.post(`/api/projects/${o.id}/approve`, { note: 'ok' })).status, 200);
  assert.equal((await admin.client.post(`/api/projects/${o.id}/hold`, { reason: 'Stock' })).status, 200);
  const res = await acmeClient.client.post(`/api/projects/${o.id}/reorder`, { dueDate: '2027-01-15' });
  assert.equal(res.status, 201, res.text);
  const r = res.body;
  assert.deepEqual(
    [r.name, r.description, r.customerId, r.deliveryAddress, r.pocId, r.status, r.piStatus, r.approval, r.pi, r.paid, r.reference, r.dueDate, r.rush, r.hold],
    ['Annual report', 'Perfect bound', acmeId, 'Dock 4', poc.user.id, 'REQUESTED', 'PENDING', null, null, 0, null, '2027-01-15', false, null],
  );
  // The original's job number with its name: the web app writes "Reorder of #N Annual report".
  assert.deepEqual(r.repeatOf, { id: o.id, name: 'Annual report', number: o.number });
  assert.equal(r.number, o.number + 1);
  assert.deepEqual(r.items.map(({ id: _id, ...l }: { id: string }) => l), o.items.map(({ id: _id, ...l }: { id: string }) => l));
  assert.notEqual(r.items[0].id, o.items[0].id);
  const detail = (await admin.client.get(`/api/projects/${r.id}`)).body;
  assert.deepEqual(detail.files, []);
  assert.deepEqual(detail.repeatOf, { id: o.id, name: 'Annual report', number: o.number });
  const listed = (await acmeClient.client.get(`/api/projects?q=%23${r.number}`)).body.items;
  assert.deepEqual(listed.map((p: { repeatOf: unknown }) => p.repeatOf), [{ id: o.id, name: 'Annual report', number: o.number }]);
  const entries = (await admin.client.get(`/api/activity?entityId=${r.id}`)).body.items;
  assert.deepEqual(entries.map((e: { action: string; details: { repeatOf?: string } }) => [e.action, e.details.repeatOf]), [['PROJECT_CREATED', o.id]]);
});

test('who may: ADMIN, the owner, a CLIENT of the customer; anyone else 404; not from a CANCELLED project; an inactive owner gives way', async () => {
  const p = await svc.createProject(poc.user.id, { name: 'Flyers' });
  assert.equal((await otherPoc.client.post(`/api/projects/${p.id}/reorder`, {})).status, 404);
  assert.equal((await acmeClient.client.post(`/api/projects/${p.id}/reorder`, {})).status, 404);
  const byOwner = await poc.client.post(`/api/projects/${p.id}/reorder`, { reference: 'PO-2' });
  assert.deepEqual([byOwner.status, byOwner.body.reference, byOwner.body.dueDate], [201, 'PO-2', null]);
  assert.equal((await admin.client.post(`/api/projects/${p.id}/reorder`, { dueDate: 'soon' })).status, 400);
  const gone = await svc.createProject(poc.user.id, { status: 'CANCELLED' });
  assert.equal((await admin.client.post(`/api/projects/${gone.id}/reorder`, {})).status, 409);
  // What the project page offers (canReorder) is the same rule as the route's.
  const offered = async (who: typeof admin, id: string) => (await who.client.get(`/api/projects/${id}`)).body.canReorder;
  assert.deepEqual([await offered(poc, p.id), await offered(admin, p.id), await offered(admin, gone.id)], [true, true, false]);
  // The owner left: a CLIENT's reorder goes to the account manager (none: 409), an admin's to the admin.
  const leaver = await svc.createUser({ role: 'POC' });
  const old = await svc.createProject(leaver.user.id, { name: 'Old job', customerId: acmeId });
  assert.equal((await admin.client.patch(`/api/team/${leaver.user.id}`, { active: false })).status, 200);
  const none = await acmeClient.client.post(`/api/projects/${old.id}/reorder`, {});
  assert.deepEqual([none.status, none.body], [409, { error: 'Your company has no account manager yet' }]);
  assert.equal((await admin.client.patch(`/api/customers/${acmeId}`, { accountManagerId: otherPoc.user.id })).status, 200);
  assert.equal((await acmeClient.client.post(`/api/projects/${old.id}/reorder`, {})).body.pocId, otherPoc.user.id);
  assert.equal((await admin.client.post(`/api/projects/${old.id}/reorder`, {})).body.pocId, admin.user.id);
});
