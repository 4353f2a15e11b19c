/**
 * Moves take effect at once on every instance (interface.md, additions of 2026-11-24): two
 * instances on one PostgreSQL schema and one Redis channel prefix. A project moved to another
 * customer, and a CLIENT moved to another company, change what the CLIENTs' streams on the other
 * instance receive, with no reconnect.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { newId } from '../src/ids.js';
import { changeEvents, withoutIds } from './helpers/projects.js';
import { type Client, type EventStream, type TestService, openEventStream, startTestService } from './helpers/service.js';

const REDIS_URL = process.env.REDIS_URL;
const PG_URL = process.env.TEST_DATABASE_URL;
const skip = !REDIS_URL ? 'REDIS_URL not set' : !PG_URL ? 'TEST_DATABASE_URL not set: two instances share one PostgreSQL schema' : false;
if (skip) console.log(`NOTICE: ${skip}, so the two-instance customer stream tests are skipped.`);

describe('customers and streams across two instances (REALTIME_DRIVER=redis)', { skip }, () => {
  let a: TestService;
  let b: TestService;
  let adminOnA: Client;

  before(async () => {
    const env = { REALTIME_DRIVER: 'redis', REDIS_URL: REDIS_URL!, REDIS_CHANNEL_PREFIX: `test-${newId()}` };
    a = await startTestService({ env, postgresUrl: PG_URL });
    b = await startTestService({ env, sharedDatabase: a.deps.config.database });
    adminOnA = (await a.signIn('ADMIN')).client;
  });
  after(async () => {
    await b?.close();
    await a?.close();
  });

  const customer = async (name: string) => {
    const res = await adminOnA.post('/api/customers', { name: `${name} ${newId()}` });
    assert.equal(res.status, 201, res.text);
    return res.body.id as string;
  };
  /** A CLIENT of `customerId`, signed in on B. */
  const clientOnB = async (customerId: string | null) => {
    const { user, email, password } = await a.createUser({ role: 'CLIENT' });
    const set = await adminOnA.patch(`/api/team/${user.id}`, { customerId });
    assert.equal(set.status, 200, set.text);
    return { user, client: await b.login(email, password) };
  };
  const touch = async (projectId: string) => {
    const res = await adminOnA.patch(`/api/projects/${projectId}`, { description: `touched ${Date.now()}` });
    assert.equal(res.status, 200, res.text);
  };
  const hearsOnly = async (stream: EventStream, hidden: () => Promise<unknown>, visible: string) => {
    await hidden();
    await touch(visible);
    assert.deepEqual(withoutIds(await stream.next(2)), changeEvents(visible));
  };

  test('a project moved to another customer on A: the streams on B follow at once', async () => {
    const [first, second] = [await customer('First'), await customer('Second')];
    const [oldClient, newClient] = [await clientOnB(first), await clientOnB(second)];
    const poc = await a.createUser({ role: 'POC' });
    const project = await a.createProject(poc.user.id, { customerId: first });
    const oldOwn = await a.createProject(oldClient.user.id);
    const [oldStream, newStream] = [await openEventStream(oldClient.client), await openEventStream(newClient.client)];
    try {
      await touch(project.id);
      assert.deepEqual(withoutIds(await oldStream.next(2)), changeEvents(project.id));
      const moved = await adminOnA.patch(`/api/projects/${project.id}`, { customerId: second });
      assert.equal(moved.status, 200, moved.text);
      assert.deepEqual(withoutIds(await newStream.next(2)), changeEvents(project.id));
      await hearsOnly(oldStream, () => touch(project.id), oldOwn.id);
    } finally {
      oldStream.close();
      newStream.close();
    }
  });

  test('a CLIENT moved to another company on A: their open stream on B follows at once', async () => {
    const [first, second] = [await customer('From'), await customer('To')];
    const mover = await clientOnB(first);
    const poc = await a.createUser({ role: 'POC' });
    const ofFirst = await a.createProject(poc.user.id, { customerId: first });
    const ofSecond = await a.createProject(poc.user.id, { customerId: second });
    const stream = await openEventStream(mover.client);
    try {
      await hearsOnly(stream, () => touch(ofSecond.id), ofFirst.id);
      const moved = await adminOnA.patch(`/api/team/${mover.user.id}`, { customerId: second });
      assert.equal(moved.status, 200, moved.text);
      await hearsOnly(stream, () => touch(ofFirst.id), ofSecond.id);
    } finally {
      stream.close();
    }
  });
});
