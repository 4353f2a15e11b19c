/**
 * The board (issue 36), GET /api/board, over real HTTP on both databases: who may open it and what
 * each sees, the POC and customer filters, the columns' statuses (DELIVERED only of the last 14
 * days, CANCELLED never), sort=priority order, and each card's allowedActions as the project's own.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { type Client, type TestService, startTestService } from './helpers/service.js';
import type { User } from '../src/domain/model.js';

type Someone = { user: User; client: Client };

describe('board', () => {
  let svc: TestService;
  let admin: Someone;
  let poc: Someone;
  let otherPoc: Someone;
  let client: Someone;
  let customerId: string;
  const ids: Record<string, string> = {};

  before(async () => {
    svc = await startTestService();
    [admin, poc, otherPoc, client] = await Promise.all([
      svc.signIn('ADMIN', { email: 'ann@example.com', name: 'Ann Admin' }),
      svc.signIn('POC', { email: 'pia@example.com', name: 'Pia Poc' }),
      svc.signIn('POC', { email: 'oscar@example.com', name: 'Oscar Other' }),
      svc.signIn('CLIENT', { email: 'cleo@example.com', name: 'Cleo Client' }),
    ]);
    customerId = (await admin.client.post('/api/customers', { name: 'Acme Menus' })).body.id;
    const make = async (key: string, pocId: string, opts: Parameters<TestService['createProject']>[1]) => {
      ids[key] = (await svc.createProject(pocId, { name: key, ...opts })).id;
    };
    await make('requested', poc.user.id, { status: 'REQUESTED', dueDate: '2026-12-10', customerId });
    await make('approved', poc.user.id, { status: 'APPROVED', piStatus: 'VERIFIED', dueDate: '2026-12-01' });
    await make('rush', poc.user.id, { status: 'APPROVED', piStatus: 'VERIFIED' });
    await make('held', poc.user.id, { status: 'APPROVED', piStatus: 'VERIFIED', dueDate: '2026-01-01' });
    await make('printing', otherPoc.user.id, { status: 'PRINTING', piStatus: 'VERIFIED', customerId });
    await make('dispatched', otherPoc.user.id, { status: 'DISPATCHED', piStatus: 'VERIFIED' });
    await make('delivered', poc.user.id, { status: 'DELIVERED', piStatus: 'VERIFIED' });
    await make('deliveredLongAgo', poc.user.id, { status: 'DELIVERED', piStatus: 'VERIFIED' });
    await make('cancelled', poc.user.id, { status: 'CANCELLED' });
    const db = svc.deps.database.db;
    await db.updateTable('projects').set({ rush: true }).where('id', '=', ids.rush!).execute();
    await db
      .updateTable('projects')
      .set({ held: true, hold_reason: 'Waiting for paper', hold_since: new Date().toISOString(), hold_by_id: admin.user.id })
      .where('id', '=', ids.held!)
      .execute();
    const longAgo = new Date(Date.now() - 15 * 86_400_000).toISOString();
    await db.updateTable('projects').set({ updated_at: longAgo }).where('id', '=', ids.deliveredLongAgo!).execute();
  });
  after(() => svc.close());

  const names = (body: { items: { name: string }[] }) => body.items.map((i) => i.name);

  test("an ADMIN sees everyone's open projects and the last 14 days' deliveries, in priority order", async () => {
    const res = await admin.client.get('/api/board');
    assert.equal(res.status, 200);
    assert.match(res.body.today, /^\d{4}-\d{2}-\d{2}$/);
    // Rush first, then by due date (none last, newest first), held last; no cancelled, no old delivery.
    assert.deepEqual(names(res.body), ['rush', 'approved', 'requested', 'delivered', 'dispatched', 'printing', 'held']);
    const held = res.body.items.find((i: { name: string }) => i.name === 'held');
    assert.deepEqual([held.hold.reason, held.hold.byName], ['Waiting for paper', 'Ann Admin']);
    assert.equal(typeof held.number, 'number');
    assert.equal(held.proof, null);
    // A held card may only be cancelled (interface.md, "Holds"): the board offers nothing else.
    assert.deepEqual(held.allowedActions, ['cancel']);
  });

  test("each card's allowedActions are the project's own, as GET /api/projects/:id answers them", async () => {
    for (const who of [admin, poc]) {
      const board = (await who.client.get('/api/board')).body.items as { id: string; allowedActions: string[] }[];
      for (const card of board) {
        const detail = (await who.client.get(`/api/projects/${card.id}`)).body;
        assert.deepEqual(card.allowedActions, detail.allowedActions, card.id);
      }
    }
    const approved = (await admin.client.get('/api/board')).body.items.find((i: { name: string }) => i.name === 'approved');
    assert.ok(approved.allowedActions.includes('start-printing'));
  });

  test('a POC sees only their own; an ADMIN narrows by POC and by customer', async () => {
    assert.deepEqual(names((await poc.client.get('/api/board')).body), ['rush', 'approved', 'requested', 'delivered', 'held']);
    assert.deepEqual(names((await admin.client.get(`/api/board?pocId=${otherPoc.user.id}`)).body), ['dispatched', 'printing']);
    assert.deepEqual(names((await admin.client.get(`/api/board?customerId=${customerId}`)).body), ['requested', 'printing']);
    // A POC's pocId cannot widen what they see.
    assert.deepEqual(names((await poc.client.get(`/api/board?pocId=${otherPoc.user.id}`)).body), []);
  });

  test('a CLIENT is refused, no session is 401, an unknown parameter 400', async () => {
    assert.deepEqual([(await client.client.get('/api/board')).status, (await client.client.get('/api/board')).body], [403, { error: 'Forbidden' }]);
    assert.equal((await svc.anonymous.get('/api/board')).status, 401);
    assert.equal((await admin.client.get('/api/board?colour=red')).status, 400);
  });

  test('a card moves column when its action is taken', async () => {
    await admin.client.post(`/api/projects/${ids.requested}/approve`);
    const card = (await admin.client.get('/api/board')).body.items.find((i: { id: string }) => i.id === ids.requested);
    assert.equal(card.status, 'APPROVED');
  });
});
