/**
 * REALTIME_DRIVER=pusher against a fake Pusher (a real HTTP server that checks every request's
 * signature as Pusher does): what an upload triggers, the SSE stream of the same instance, a
 * refused trigger (specification 4.1: 500 with the failure message, earlier steps kept) and readiness.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import Pusher from 'pusher';
import type { User } from '../src/domain/model.js';
import { type FakePusher, startFakePusher } from './helpers/fake-pusher.js';
import { captureLogs } from './helpers/logs.js';
import { activityOf, changeEvents, withoutIds } from './helpers/projects.js';
import { type Client, type TestService, collectEvents, openEventStream, startTestService } from './helpers/service.js';

const pdf = { data: Buffer.from('%PDF-1.4\n% pusher test\n%%EOF\n'), filename: 'order.pdf', type: 'application/pdf' };

interface Person {
  user: User;
  client: Client;
}

describe('REALTIME_DRIVER=pusher', () => {
  let pusher: FakePusher;
  let svc: TestService;
  let admin: Person;
  let poc: Person;

  before(async () => {
    pusher = await startFakePusher();
    svc = await startTestService({ env: pusher.env() });
    [admin, poc] = await Promise.all([svc.signIn('ADMIN'), svc.signIn('POC')]);
  });
  after(async () => {
    await svc?.close();
    await pusher?.close();
  });

  test('an upload triggers project-updated {id}, then stats-updated {}, on the admins’ private channels and the POC’s own, signed as Pusher checks', async () => {
    assert.equal(svc.deps.realtime.driver, 'pusher');
    const p = await svc.createProject(poc.user.id, { status: 'APPROVED', piStatus: 'VERIFIED' });
    const from = pusher.events.length;
    const res = await poc.client.upload([['projectId', p.id], ['fileType', 'PO'], ['file', pdf]]);
    assert.equal(res.status, 201, res.text);
    assert.deepEqual(pusher.events.slice(from), [
      { name: 'project-updated', channels: ['private-projects', `private-user-${poc.user.id}`], data: { id: p.id } },
      { name: 'stats-updated', channels: ['private-dashboard', `private-user-${poc.user.id}`], data: {} },
    ]);
    assert.deepEqual(pusher.refused, [], 'every request carried a valid signature');
  });

  test('an SSE client of the same instance receives the same two notifications, in order', async () => {
    const p = await svc.createProject(poc.user.id, { status: 'DISPATCHED', piStatus: 'VERIFIED' });
    let res: Awaited<ReturnType<Client['upload']>> | undefined;
    const events = await collectEvents(admin.client, 2, async () => {
      res = await poc.client.upload([['projectId', p.id], ['fileType', 'CHALLAN'], ['file', pdf]]);
    });
    assert.equal(res?.status, 201, res?.text);
    assert.deepEqual(withoutIds(events), changeEvents(p.id));
    assert.deepEqual(pusher.events.slice(-2).map((e) => [e.name, e.channels, e.data]), [
      ['project-updated', ['private-projects', `private-user-${poc.user.id}`], { id: p.id }],
      ['stats-updated', ['private-dashboard', `private-user-${poc.user.id}`], {}],
    ]);
  });

  test('project changes other than uploads go through Pusher too', async () => {
    const p = await svc.createProject(poc.user.id);
    const from = pusher.events.length;
    const res = await admin.client.post(`/api/projects/${p.id}/approve`);
    assert.equal(res.status, 200, res.text);
    assert.deepEqual(pusher.events.slice(from).map((e) => [e.name, e.channels, e.data]), [
      ['project-updated', ['private-projects', `private-user-${poc.user.id}`], { id: p.id }],
      ['stats-updated', ['private-dashboard', `private-user-${poc.user.id}`], {}],
    ]);
    assert.ok(!pusher.events.some((e) => e.channels.includes('projects') || e.channels.includes('dashboard')), 'no public channel without PUSHER_PUBLIC_CHANNELS');
  });

  test('channel authorization: admins join the admins’ channels, anyone their own, nobody another user’s; the signature is Pusher’s', async () => {
    const other = await svc.signIn('POC');
    const socketId = '1234.5678';
    const ask = (who: Client, channel: string, form = true) =>
      form
        ? who.request('POST', '/api/realtime/pusher-auth', {
            body: new URLSearchParams({ socket_id: socketId, channel_name: channel }).toString(),
            headers: { 'content-type': 'application/x-www-form-urlencoded' },
          })
        : who.post('/api/realtime/pusher-auth', { socket_id: socketId, channel_name: channel });
    for (const [who, channel] of [
      [poc, `private-user-${poc.user.id}`],
      [admin, 'private-projects'],
      [admin, 'private-dashboard'],
      [admin, `private-user-${admin.user.id}`],
    ] as const) {
      const res = await ask(who.client, channel);
      assert.equal(res.status, 200, `${channel}: ${res.text}`);
      assert.ok(pusher.verifyChannelAuth(socketId, channel, res.body.auth), `a signature Pusher accepts for ${channel}`);
    }
    assert.equal((await ask(poc.client, `private-user-${poc.user.id}`, false)).status, 200, 'JSON works too');
    for (const [who, channel] of [
      [poc, `private-user-${other.user.id}`],
      [poc, 'private-projects'],
      [poc, 'private-dashboard'],
      [poc, 'projects'],
      [admin, `private-user-${poc.user.id}`],
    ] as const) {
      const res = await ask(who.client, channel);
      assert.equal(res.status, 403, `${channel}: ${res.text}`);
      assert.deepEqual(res.body, { error: 'Forbidden' });
    }
    const bad = await poc.client.post('/api/realtime/pusher-auth', { socket_id: 'x', channel_name: `private-user-${poc.user.id}` });
    assert.equal(bad.status, 400);
    assert.deepEqual(bad.body, { error: 'socket_id is not a Pusher socket id' });
    assert.equal((await svc.anonymous.post('/api/realtime/pusher-auth', { socket_id: socketId, channel_name: 'private-projects' })).status, 401);
  });

  test('user authentication signs a socket in as the session’s user; a change of their access ends their Pusher connections', async () => {
    const socketId = '4321.8765';
    const signIn = await poc.client.request('POST', '/api/realtime/pusher-user-auth', {
      body: new URLSearchParams({ socket_id: socketId }).toString(),
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    assert.equal(signIn.status, 200, signIn.text);
    assert.deepEqual(JSON.parse(signIn.body.user_data), { id: poc.user.id });
    assert.ok(pusher.verifyUserAuth(socketId, signIn.body.user_data, signIn.body.auth), 'a signature Pusher accepts');
    assert.equal((await poc.client.post('/api/realtime/pusher-user-auth', { socket_id: 'nope' })).status, 400);
    assert.equal((await svc.anonymous.post('/api/realtime/pusher-user-auth', { socket_id: socketId })).status, 401);

    const acme = await admin.client.post('/api/customers', { name: 'Acme Prints (Pusher)' });
    const beta = await admin.client.post('/api/customers', { name: 'Beta Papers (Pusher)' });
    assert.equal(acme.status, 201, acme.text);
    const client = await svc.signIn('CLIENT');
    const from = pusher.terminated.length;
    assert.equal((await admin.client.patch(`/api/team/${client.user.id}`, { customerId: acme.body.id })).status, 200);
    assert.equal((await admin.client.patch(`/api/team/${client.user.id}`, { customerId: beta.body.id })).status, 200);
    assert.deepEqual(pusher.terminated.slice(from), [client.user.id, client.user.id], 'each move ends the connections on the old customer’s channel');
    const other = await svc.signIn('POC');
    assert.equal((await admin.client.patch(`/api/team/${other.user.id}`, { active: false })).status, 200);
    assert.equal(pusher.terminated.at(-1), other.user.id, 'a deactivated member’s connections end');
    assert.deepEqual(pusher.refused, []);
  });

  test('/readyz: 200 while Pusher answers', async () => {
    const res = await svc.anonymous.get('/readyz');
    assert.equal(res.status, 200, res.text);
    assert.deepEqual(res.body, { status: 'ready', checks: { database: 'ok', storage: 'ok', realtime: 'ok' } });
  });
});

describe('REALTIME_DRIVER=pusher with PUSHER_PUBLIC_CHANNELS=true (older front ends)', () => {
  test('the public projects/dashboard channels get the notifications too', async () => {
    const pusher = await startFakePusher();
    const svc = await startTestService({ env: pusher.env({ PUSHER_PUBLIC_CHANNELS: 'true' }) });
    try {
      const poc = await svc.signIn('POC');
      const created = await poc.client.post('/api/projects', { name: 'Public' });
      assert.equal(created.status, 201, created.text);
      assert.deepEqual(pusher.events.map((e) => [e.name, e.channels]), [
        ['project-updated', ['private-projects', `private-user-${poc.user.id}`, 'projects']],
        ['stats-updated', ['private-dashboard', `private-user-${poc.user.id}`, 'dashboard']],
      ]);
    } finally {
      await svc.close();
      await pusher.close();
    }
  });
});

describe('REALTIME_DRIVER=pusher, Pusher refusing the requests (wrong secret)', () => {
  let pusher: FakePusher;
  let svc: TestService;
  let admin: Person;
  const log = captureLogs('warn');

  before(async () => {
    pusher = await startFakePusher();
    svc = await startTestService({ env: pusher.env({ PUSHER_SECRET: 'not-the-secret' }), logger: log.logger });
    admin = await svc.signIn('ADMIN');
  });
  after(async () => {
    await svc?.close();
    await pusher?.close();
  });

  test('an upload answers 500 with the failure message; the record and the activity entry are kept, and the failure is logged', async () => {
    const p = await svc.createProject(admin.user.id, { status: 'APPROVED', piStatus: 'VERIFIED' });
    const res = await admin.client.upload([['projectId', p.id], ['fileType', 'PO'], ['file', pdf]]);
    assert.equal(res.status, 500, res.text);
    assert.deepEqual(Object.keys(res.body), ['error']);
    assert.match(res.body.error, /^Pusher refused the request: project-updated was not sent \(401 Invalid signature/);
    assert.doesNotMatch(res.body.error, /not-the-secret/);
    assert.equal(pusher.events.length, 0, 'Pusher accepted nothing');
    assert.ok(pusher.refused.some((r) => r.status === 401 && r.path === `/apps/${pusher.appId}/events`), JSON.stringify(pusher.refused));

    // Steps 9 and 10 happened and stay.
    const detail = await admin.client.get(`/api/projects/${p.id}`);
    assert.equal(detail.status, 200, detail.text);
    assert.deepEqual(detail.body.files.map((f: { type: string; filename: string; size: number }) => [f.type, f.filename, f.size]), [['PO', 'order.pdf', pdf.data.length]]);
    const activity = await activityOf(admin.client, p.id);
    assert.deepEqual(activity.map((a) => [a.action, a.details]), [['PO_UPLOADED', { filename: 'order.pdf', size: pdf.data.length }]]);

    // The error handler logged the 500 with the failure.
    const failed = log.lines.filter((l) => l.level === 50 && l.msg === 'request failed');
    assert.ok(
      failed.some((l) => /Pusher refused the request/.test(l.err?.message ?? '')),
      `no error line for the failed upload: ${log.text.join('\n')}`,
    );
  });

  test('/readyz: 503 naming realtime while Pusher refuses the signed check', async () => {
    const res = await svc.anonymous.get('/readyz');
    assert.equal(res.status, 503, res.text);
    assert.match(res.body.error, /^Not ready: realtime \(Pusher refused the request: channel list not read \(401 /);
  });
});

describe('REALTIME_DRIVER=pusher, Pusher failing for a while', () => {
  test('a failed trigger answers 500 and leaves the SSE stream working: the next upload reaches it', async () => {
    const pusher = await startFakePusher();
    const svc = await startTestService({ env: pusher.env() });
    try {
      const admin = await svc.signIn('ADMIN');
      const p = await svc.createProject(admin.user.id, { status: 'APPROVED', piStatus: 'VERIFIED' });
      const stream = await openEventStream(admin.client);
      try {
        pusher.failWith(503, 'Service temporarily unavailable');
        const failed = await admin.client.upload([['projectId', p.id], ['fileType', 'PO'], ['file', pdf]]);
        assert.equal(failed.status, 500, failed.text);
        assert.deepEqual(failed.body, { error: 'Pusher refused the request: project-updated was not sent (503 Service temporarily unavailable)' });
        assert.equal((await svc.anonymous.get('/readyz')).status, 503);

        pusher.failWith(null);
        const ok = await admin.client.upload([['projectId', p.id], ['fileType', 'PO'], ['file', pdf]]);
        assert.equal(ok.status, 201, ok.text);
        // The stream reads the activity log: the first upload's entry (kept, as specified) is not lost, and arrives before the second's.
        assert.deepEqual(withoutIds(await stream.next(4)), [...changeEvents(p.id), ...changeEvents(p.id)]);
        assert.equal((await svc.anonymous.get('/readyz')).status, 200);
      } finally {
        stream.close();
      }
    } finally {
      await svc.close();
      await pusher.close();
    }
  });

  test('/readyz: 200 while the fake answers, 503 naming realtime once it is gone', async () => {
    const pusher = await startFakePusher();
    const svc = await startTestService({ env: pusher.env() });
    try {
      const ready = await svc.anonymous.get('/readyz');
      assert.equal(ready.status, 200, ready.text);
      await pusher.close();
      const res = await svc.anonymous.get('/readyz');
      assert.equal(res.status, 503, res.text);
      assert.match(res.body.error, /^Not ready: realtime \(Pusher is unavailable: channel list not read \(/);
      assert.deepEqual((await svc.anonymous.get('/healthz')).body, { status: 'ok' });
    } finally {
      await svc.close();
      await pusher.close();
    }
  });
});

describe('the fake Pusher', () => {
  test("holds each event to Pusher's limits: data over 10 KB 413, more than 100 channels or an invalid channel name 400, nothing accepted", async () => {
    const pusher = await startFakePusher();
    // The SDK's generic signed POST, past its own checks of channels.
    const sdk = new Pusher({ appId: pusher.appId, key: pusher.key, secret: pusher.secret, host: '127.0.0.1', port: String(pusher.port), useTLS: false });
    const trigger = (channels: string[], data: string) =>
      // The SDK encodes body as JSON itself (its type says string).
      sdk.post({ path: '/events', body: { name: 'project-updated', channels, data } as unknown as string }).then(
        (res) => res.status,
        (err: { status?: number }) => err.status,
      );
    try {
      assert.equal(await trigger(['private-projects'], JSON.stringify({ id: 'x'.repeat(10 * 1024) })), 413);
      assert.equal(await trigger(Array.from({ length: 101 }, (_, i) => `private-user-${i}`), '{}'), 400);
      assert.equal(await trigger(['private-user-a b'], '{}'), 400);
      assert.equal(await trigger([`private-user-${'x'.repeat(160)}`], '{}'), 400);
      assert.deepEqual(pusher.events, []);
      assert.equal(await trigger(['private-projects', `private-user-${'x'.repeat(150)}`], JSON.stringify({ id: 'x'.repeat(10 * 1024 - 20) })), 200);
      assert.equal(pusher.events.length, 1);
    } finally {
      await pusher.close();
    }
  });
});
