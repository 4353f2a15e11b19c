/**
 * GET /api/realtime under a flood from one user (issue 33, item 17), over real HTTP: a user holds
 * at most MAX_STREAMS_PER_USER streams per instance; one more is a JSON 429 with Retry-After, the
 * open ones go on, another user is not touched, and a closed stream frees its place.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { MAX_STREAMS_PER_USER } from '../src/realtime/streams.js';
import { eventuallyPasses } from './helpers/eventually.js';
import { type EventStream, type TestService, openEventStream, startTestService } from './helpers/service.js';

let svc: TestService;
before(async () => {
  svc = await startTestService();
});
after(() => svc.close());

const ask = (cookie: string) => fetch(`${svc.url}/api/realtime`, { headers: { cookie } });

test('one user’s streams are capped: the next is a JSON 429 with Retry-After; theirs stay live, others’ open, a closed one frees a place', async () => {
  assert.equal(MAX_STREAMS_PER_USER, 32);
  const flooder = await svc.signIn('CLIENT');
  const other = await svc.signIn('CLIENT');
  const admin = await svc.signIn('ADMIN');
  // Opened in parallel: the cap holds against a burst, not only one at a time.
  const tries = await Promise.all(Array.from({ length: MAX_STREAMS_PER_USER + 8 }, () => ask(flooder.client.cookie!)));
  const open = tries.filter((r) => r.status === 200);
  const refused = tries.filter((r) => r.status !== 200);
  assert.equal(open.length, MAX_STREAMS_PER_USER);
  assert.equal(refused.length, 8);
  for (const r of refused) {
    assert.equal(r.status, 429);
    assert.equal(r.headers.get('retry-after'), '10');
    assert.match(r.headers.get('content-type') ?? '', /^application\/json/);
    assert.deepEqual(await r.json(), { error: `Too many realtime streams open for this user (at most ${MAX_STREAMS_PER_USER}); close one and try again` });
  }
  // Another user is not counted with them.
  const theirs: EventStream = await openEventStream(other.client);
  const admins: EventStream = await openEventStream(admin.client);
  // A flooder's open stream still carries events: the admin's change to a project of theirs.
  const project = await svc.createProject(flooder.user.id, { name: 'Flood' });
  const reader = open[0]!.body!.getReader();
  assert.equal((await admin.client.patch(`/api/projects/${project.id}`, { name: 'Flood 2' })).status, 200);
  let seen = '';
  while (!seen.includes('event: project-updated')) seen += new TextDecoder().decode((await reader.read()).value);
  // Closing one frees its place at once (the connection's close), and only one.
  await reader.cancel();
  const again = await eventuallyPasses(async () => {
    const r = await ask(flooder.client.cookie!);
    assert.equal(r.status, 200);
    return r;
  });
  assert.equal((await ask(flooder.client.cookie!)).status, 429);
  for (const r of [again, ...open.slice(1)]) await r.body!.cancel();
  theirs.close();
  admins.close();
  await eventuallyPasses(async () => {
    const r = await ask(flooder.client.cookie!);
    assert.equal(r.status, 200);
    await r.body!.cancel();
  });
});
