import assert from 'node:assert/strict';
import net from 'node:net';
import { after, before, describe, test } from 'node:test';
import type { User } from '../src/domain/model.js';
import { changeEvents, withoutIds } from './helpers/projects.js';
import { type Client, type TestService, collectEvents, openEventStream, startTestService } from './helpers/service.js';

let svc: TestService;
let admin: { user: User; client: Client };
let poc: { user: User; client: Client };

before(async () => {
  svc = await startTestService();
  [admin, poc] = await Promise.all([svc.signIn('ADMIN'), svc.signIn('POC')]);
});
after(() => svc.close());

/** A change that sends project-updated then stats-updated. */
async function touch(projectId: string, name: string) {
  const res = await admin.client.patch(`/api/projects/${projectId}`, { name });
  assert.equal(res.status, 200, res.text);
}

describe('GET /api/realtime', () => {
  test('401 JSON without a session', async () => {
    const res = await svc.anonymous.get('/api/realtime');
    assert.equal(res.status, 401);
    assert.match(res.headers.get('content-type') ?? '', /^application\/json/);
    assert.deepEqual(res.body, { error: 'Unauthorized' });
    const forged = await svc.anonymous.get('/api/realtime', { cookie: 'session=not-a-session' });
    assert.equal(forged.status, 401);
    assert.deepEqual(forged.body, { error: 'Unauthorized' });
  });

  test('an event stream of project-updated {id} then stats-updated {}, each with its own id, in order', async () => {
    const stream = await openEventStream(poc.client);
    try {
      assert.match(stream.headers.get('content-type') ?? '', /^text\/event-stream/);
      assert.match(stream.headers.get('cache-control') ?? '', /no-cache/);
      const p = await svc.createProject(poc.user.id);
      await touch(p.id, 'First');
      await touch(p.id, 'Second');
      const events = await stream.next(4);
      assert.deepEqual(withoutIds(events), [...changeEvents(p.id), ...changeEvents(p.id)]);
      // Ids are opaque (realtime/event-ids.ts) but ordered by the server: resuming from the first brings the other three.
      assert.equal(new Set(events.map((e) => e.id)).size, 4, 'an id per event');
      const resumed = await openEventStream(poc.client, '', { 'last-event-id': events[0]!.id });
      try {
        assert.deepEqual(await resumed.next(3), events.slice(1));
      } finally {
        resumed.close();
      }
    } finally {
      stream.close();
    }
  });

  test('?channels=dashboard receives only stats-updated; ?channels=projects only project-updated', async () => {
    const dashboard = await openEventStream(admin.client, '?channels=dashboard');
    const projects = await openEventStream(admin.client, '?channels=projects');
    const both = await openEventStream(admin.client, '?channels=projects,dashboard');
    try {
      const p = await svc.createProject(poc.user.id);
      const q = await svc.createProject(poc.user.id);
      await touch(p.id, 'One');
      await touch(q.id, 'Two');
      // Were a project-updated let through, it would come first.
      const all = await both.next(4);
      assert.deepEqual(withoutIds(all), [...changeEvents(p.id), ...changeEvents(q.id)]);
      assert.deepEqual(await dashboard.next(2), [all[1], all[3]]);
      assert.deepEqual(await projects.next(2), [all[0], all[2]]);
    } finally {
      dashboard.close();
      projects.close();
      both.close();
    }
  });

  test('two subscribers both receive every notification', async () => {
    const first = await openEventStream(admin.client);
    const second = await openEventStream(poc.client);
    try {
      const created = await poc.client.post('/api/projects', { name: 'Watched' });
      assert.equal(created.status, 201);
      const [a, b] = await Promise.all([first.next(2), second.next(2)]);
      assert.deepEqual(withoutIds(a), changeEvents(created.body.id));
      assert.deepEqual(withoutIds(b), changeEvents(created.body.id));
    } finally {
      first.close();
      second.close();
    }
  });

  test('a subscriber that disconnects does not disturb the others', async () => {
    const gone = await openEventStream(admin.client);
    gone.close();
    const p = await svc.createProject(poc.user.id);
    const events = await collectEvents(poc.client, 2, () => touch(p.id, 'After a close'));
    assert.deepEqual(withoutIds(events), changeEvents(p.id));
  });
});

describe('operations', () => {
  test('/healthz answers 200 {"status":"ok"} without a session', async () => {
    const res = await svc.anonymous.get('/healthz');
    assert.equal(res.status, 200);
    assert.deepEqual(res.body, { status: 'ok' });
  });

  test('/readyz answers 200 with every check ok', async () => {
    const res = await svc.anonymous.get('/readyz');
    assert.equal(res.status, 200, res.text);
    assert.deepEqual(res.body, { status: 'ready', checks: { database: 'ok', storage: 'ok', realtime: 'ok' } });
  });

  test('/readyz answers 503 naming the dependency that fails', async () => {
    const storage = svc.deps.storage;
    const check = storage.check;
    storage.check = async () => {
      throw new Error('disk unavailable');
    };
    try {
      const res = await svc.anonymous.get('/readyz');
      assert.equal(res.status, 503);
      assert.deepEqual(res.body, { error: 'Not ready: storage (disk unavailable)' });
    } finally {
      storage.check = check;
    }
    assert.equal((await svc.anonymous.get('/readyz')).status, 200);
  });

  test('/readyz answers 503 when a dependency hangs instead of waiting on it', async () => {
    const realtime = svc.deps.realtime;
    const check = realtime.check;
    realtime.check = () => new Promise(() => {});
    try {
      const res = await svc.anonymous.get('/readyz');
      assert.equal(res.status, 503);
      assert.deepEqual(res.body, { error: 'Not ready: realtime (no answer within 3000 ms)' });
    } finally {
      realtime.check = check;
    }
  });

  test('/api/openapi.json is valid JSON describing every /api endpoint', async () => {
    // Read with fetch, not Client: the document names a "password" property, which Client refuses in any body.
    const res = await fetch(new URL('/api/openapi.json', svc.url));
    assert.equal(res.status, 200);
    assert.match(res.headers.get('content-type') ?? '', /^application\/json/);
    const doc = JSON.parse(await res.text());
    assert.match(doc.openapi, /^3\./);
    const expected: Record<string, string[]> = {
      '/api/upload': ['post'],
      '/api/team': ['get', 'post'],
      '/api/team/{id}': ['patch'],
      '/api/auth/login': ['post'],
      '/api/auth/logout': ['post'],
      '/api/auth/session': ['get'],
      '/api/projects': ['get', 'post'],
      '/api/projects/{id}': ['get', 'patch'],
      '/api/projects/{id}/{action}': ['post'],
      '/api/projects/{id}/details': ['patch'],
      '/api/projects/{id}/submit-pi': ['post'],
      '/api/projects/{id}/payments': ['post'],
      '/api/activity': ['get'],
      '/api/dashboard/stats': ['get'],
      '/api/realtime': ['get'],
      '/api/projects/{id}/documents.zip': ['get'],
      '/api/resumable-uploads': ['post', 'options'],
      '/api/resumable-uploads/{id}': ['head', 'patch', 'delete'],
      '/api/resumable-uploads/{id}/result': ['get'],
    };
    for (const [path, methods] of Object.entries(expected)) {
      assert.ok(doc.paths[path], `paths has ${path}`);
      for (const m of methods) assert.ok(doc.paths[path][m], `${m.toUpperCase()} ${path}`);
    }
    // issue 13: the file list's new fields, and the upload's Idempotency-Key and added answers
    const file = JSON.stringify(doc.paths['/api/projects/{id}'].get.responses['200']);
    for (const field of ['sha256', 'detectedContentType', 'contentTypeMismatch', 'duplicateOf']) assert.ok(file.includes(`"${field}"`), `the file list documents ${field}`);
    const upload = doc.paths['/api/upload'].post;
    assert.ok(upload.parameters.some((p: { name: string; in: string }) => p.name === 'idempotency-key' && p.in === 'header'), 'Idempotency-Key documented');
    for (const status of ['409', '415']) assert.ok(upload.responses[status], `upload documents ${status}`);
    const actionParam = doc.paths['/api/projects/{id}/{action}'].post.parameters.find((p: { name: string }) => p.name === 'action');
    assert.deepEqual(actionParam.schema.enum, ['approve', 'reject', 'resubmit', 'verify-pi', 'reject-pi', 'start-printing', 'dispatch', 'deliver', 'cancel']);
  });

  test('/api/docs answers 200 with a page (after any redirect)', async () => {
    const res = await fetch(new URL('/api/docs', svc.url), { redirect: 'follow' });
    assert.equal(res.status, 200);
    assert.match(res.headers.get('content-type') ?? '', /^text\/html/);
    assert.match(await res.text(), /swagger/i);
  });

  test('every response carries an x-request-id, a fresh one each time unless the caller sent one', async () => {
    const answers = await Promise.all([
      svc.anonymous.get('/healthz'),
      svc.anonymous.get('/healthz'),
      svc.anonymous.get('/api/projects'),
      admin.client.get('/api/projects/no-such-project'),
      svc.anonymous.get('/no-such-route'),
      admin.client.get('/api/dashboard/stats'),
    ]);
    const ids = answers.map((r) => r.headers.get('x-request-id'));
    for (const id of ids) assert.match(id ?? '', /^[0-9a-f-]{36}$/);
    assert.equal(new Set(ids).size, ids.length);
    assert.deepEqual(answers.map((r) => r.status), [200, 200, 401, 404, 404, 200]);
    const echoed = await svc.anonymous.get('/healthz', { 'x-request-id': 'trace-42' });
    assert.equal(echoed.headers.get('x-request-id'), 'trace-42');
  });

  test('requests Fastify or Node refuse before any route still answer {"error": message}', async () => {
    const badUrl = await svc.anonymous.get('/api/projects/%E0%A4%A');
    assert.equal(badUrl.status, 400);
    assert.deepEqual(Object.keys(badUrl.body), ['error']);

    const raw = await new Promise<string>((resolve, reject) => {
      const socket = net.connect(Number(new URL(svc.url).port), '127.0.0.1', () => socket.write('THIS IS NOT HTTP\r\n\r\n'));
      let text = '';
      socket.on('data', (d) => (text += d));
      socket.on('end', () => resolve(text));
      socket.on('error', reject);
    });
    assert.match(raw, /^HTTP\/1\.1 400 /);
    assert.match(raw, /content-type: application\/json/i);
    assert.deepEqual(JSON.parse(raw.slice(raw.indexOf('\r\n\r\n') + 4)), { error: 'Bad Request' });
  });
});
