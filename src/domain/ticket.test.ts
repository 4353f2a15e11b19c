import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Actor, ProjectWithNames } from './model.js';
import { decideTicket, ticketData } from './ticket.js';

const OWNER = 'owner';
const scope = { pocId: OWNER, customerId: 'acme' };

test('who may fetch the job ticket: ADMIN and the owner; a CLIENT who may see it 403; anyone who may not 404, as a missing project', () => {
  const table: [Actor, typeof scope | null, number | null][] = [
    [{ id: 'admin', role: 'ADMIN' }, scope, null],
    [{ id: 'admin', role: 'ADMIN' }, null, 404],
    [{ id: OWNER, role: 'POC' }, scope, null],
    [{ id: 'other', role: 'POC' }, scope, 404],
    [{ id: 'client', role: 'CLIENT', customerId: 'acme' }, scope, 403],
    [{ id: 'client', role: 'CLIENT', customerId: 'other' }, scope, 404],
    [{ id: 'client', role: 'CLIENT', customerId: null }, scope, 404],
    [{ id: OWNER, role: 'CLIENT', customerId: null }, scope, null],
  ];
  for (const [actor, project, status] of table) assert.equal(decideTicket(actor, project)?.status ?? null, status, `${actor.role} ${actor.id} ${JSON.stringify(actor.customerId)}`);
});

const base: ProjectWithNames = {
  id: 'p1', name: 'Cards', description: null, pocId: OWNER, status: 'PRINTING', piStatus: 'VERIFIED', approval: null, customerId: 'acme',
  createdAt: '2026-11-27T04:30:00.000Z', updatedAt: '2026-11-27T04:30:00.000Z', number: 1042, rush: false, hold: null, repeatOfId: null,
  reference: null, dueDate: null, deliveryAddress: null, repeatOf: null, pocName: 'Asha', customerName: 'Acme', items: [], pi: null, paid: 0,
};
const input = { shopName: 'Sharma Printers', publicUrl: 'https://shop.example', approvedProof: null, currency: 'INR', timeZone: 'Asia/Kolkata', now: '2026-11-27T14:05:00.000Z' };

test('what the ticket says: #number, the due date as the shop writes it, the hold with its time and who, the approved proof, every field of a line, prices only when some line has one', () => {
  const item = { id: 'l1', description: 'Cards', quantity: 12000, unit: 'pcs', size: 'A4', stock: null, colours: '4+0', finishing: null, notes: null };
  const plain = ticketData({ ...input, project: { ...base, items: [item] } });
  assert.equal(plain.number, '#1042');
  assert.equal(plain.url, 'https://shop.example/projects/p1');
  assert.equal(plain.priced, false);
  assert.deepEqual(plain.lines, [{ description: 'Cards', quantity: '12,000 pcs', size: 'A4', stock: '', colours: '4+0', finishing: '', notes: '', price: '' }]);
  assert.deepEqual(Object.fromEntries(plain.facts), { Customer: 'Acme', 'Due date': 'None', Reference: 'None', Status: 'Printing', Owner: 'Asha', 'Approved proof': 'None approved', Ordered: '27 Nov 2026, 10:00' });
  assert.equal(plain.footer, 'Printed 27 Nov 2026, 19:35 · Sharma Printers');
  const full = ticketData({
    ...input,
    approvedProof: 3,
    project: { ...base, rush: true, dueDate: '2026-12-03', hold: { reason: 'Paper', since: '2026-11-27T05:00:00.000Z', byId: 'a', byName: 'Ravi' }, items: [{ ...item, unitPrice: 250, gstRate: 18, hsnSac: '4911' }], repeatOf: { id: 'p0', name: 'Old cards', number: 1001 } },
  });
  assert.equal(full.rush, true);
  assert.equal(full.hold, 'Paper (since 27 Nov 2026, 10:30, by Ravi)');
  assert.equal(Object.fromEntries(full.facts)['Due date'], '3 Dec 2026');
  assert.equal(Object.fromEntries(full.facts)['Approved proof'], 'v3');
  assert.equal(Object.fromEntries(full.facts)['Repeat of'], '#1001 Old cards');
  assert.equal(full.priced, true);
  assert.equal(full.lines[0]!.price, '₹2.50 each\nGST 18%\nHSN/SAC 4911');
});
