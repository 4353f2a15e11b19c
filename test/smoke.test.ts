import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { type TestService, startTestService } from './helpers/service.js';

let svc: TestService;
before(async () => {
  svc = await startTestService();
});
after(() => svc.close());

test('health answers ok', async () => {
  const res = await svc.anonymous.get('/healthz');
  assert.equal(res.status, 200);
  assert.deepEqual(res.body, { status: 'ok' });
});

test('an admin signs in and lists the team', async () => {
  const { client, user } = await svc.signIn('ADMIN');
  const res = await client.get('/api/team');
  assert.equal(res.status, 200);
  assert.equal(res.body[0].id, user.id);
});
