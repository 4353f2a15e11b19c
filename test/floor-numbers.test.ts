import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { User } from '../src/domain/model.js';
import { projectEmail } from '../src/mail/templates.js';
import { type Client, type TestService, startTestService, testDialect } from './helpers/service.js';

/** Job numbers (interface.md, "Job numbers, orders placed by a customer, and whose notes a customer reads"). */

let svc: TestService;
let admin: { user: User; client: Client };
let poc: { user: User; client: Client };

before(async () => {
  svc = await startTestService();
  [admin, poc] = await Promise.all([svc.signIn('ADMIN'), svc.signIn('POC')]);
});
after(() => svc.close());

const numbersOf = async (client: Client) => {
  const numbers: number[] = [];
  let cursor: string | null = null;
  do {
    const res = await client.get(`/api/projects?limit=100${cursor ? `&cursor=${cursor}` : ''}`);
    assert.equal(res.status, 200, res.text);
    numbers.push(...res.body.items.map((p: { number: number }) => p.number));
    cursor = res.body.nextCursor;
  } while (cursor);
  return numbers.sort((a, b) => a - b);
};

describe('job numbers', () => {
  test('from 1 in creation order, in the project JSON; a refused creation uses no number', async () => {
    const first = await poc.client.post('/api/projects', { name: 'Leaflets' });
    assert.equal(first.status, 201, first.text);
    assert.equal(first.body.number, 1);
    const refused = await poc.client.post('/api/projects', { name: '' });
    assert.equal(refused.status, 400);
    const second = await admin.client.post('/api/projects', { name: 'Posters' });
    assert.equal(second.body.number, 2);
    assert.equal((await poc.client.get(`/api/projects/${first.body.id}`)).body.number, 1);
  });

  test('q=N and q=#N find that number exactly, besides the usual fields', async () => {
    const named = await admin.client.post('/api/projects', { name: 'Order 2 of the season' });
    const third = named.body.number;
    for (const q of ['2', '%232', '%20%232%20']) {
      const res = await admin.client.get(`/api/projects?q=${q}`);
      assert.equal(res.status, 200, res.text);
      const numbers: number[] = res.body.items.map((p: { number: number }) => p.number);
      // #2 by number; with the bare digits also "Order 2 …" by its name (and whatever else holds a 2).
      if (q === '2') assert.ok(numbers.includes(2) && numbers.includes(third), `q=${q}: ${numbers} ${third}`);
      else assert.deepEqual(numbers, [2], `q=${q}`);
    }
    assert.deepEqual((await admin.client.get('/api/projects?q=%23999')).body.items, []);
  });

  test('the CSV carries the number as its last column', async () => {
    const res = await admin.client.get('/api/projects.csv');
    const lines = res.text.replace('\uFEFF', '').trim().split('\r\n');
    assert.match(lines[0]!, /,createdAt,rush,held,holdReason,number$/);
    assert.ok(lines.slice(1).every((l) => /,\d+$/.test(l)));
  });

  test('emails name the project #N', async () => {
    const created = await poc.client.post('/api/projects', { name: 'Calendars' });
    const email = projectEmail({ name: 'A', address: 'a@example.com' }, { ...created.body, approval: null }, [{ action: 'PROJECT_CREATED', actorName: 'P', at: created.body.createdAt, details: {} }], 'https://shop.example');
    assert.match(email.subject, new RegExp(`#${created.body.number} Calendars`));
    assert.match(email.text, new RegExp(`Project #${created.body.number} "Calendars"`));
  });

  test('unique and gap-free when two instances create at the same time', async () => {
    const second = await startTestService({ sharedDatabase: svc.running.deps.config.database });
    try {
      const made = await second.createUser({ role: 'ADMIN' });
      const onB = await second.login(made.email, made.password);
      const before = (await numbersOf(admin.client)).length;
      const results = await Promise.all(
        Array.from({ length: 60 }, (_, i) => (i % 2 ? onB : admin.client).post('/api/projects', { name: `Twin ${i}` })),
      );
      assert.ok(results.every((r) => r.status === 201), results.map((r) => r.text).find((t) => !t.includes('"number"')));
      const all = await numbersOf(admin.client);
      assert.equal(all.length, before + 60);
      assert.deepEqual(all, Array.from({ length: all.length }, (_, i) => i + 1), `unique and without gaps (${testDialect})`);
    } finally {
      await second.close();
    }
  });
});
