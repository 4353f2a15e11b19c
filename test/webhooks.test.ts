/**
 * Webhooks (interface.md, additions of 2026-11-24) over real HTTP, with real receivers: who may
 * manage them, bad input, the SSRF rule at registration and at delivery, signed deliveries checked
 * by the Standard Webhooks algorithm, order and at-least-once across an outage, two instances,
 * a rolled-back change, secret rotation, manual retry, the test event, deactivation and /metrics.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { recordProjectActivity } from '../src/actions/record-activity.js';
import { nowIso } from '../src/deps.js';
import { newId } from '../src/ids.js';
import { eventually, eventuallyPasses } from './helpers/eventually.js';
import { type Client, type TestService, startTestService } from './helpers/service.js';
import { type Receiver, startReceiver, verifiedBy } from './helpers/webhook-receiver.js';

const FAST = { WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true', WEBHOOK_POLL_MS: '30', WEBHOOK_RETRY_BASE_MS: '40', WEBHOOK_RETRY_MAX_MS: '200', MAIL_BATCH_SECONDS: '0' };
const METRICS_TOKEN = 'metrics-token-for-the-webhook-test';

let svc: TestService;
let admin: { user: { id: string }; client: Client };
const receivers: Receiver[] = [];

before(async () => {
  svc = await startTestService({ env: { ...FAST, METRICS_TOKEN } });
  admin = await svc.signIn('ADMIN');
});
after(async () => {
  await Promise.all(receivers.map((r) => r.close()));
  await svc?.close();
});

async function receiver(answer?: Receiver['answer']): Promise<Receiver> {
  const r = await startReceiver(answer);
  receivers.push(r);
  return r;
}

async function register(client: Client, url: string, events: string[] = ['*']): Promise<{ id: string; secret: string }> {
  const res = await client.post('/api/webhooks', { url, events, description: 'test receiver' });
  assert.equal(res.status, 201, res.text);
  return res.body;
}

const parsed = (r: Receiver) => r.received.map((x) => JSON.parse(x.body) as { id: string; type: string; createdAt: string; data: Record<string, any> }); // eslint-disable-line @typescript-eslint/no-explicit-any
const count = async (table: 'webhooks' | 'webhook_events' | 'webhook_deliveries') =>
  Number((await svc.deps.database.db.selectFrom(table).select((eb) => eb.fn.countAll().as('n')).executeTakeFirstOrThrow()).n);

describe('who may manage webhooks, and bad input', () => {
  test('no session 401, a POC or CLIENT 403 on every endpoint; nothing stored', async () => {
    const hook = await register(admin.client, (await receiver()).url);
    const [poc, client] = await Promise.all([svc.signIn('POC'), svc.signIn('CLIENT')]);
    const calls: [string, string, unknown?][] = [
      ['GET', '/api/webhooks'],
      ['POST', '/api/webhooks', { url: 'http://127.0.0.1:9/x', events: ['*'] }],
      ['PATCH', `/api/webhooks/${hook.id}`, { active: false }],
      ['DELETE', `/api/webhooks/${hook.id}`],
      ['GET', `/api/webhooks/${hook.id}/deliveries`],
      ['POST', `/api/webhooks/${hook.id}/deliveries/${newId()}/retry`],
      ['POST', `/api/webhooks/${hook.id}/test`],
    ];
    const before = [await count('webhooks'), await count('webhook_deliveries')];
    for (const [method, path, json] of calls) {
      assert.deepEqual(await svc.anonymous.request(method, path, { json }).then((r) => [r.status, r.body]), [401, { error: 'Unauthorized' }], `${method} ${path}`);
      for (const who of [poc, client]) {
        assert.deepEqual(await who.client.request(method, path, { json }).then((r) => [r.status, r.body]), [403, { error: 'Forbidden' }], `${method} ${path} as ${who.user.id}`);
      }
    }
    assert.deepEqual([await count('webhooks'), await count('webhook_deliveries')], before);
    const listed = await admin.client.get('/api/webhooks');
    assert.equal(listed.status, 200);
    const mine = listed.body.find((w: { id: string }) => w.id === hook.id);
    assert.equal(mine.active, true);
    assert.equal('secret' in mine, false, 'the secret is never listed');
    assert.match(hook.secret, /^whsec_[A-Za-z0-9+/=]+$/);
  });

  test('bad input is a clear 400 naming the field, and nothing is stored', async () => {
    const url = (await receiver()).url;
    const before = await count('webhooks');
    const cases: [unknown, RegExp][] = [
      [{ url: 'ftp://example.com/x', events: ['*'] }, /url/i],
      [{ url: 'not a url', events: ['*'] }, /url/i],
      [{ url: `http://user:pw@127.0.0.1:1/x`, events: ['*'] }, /url/i],
      [{ url: `http://example.com/${'x'.repeat(2001)}`, events: ['*'] }, /url/i],
      [{ events: ['*'] }, /url/i],
      [{ url, events: [] }, /events/i],
      [{ url, events: ['project.deleted'] }, /events/i],
      [{ url, events: 'project.created' }, /events/i],
      [{ url }, /events/i],
      [{ url, events: ['*'], description: 'x'.repeat(5001) }, /description/i],
      [[1, 2], /JSON object/],
    ];
    for (const [json, message] of cases) {
      const res = await admin.client.post('/api/webhooks', json);
      assert.equal(res.status, 400, `${JSON.stringify(json).slice(0, 80)}: ${res.text}`);
      assert.match(res.body.error, message);
    }
    const hook = await register(admin.client, url);
    for (const json of [{ active: 'yes' }, { rotateSecret: 'please' }, { events: ['nope'] }, { url: 'gopher://x' }]) {
      const res = await admin.client.patch(`/api/webhooks/${hook.id}`, json);
      assert.equal(res.status, 400, JSON.stringify(json));
    }
    assert.equal(await count('webhooks'), before + 1);
    assert.equal((await admin.client.patch(`/api/webhooks/${newId()}`, { active: false })).status, 404);
    assert.equal((await admin.client.request('DELETE', `/api/webhooks/${newId()}`)).status, 404);
  });
});

describe('deliveries', () => {
  test('a project created, changed and given a document: each event signed (Standard Webhooks), with the project as an ADMIN sees it', async () => {
    const r = await receiver();
    const hook = await register(admin.client, r.url);
    const created = await admin.client.post('/api/projects', { name: 'Annual report', reference: 'PO-9' });
    assert.equal(created.status, 201);
    const id = created.body.id as string;
    assert.equal((await admin.client.patch(`/api/projects/${id}`, { name: 'Annual report 2026' })).status, 200);
    assert.equal((await admin.client.post(`/api/projects/${id}/approve`, {})).status, 200);
    const up = await admin.client.upload([['projectId', id], ['fileType', 'PO'], ['file', { data: '%PDF-1.4 hello', filename: 'po.pdf', type: 'application/pdf' }]]);
    assert.equal(up.status, 201, up.text);

    await eventually('four events delivered', () => r.received.length >= 4);
    const events = parsed(r);
    assert.deepEqual(events.map((e) => e.type), ['project.created', 'project.updated', 'project.updated', 'document.uploaded']);
    assert.deepEqual(events.map((e) => e.data.action), ['PROJECT_CREATED', 'PROJECT_UPDATED', 'PROJECT_APPROVED', 'PO_UPLOADED']);
    for (const got of r.received) {
      assert.deepEqual(verifiedBy([hook.secret], got), [hook.secret], 'signed with the endpoint’s secret');
      assert.deepEqual(verifiedBy([`whsec_${Buffer.alloc(32, 1).toString('base64')}`], got), [], 'another secret does not verify');
      assert.equal(got.headers['content-type'], 'application/json');
      assert.ok(Math.abs(Number(got.headers['webhook-timestamp']) - Date.now() / 1000) < 60);
      assert.equal(got.headers['webhook-id'], JSON.parse(got.body).id);
    }
    const last = events[3]!;
    const shown = (await admin.client.get(`/api/projects/${id}`)).body;
    const { allowedActions: _a, canEditDetails: _c, canHold: _h, canReorder: _r, uploads: _u, ...asShown } = shown;
    assert.deepEqual(last.data.project, asShown, 'the project as GET /api/projects/:id shows it to an ADMIN');
    assert.equal(last.data.document.id, up.body.id);
    assert.equal(last.data.document.filename, 'po.pdf');
    assert.equal(events[0]!.data.project.name, 'Annual report', 'each event carries the project as its change left it');
    assert.equal(events[1]!.data.project.name, 'Annual report 2026');
    assert.deepEqual(events[1]!.data.details.changed, ['name']);
    assert.doesNotMatch(r.received.map((x) => x.body).join(''), /storageKey|storage_key|whsec_/);

    const log = await admin.client.get(`/api/webhooks/${hook.id}/deliveries`);
    assert.equal(log.status, 200);
    assert.deepEqual(log.body.items.map((d: { event: string }) => d.event), ['document.uploaded', 'project.updated', 'project.updated', 'project.created']);
    for (const d of log.body.items) {
      assert.equal(d.status, 'delivered');
      assert.equal(d.attempts, 1);
      assert.equal(d.lastStatusCode, 200);
      assert.equal(d.responseExcerpt, 'ok');
    }
  });

  test('an endpoint gets only the events it listens to', async () => {
    const r = await receiver();
    await register(admin.client, r.url, ['document.uploaded']);
    const all = await receiver();
    await register(admin.client, all.url, ['*']);
    const created = await admin.client.post('/api/projects', { name: 'Only uploads' });
    await eventually('the created event reached the "*" endpoint', () => all.received.length >= 1);
    await new Promise((res) => setTimeout(res, 200));
    assert.equal(r.received.length, 0);
    assert.equal(parsed(all)[0]!.data.project.id, created.body.id);
  });

  test('a receiver down for a while gets every event after it returns, once each, in order', async () => {
    let down = true;
    const accepted: string[] = [];
    const r = await receiver((got) => {
      if (down) return { status: 503, body: 'maintenance' };
      accepted.push(got.body);
      return { status: 204 };
    });
    const hook = await register(admin.client, r.url, ['project.created', 'project.updated']);
    const project = await admin.client.post('/api/projects', { name: 'Outage' });
    for (let i = 1; i <= 5; i++) assert.equal((await admin.client.patch(`/api/projects/${project.body.id}`, { name: `Outage ${i}` })).status, 200);
    await eventually('the receiver was tried while down', () => r.received.length >= 3);
    // While the first event is failing, the later ones wait behind it: only the first was tried.
    assert.deepEqual(new Set(parsed(r).map((e) => e.data.project.name)), new Set(['Outage']));
    const failing = (await admin.client.get(`/api/webhooks/${hook.id}/deliveries`)).body.items.at(-1);
    assert.equal(failing.status, 'pending');
    assert.equal(failing.lastStatusCode, 503);
    assert.match(failing.lastError, /503/);
    assert.ok(failing.attempts >= 2);
    down = false;
    await eventually('every event delivered', async () => (await admin.client.get(`/api/webhooks/${hook.id}/deliveries`)).body.items.every((d: { status: string }) => d.status === 'delivered'));
    const after = accepted.map((b) => JSON.parse(b) as { id: string; data: { project: { name: string } } });
    assert.deepEqual(after.map((e) => e.data.project.name), ['Outage', 'Outage 1', 'Outage 2', 'Outage 3', 'Outage 4', 'Outage 5']);
    assert.equal(new Set(after.map((e) => e.id)).size, 6, 'once each');
  });

  test('a backlog is sent in runs: in order, once each, each delivery recorded with its own time; a failure mid-run holds the rest behind its retry, their attempts not counted', async () => {
    let down = true;
    let failed = false;
    const accepted: string[] = [];
    const r = await receiver((got) => {
      const name = (JSON.parse(got.body) as { data: { project: { name: string } } }).data.project.name;
      if (down) return { status: 503, body: 'maintenance' };
      // The sixth event fails once: the run it is in stops there.
      if (name === 'Run 6' && !failed) {
        failed = true;
        return { status: 500, body: 'try again' };
      }
      accepted.push(name);
      return { status: 200, body: 'ok' };
    });
    const hook = await register(admin.client, r.url, ['project.updated']);
    const project = await admin.client.post('/api/projects', { name: 'Run' });
    const names = Array.from({ length: 24 }, (_, i) => `Run ${i + 1}`);
    // While the endpoint fails, its deliveries wait behind the first: a backlog, sent as runs once it is back.
    for (const name of names) assert.equal((await admin.client.patch(`/api/projects/${project.body.id}`, { name })).status, 200);
    await eventually('the deliveries made', async () => (await admin.client.get(`/api/webhooks/${hook.id}/deliveries`)).body.items.length === names.length);
    down = false;
    await eventually('every event delivered', async () => (await admin.client.get(`/api/webhooks/${hook.id}/deliveries`)).body.items.every((d: { status: string }) => d.status === 'delivered'));
    assert.deepEqual(accepted, names, 'in order, once each');
    assert.deepEqual(
      r.received.filter((x) => !x.body.includes('"Run 1"')).length,
      names.length,
      'after the first, only the failed one twice',
    );
    const log = ((await admin.client.get(`/api/webhooks/${hook.id}/deliveries`)).body.items as { attempts: number; deliveredAt: string; lastStatusCode: number; responseExcerpt: string }[]).reverse();
    assert.ok(log[0]!.attempts >= 2, 'the first was tried while the endpoint was down');
    assert.deepEqual(
      log.slice(1).map((d) => d.attempts),
      names.slice(1).map((n) => (n === 'Run 6' ? 2 : 1)),
      'the ones given back behind a failure were not counted as attempted',
    );
    assert.ok(log.every((d) => d.lastStatusCode === 200 && d.responseExcerpt === 'ok'));
    const times = log.map((d) => Date.parse(d.deliveredAt));
    assert.deepEqual([...times].sort((a, b) => a - b), times, 'each recorded with the time it was delivered, in order');
  });

  test("each event shows the project's documents as they stood at its change, however late it is sent", async () => {
    let down = true;
    const r = await receiver(() => (down ? { status: 503 } : { status: 200 }));
    const hook = await register(admin.client, r.url, ['document.uploaded', 'document.voided']);
    const project = (await admin.client.post('/api/projects', { name: 'As of the change' })).body.id as string;
    assert.equal((await admin.client.post(`/api/projects/${project}/approve`, {})).status, 200);
    const upload = async (filename: string) => {
      const res = await admin.client.upload([['projectId', project], ['fileType', 'PO'], ['file', { data: `%PDF-1.4 ${filename}`, filename, type: 'application/pdf' }]]);
      assert.equal(res.status, 201, res.text);
      return res.body.id as string;
    };
    const first = await upload('first.pdf');
    const second = await upload('second.pdf');
    assert.equal((await admin.client.post(`/api/projects/${project}/files/${first}/void`, { reason: 'wrong customer' })).status, 200);
    await eventually('tried while down', () => r.received.length >= 1);
    down = false;
    await eventually('every event delivered', async () => (await admin.client.get(`/api/webhooks/${hook.id}/deliveries`)).body.items.every((d: { status: string }) => d.status === 'delivered'));
    const events = parsed(r).filter((e, i, all) => all.findIndex((x) => x.id === e.id) === i);
    const listed = (e: (typeof events)[number]) => e.data.project.files.map((f: { id: string; voidedAt: string | null }) => [f.id, f.voidedAt === null ? 'standing' : 'voided']);
    assert.deepEqual(events.map((e) => e.type), ['document.uploaded', 'document.uploaded', 'document.voided']);
    assert.deepEqual(listed(events[0]!), [[first, 'standing']], 'the first upload: only itself, standing');
    assert.deepEqual(listed(events[1]!), [[second, 'standing'], [first, 'standing']], 'the second: both, the first not yet withdrawn');
    assert.deepEqual(listed(events[2]!), [[second, 'standing'], [first, 'voided']], 'the withdrawal: the first withdrawn');
    assert.equal(events[2]!.data.document.voidReason, 'wrong customer');
    assert.equal(events[0]!.data.document.voidReason, null);
    const { allowedActions: _a, canEditDetails: _c, canHold: _h, canReorder: _r, uploads: _u, ...asShown } = (await admin.client.get(`/api/projects/${project}`)).body;
    assert.deepEqual(events[2]!.data.project, asShown, 'the latest event: the project as GET /api/projects/:id shows it');
  });

  test('a change that fails and rolls back sends nothing', async () => {
    const r = await receiver();
    await register(admin.client, r.url);
    const project = await svc.createProject(admin.user.id);
    const before = await count('webhook_deliveries');
    const eventsBefore = await count('webhook_events');
    await assert.rejects(
      svc.deps.store.transaction(async (store) => {
        await recordProjectActivity(store, { id: admin.user.id, role: 'ADMIN' } as never, project.id, 'PROJECT_UPDATED', { changed: ['name'] }, nowIso());
        throw new Error('the change fails after its activity entry');
      }),
      /the change fails/,
    );
    assert.equal(await count('webhook_deliveries'), before);
    assert.equal(await count('webhook_events'), eventsBefore);
    await new Promise((res) => setTimeout(res, 200));
    assert.equal(r.received.length, 0);
  });

  test('a change writes one event row, however many endpoints; the deliveries are made behind it, an endpoint deleted meanwhile skipped', async () => {
    // A service whose dispatcher runs only when told, so the moment between the change and its deliveries can be looked at.
    const idle = await startTestService({ env: { ...FAST, WEBHOOK_POLL_MS: '3600000' } });
    try {
      const { client } = await idle.signIn('ADMIN');
      const db = idle.deps.database.db;
      const rows = async (table: 'webhook_events' | 'webhook_deliveries') => Number((await db.selectFrom(table).select((eb) => eb.fn.countAll().as('n')).executeTakeFirstOrThrow()).n);
      const [kept, deleted] = [await receiver(), await receiver()];
      const keptHook = await register(client, kept.url, ['project.created']);
      const deletedHook = await register(client, deleted.url, ['project.created']);
      await idle.deps.webhooks.round(); // the start's round may still be under way: nothing is pending
      assert.equal((await client.post('/api/projects', { name: 'Fanned out behind the change' })).status, 201);
      assert.equal(await rows('webhook_events'), 1);
      assert.equal(await rows('webhook_deliveries'), 0, 'no delivery row in the change');
      const event = await db.selectFrom('webhook_events').select(['id', 'endpoint_ids']).executeTakeFirstOrThrow();
      assert.deepEqual((JSON.parse(event.endpoint_ids!) as string[]).sort(), [keptHook.id, deletedHook.id].sort(), 'the endpoints listening at the change');
      await idle.deps.store.webhookDeliveries.deleteDelivered('9999-01-01T00:00:00.000Z');
      assert.equal(await rows('webhook_events'), 1, 'pruning never takes an event whose deliveries are not made yet');
      assert.equal((await client.request('DELETE', `/api/webhooks/${deletedHook.id}`)).status, 204);

      await idle.deps.webhooks.round();
      assert.deepEqual(parsed(kept).map((e) => e.id), [event.id]);
      assert.deepEqual(await db.selectFrom('webhook_deliveries').select(['webhook_id', 'status']).where('event_id', '=', event.id).execute(), [{ webhook_id: keptHook.id, status: 'delivered' }]);
      assert.equal((await db.selectFrom('webhook_events').select('endpoint_ids').executeTakeFirstOrThrow()).endpoint_ids, null, 'fanned out once');
      assert.equal(deleted.received.length, 0);
    } finally {
      await idle.close();
    }
  });

  test('secret rotation: the new secret is answered once; both sign during the overlap', async () => {
    const r = await receiver();
    const hook = await register(admin.client, r.url);
    const rotated = await admin.client.patch(`/api/webhooks/${hook.id}`, { rotateSecret: true });
    assert.equal(rotated.status, 200);
    assert.match(rotated.body.secret, /^whsec_/);
    assert.notEqual(rotated.body.secret, hook.secret);
    assert.ok(Date.parse(rotated.body.secretRotatesUntil) > Date.now() + 23 * 3_600_000);
    const plain = await admin.client.patch(`/api/webhooks/${hook.id}`, { description: 'renamed' });
    assert.equal('secret' in plain.body, false, 'only the rotation answers the secret');
    assert.equal((await admin.client.post(`/api/webhooks/${hook.id}/test`)).status, 202);
    await eventually('the test event delivered', () => r.received.length >= 1);
    const got = r.received[0]!;
    assert.equal(String(got.headers['webhook-signature']).split(' ').length, 2);
    assert.deepEqual(verifiedBy([rotated.body.secret, hook.secret], got), [rotated.body.secret, hook.secret]);
    // The overlap over: only the new secret signs.
    await svc.deps.database.db.updateTable('webhooks').set({ previous_secret_expires_at: new Date(Date.now() - 1000).toISOString() }).where('id', '=', hook.id).execute();
    await admin.client.post(`/api/webhooks/${hook.id}/test`);
    await eventually('the second test event delivered', () => r.received.length >= 2);
    assert.deepEqual(verifiedBy([rotated.body.secret, hook.secret], r.received[1]!), [rotated.body.secret]);
    assert.equal(parsed(r)[0]!.type, 'webhook.test');
  });

  test('a manual retry sends a delivery again', async () => {
    const r = await receiver();
    const hook = await register(admin.client, r.url);
    const sent = await admin.client.post(`/api/webhooks/${hook.id}/test`);
    await eventually('delivered', () => r.received.length === 1);
    const retried = await admin.client.post(`/api/webhooks/${hook.id}/deliveries/${sent.body.id}/retry`);
    assert.equal(retried.status, 200);
    assert.equal(retried.body.status, 'pending');
    await eventually('delivered again', () => r.received.length === 2);
    assert.equal(r.received[0]!.headers['webhook-id'], r.received[1]!.headers['webhook-id'], 'the same event id: receivers can tell it is the same event');
    assert.equal((await admin.client.post(`/api/webhooks/${hook.id}/deliveries/${newId()}/retry`)).status, 404);
  });

  test('redirects are not followed: a redirect to loopback is a failed attempt, the target never reached', async () => {
    const inside = await receiver();
    const r = await receiver(() => ({ status: 302, headers: { location: inside.url } }));
    const hook = await register(admin.client, r.url);
    await admin.client.post(`/api/webhooks/${hook.id}/test`);
    const d = await eventuallyPasses(async () => {
      const item = (await admin.client.get(`/api/webhooks/${hook.id}/deliveries`)).body.items[0];
      assert.equal(item.lastStatusCode, 302);
      return item;
    });
    assert.equal(d.status, 'pending');
    assert.match(d.lastError, /redirect/);
    assert.equal(inside.received.length, 0);
    await admin.client.request('DELETE', `/api/webhooks/${hook.id}`);
  });

  test('/metrics: deliveries by endpoint and status, and the outbox age', async () => {
    const r = await receiver();
    const hook = await register(admin.client, r.url);
    await admin.client.post(`/api/webhooks/${hook.id}/test`);
    await eventually('delivered', () => r.received.length === 1);
    const text = await eventuallyPasses(async () => {
      const res = await svc.anonymous.get('/metrics', { authorization: `Bearer ${METRICS_TOKEN}` });
      assert.match(res.text, new RegExp(`webhook_deliveries\\{webhook="${hook.id}",status="delivered"\\} 1`));
      return res.text;
    });
    assert.match(text, /webhook_outbox_oldest_pending_seconds \d/);
  });
});

describe('SSRF: internal targets refused unless WEBHOOK_ALLOW_PRIVATE_TARGETS=true', () => {
  let strict: TestService;
  let strictAdmin: Client;
  before(async () => {
    strict = await startTestService({ env: { WEBHOOK_POLL_MS: '30', WEBHOOK_RETRY_BASE_MS: '40', WEBHOOK_RETRY_MAX_MS: '200' } });
    strictAdmin = (await strict.signIn('ADMIN')).client;
  });
  after(() => strict?.close());

  test('at registration: loopback, private, link-local (metadata), IPv6 loopback and a name resolving to loopback are 400', async () => {
    for (const url of ['http://127.0.0.1/x', 'http://10.0.0.1/x', 'http://169.254.169.254/latest/meta-data', 'http://[::1]:8080/x', 'http://localhost:3000/x', 'https://192.168.1.20/x', 'http://[::ffff:127.0.0.1]/x', 'http://0.0.0.0/']) {
      const res = await strictAdmin.post('/api/webhooks', { url, events: ['*'] });
      assert.equal(res.status, 400, `${url}: ${res.text}`);
      assert.match(res.body.error, /url/i);
    }
    assert.equal((await strictAdmin.get('/api/webhooks')).body.length, 0);
    const moved = await strictAdmin.patch(`/api/webhooks/${newId()}`, { url: 'http://127.0.0.1/x' });
    assert.equal(moved.status, 400, 'a change of url is checked too');
  });

  test('at delivery: the resolved address is checked again, and a loopback one is never connected to', async () => {
    const r = await receiver();
    const id = newId();
    const now = nowIso();
    // Stored as if it had passed registration (a name that resolved elsewhere then, or a setting since changed).
    await strict.deps.store.webhooks.insert({ id, url: r.url.replace('127.0.0.1', 'localhost'), events: ['*'], description: null, secret: `whsec_${Buffer.alloc(32, 7).toString('base64')}`, previousSecret: null, previousSecretExpiresAt: null, active: true, failingSince: null, createdAt: now, updatedAt: now });
    assert.equal((await strictAdmin.post(`/api/webhooks/${id}/test`)).status, 202);
    const d = await eventuallyPasses(async () => {
      const item = (await strictAdmin.get(`/api/webhooks/${id}/deliveries`)).body.items[0];
      assert.ok(item.attempts >= 1 && item.lastError, 'tried');
      return item;
    });
    assert.match(d.lastError, /refused/);
    assert.equal(d.lastStatusCode, null);
    assert.equal(r.received.length, 0);
  });

  test('IPv6 forms embedding an internal IPv4 address (6to4, NAT64 and its local-use prefix, SIIT, mapped, compatible, Teredo, ISATAP) are 400 at registration and refused at delivery (issue 33, item 15)', async () => {
    const forms = [
      'http://[2002:7f00:1::]/',
      'http://[2002:a9fe:a9fe::]/latest/meta-data',
      'http://[2002:c0a8:101::]:8080/x',
      'http://[64:ff9b::7f00:1]/',
      'http://[64:ff9b:1::7f00:1]/',
      'http://[::ffff:0:7f00:1]/',
      'http://[::ffff:a9fe:a9fe]/',
      'http://[::7f00:1]/',
      'http://[2001:0:4136:e378:8000:63bf:80ff:fffe]/',
      'http://[2606:4700::5efe:a00:1]/',
    ];
    const stored = (await strictAdmin.get('/api/webhooks')).body.length;
    for (const url of forms) {
      const res = await strictAdmin.post('/api/webhooks', { url, events: ['*'] });
      assert.equal(res.status, 400, `${url}: ${res.text}`);
      assert.match(res.body.error, /^URL is refused: the host .* resolves to .*internal address/i, url);
    }
    assert.equal((await strictAdmin.get('/api/webhooks')).body.length, stored, 'nothing stored');
    // A public address written in one of those forms is still a public address.
    const publicForm = await strictAdmin.post('/api/webhooks', { url: 'http://[2002:808:808::1]/hook', events: ['*'] });
    assert.equal(publicForm.status, 201, publicForm.text);
    assert.equal((await strictAdmin.request('DELETE', `/api/webhooks/${publicForm.body.id}`)).status, 204);

    // Stored as if it had passed an older rule: the delivery is refused before any connection.
    const id = newId();
    const now = nowIso();
    await strict.deps.store.webhooks.insert({ id, url: 'http://[2002:7f00:1::]:9/x', events: ['*'], description: null, secret: `whsec_${Buffer.alloc(32, 7).toString('base64')}`, previousSecret: null, previousSecretExpiresAt: null, active: true, failingSince: null, createdAt: now, updatedAt: now });
    assert.equal((await strictAdmin.post(`/api/webhooks/${id}/test`)).status, 202);
    const d = await eventuallyPasses(async () => {
      const item = (await strictAdmin.get(`/api/webhooks/${id}/deliveries`)).body.items[0];
      assert.ok(item.attempts >= 1 && item.lastError, 'tried');
      return item;
    });
    assert.match(d.lastError, /^refused: the host 2002:7f00:1:: resolves to 2002:7f00:1:: is an internal address \(it carries 127\.0\.0\.1\)/);
    assert.equal((await strictAdmin.request('DELETE', `/api/webhooks/${id}`)).status, 204);
  });
});

describe('unknown fields (issue 33, item 16)', () => {
  test('POST /api/webhooks and PATCH /api/webhooks/:id refuse a field they do not know, naming it, and change nothing', async () => {
    const before = await count('webhooks');
    const created = await admin.client.post('/api/webhooks', { url: (await receiver()).url, events: ['*'], active: false, secret: 'whsec_chosen', bogus: {} });
    assert.equal(created.status, 400, created.text);
    assert.deepEqual(created.body, { error: 'Active is not a known field' });
    assert.equal(await count('webhooks'), before, 'nothing stored');
    const hook = await register(admin.client, (await receiver()).url);
    const stored = (await admin.client.get('/api/webhooks')).body.find((w: { id: string }) => w.id === hook.id);
    const changed = await admin.client.patch(`/api/webhooks/${hook.id}`, { description: 'changed', foo: 1, failingSince: '2026-01-01T00:00:00.000Z' });
    assert.equal(changed.status, 400, changed.text);
    assert.deepEqual(changed.body, { error: 'foo is not a known field' });
    assert.deepEqual((await admin.client.get('/api/webhooks')).body.find((w: { id: string }) => w.id === hook.id), stored, 'unchanged');
  });
});

describe('two instances on one database', () => {
  test('each event is delivered once, in order', async () => {
    const second = await startTestService({ env: FAST, sharedDatabase: svc.running.deps.config.database });
    try {
      const r = await receiver(() => ({ status: 200, delayMs: 5 }));
      const hook = await register(admin.client, r.url, ['project.created']);
      const names = Array.from({ length: 20 }, (_, i) => `Twin ${String(i).padStart(2, '0')}`);
      for (const name of names) assert.equal((await admin.client.post('/api/projects', { name })).status, 201);
      await eventually('all delivered', async () => (await admin.client.get(`/api/webhooks/${hook.id}/deliveries`)).body.items.filter((d: { status: string }) => d.status === 'delivered').length === 20);
      await new Promise((res) => setTimeout(res, 300));
      assert.deepEqual(parsed(r).map((e) => e.data.project.name), names, 'each once, in order');
    } finally {
      await second.close();
    }
  });
});

describe('an endpoint failing too long', () => {
  test('is switched off, its pending deliveries failed, the admins emailed; retried once back on', async () => {
    const svc3 = await startTestService({ env: { ...FAST, WEBHOOK_DEACTIVATE_AFTER_SECONDS: '1' } });
    try {
      const a = await svc3.signIn('ADMIN');
      let failing = true;
      const r = await receiver(() => (failing ? { status: 500, body: 'x'.repeat(5000) } : { status: 200 }));
      const hook = await register(a.client, r.url);
      const sent = await a.client.post(`/api/webhooks/${hook.id}/test`);
      await eventually('switched off', async () => (await a.client.get('/api/webhooks')).body[0].active === false, 10_000);
      const d = (await a.client.get(`/api/webhooks/${hook.id}/deliveries`)).body.items[0];
      assert.equal(d.status, 'failed');
      assert.equal(d.lastStatusCode, 500);
      assert.ok(d.responseExcerpt.length <= 1025, 'the answer’s excerpt is bounded');
      const emails = await svc3.deps.database.db.selectFrom('outbox').selectAll().where('recipient_id', '=', a.user.id).execute();
      assert.equal(emails.length, 1);
      assert.match(JSON.stringify(emails[0]!.events), /WEBHOOK_DEACTIVATED/);
      const tried = r.received.length;
      await new Promise((res) => setTimeout(res, 200));
      assert.equal(r.received.length, tried, 'no more attempts once switched off');
      failing = false;
      assert.equal((await a.client.patch(`/api/webhooks/${hook.id}`, { active: true })).body.active, true);
      assert.equal((await a.client.post(`/api/webhooks/${hook.id}/deliveries/${sent.body.id}/retry`)).status, 200);
      await eventuallyPasses(async () => assert.equal((await a.client.get(`/api/webhooks/${hook.id}/deliveries`)).body.items[0].status, 'delivered'));
    } finally {
      await svc3.close();
    }
  });
});
