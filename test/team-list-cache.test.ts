import assert from 'node:assert/strict';
import http from 'node:http';
import { after, before, describe, test } from 'node:test';
import zlib from 'node:zlib';
import { presentTeamMember } from '../src/presenters/index.js';
import { type Client, type TestService, startTestService } from './helpers/service.js';
import { uniqueEmail } from './helpers/team.js';

/**
 * GET /api/team's reused answer (one per team version), its ETag, compression, and the team page's
 * search and paging, over real HTTP. The reference for "identical" is the table read afresh.
 */

let svc: TestService;
let other: TestService; // a second instance on the same database
let admin: Client;

before(async () => {
  svc = await startTestService();
  other = await startTestService({ sharedDatabase: svc.deps.config.database });
  admin = (await svc.signIn('ADMIN')).client;
});
after(async () => {
  await other?.close();
  await svc?.close();
});

/** A GET with node:http, so the bytes are seen as sent (fetch would decompress them). */
function rawGet(base: string, path: string, headers: Record<string, string>): Promise<{ status: number; headers: http.IncomingHttpHeaders; body: Buffer }> {
  return new Promise((resolve, reject) => {
    const req = http.get(new URL(path, base), { headers, timeout: 10_000 }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }));
      res.on('error', reject);
    });
    req.on('timeout', () => req.destroy(new Error(`GET ${path}: no answer in time`)));
    req.on('error', reject);
  });
}

/** The team as the specification lists it, read straight from the table. */
const freshTeam = async () => (await svc.deps.store.users.list()).map(presentTeamMember);

async function listed(base = svc.url) {
  const res = await rawGet(base, '/api/team', { cookie: admin.cookie! });
  assert.equal(res.status, 200, res.body.toString());
  return { body: res.body, etag: res.headers.etag, list: JSON.parse(res.body.toString('utf8')) as ReturnType<typeof presentTeamMember>[] };
}

describe('GET /api/team, reused until the team changes', () => {
  test('the answer, served twice, is byte for byte the fresh list', async () => {
    for (let i = 0; i < 3; i++) await svc.createUser({ name: `Cached ${i}` });
    const expected = Buffer.from(JSON.stringify(await freshTeam()));
    const first = await listed();
    const second = await listed();
    assert.deepEqual(first.body, expected);
    assert.deepEqual(second.body, expected);
    assert.equal(second.etag, first.etag);
  });

  test('a member created, edited or deactivated shows in the very next answer', async () => {
    await listed(); // warm
    const email = uniqueEmail('cache');
    const created = await admin.post('/api/team', { name: 'Fresh Member', email, password: 'pw-fresh-1', role: 'CLIENT' });
    assert.equal(created.status, 201, created.text);
    const id = created.body.id as string;
    assert.deepEqual((await listed()).list, await freshTeam());
    assert.equal((await listed()).list.find((u) => u.id === id)?.email, email);

    assert.equal((await admin.patch(`/api/team/${id}`, { name: 'Renamed Member', branch: 'North' })).status, 200);
    let row = (await listed()).list.find((u) => u.id === id);
    assert.equal(row?.name, 'Renamed Member');
    assert.equal(row?.branch, 'North');

    assert.equal((await admin.patch(`/api/team/${id}`, { active: false })).status, 200);
    row = (await listed()).list.find((u) => u.id === id);
    assert.equal(row?.active, false);
    assert.deepEqual((await listed()).list, await freshTeam());
  });

  test('a change made through another instance shows at once on this one (and the other way round)', async () => {
    const before = await listed();
    await listed(other.url); // the other instance has its own copy
    const created = await other.anonymous.request('POST', '/api/team', {
      json: { name: 'Made Elsewhere', email: uniqueEmail('other'), password: 'pw-other-1' },
      headers: { cookie: admin.cookie! },
    });
    assert.equal(created.status, 201, created.text);
    const after = await listed();
    assert.notEqual(after.etag, before.etag);
    assert.ok(after.list.some((u) => u.id === created.body.id));

    assert.equal((await admin.patch(`/api/team/${created.body.id as string}`, { role: 'ADMIN' })).status, 200);
    const seenThere = await listed(other.url);
    assert.equal(seenThere.list.find((u) => u.id === created.body.id)?.role, 'ADMIN');
    assert.deepEqual(seenThere.body, (await listed()).body);
  });

  test('a change written straight to the table (the command line, another tool) shows too', async () => {
    const { user } = await svc.createUser({ name: 'Direct' });
    await listed();
    await svc.deps.database.db.updateTable('users').set({ location: 'Direct Street' }).where('id', '=', user.id).execute();
    assert.equal((await listed()).list.find((u) => u.id === user.id)?.location, 'Direct Street');
  });
});

describe('GET /api/team: ETag and 304', () => {
  test('If-None-Match with the current tag: 304 without a body; after a change: 200 with a new tag', async () => {
    const { etag } = await listed();
    assert.ok(etag, 'an ETag');
    const cookie = admin.cookie!;
    const again = await rawGet(svc.url, '/api/team', { cookie, 'if-none-match': etag });
    assert.equal(again.status, 304);
    assert.equal(again.body.length, 0);
    assert.equal(again.headers.etag, etag);
    assert.equal((await rawGet(svc.url, '/api/team', { cookie, 'if-none-match': `"other", W/${etag}` })).status, 304);
    assert.equal((await rawGet(svc.url, '/api/team', { cookie, 'if-none-match': '"something-else"' })).status, 200);

    await svc.createUser({ name: 'Changes the tag' });
    const changed = await rawGet(svc.url, '/api/team', { cookie, 'if-none-match': etag });
    assert.equal(changed.status, 200);
    assert.notEqual(changed.headers.etag, etag);
    assert.deepEqual(JSON.parse(changed.body.toString('utf8')), await freshTeam());
  });

  test('without a session: 401, whatever If-None-Match says', async () => {
    const { etag } = await listed();
    const res = await rawGet(svc.url, '/api/team', { 'if-none-match': etag! });
    assert.equal(res.status, 401);
    assert.deepEqual(JSON.parse(res.body.toString('utf8')), { error: 'Unauthorized' });
  });
});

describe('compression', () => {
  test('gzip and brotli answers decompress to exactly the uncompressed JSON; identity when not accepted', async () => {
    const { body } = await listed();
    const cookie = admin.cookie!;
    const gz = await rawGet(svc.url, '/api/team', { cookie, 'accept-encoding': 'gzip' });
    assert.equal(gz.headers['content-encoding'], 'gzip');
    assert.match(String(gz.headers.vary), /accept-encoding/i);
    assert.deepEqual(zlib.gunzipSync(gz.body), body);
    const br = await rawGet(svc.url, '/api/team', { cookie, 'accept-encoding': 'gzip, br' });
    assert.equal(br.headers['content-encoding'], 'br');
    assert.deepEqual(zlib.brotliDecompressSync(br.body), body);
    const plain = await rawGet(svc.url, '/api/team', { cookie, 'accept-encoding': 'identity' });
    assert.equal(plain.headers['content-encoding'], undefined);
    assert.deepEqual(plain.body, body);
  });

  test('other JSON answers above the threshold are compressed, small ones and files are not', async () => {
    const cookie = admin.cookie!;
    const poc = await svc.createUser({ role: 'POC' });
    for (let i = 0; i < 20; i++) await svc.createProject(poc.user.id, { name: `Compressible project ${i} ${'x'.repeat(40)}` });
    const plain = await rawGet(svc.url, '/api/projects?limit=50', { cookie });
    assert.ok(plain.body.length > 1024);
    const gz = await rawGet(svc.url, '/api/projects?limit=50', { cookie, 'accept-encoding': 'gzip' });
    assert.equal(gz.headers['content-encoding'], 'gzip');
    assert.deepEqual(JSON.parse(zlib.gunzipSync(gz.body).toString('utf8')), JSON.parse(plain.body.toString('utf8')));

    const small = await rawGet(svc.url, '/healthz', { 'accept-encoding': 'gzip' });
    assert.equal(small.headers['content-encoding'], undefined);
    assert.deepEqual(JSON.parse(small.body.toString('utf8')), { status: 'ok' });

    // A stored JSON document is sent as stored, whatever the client accepts.
    const project = await svc.createProject(poc.user.id, { status: 'APPROVED', piStatus: 'VERIFIED' });
    const json = Buffer.from(JSON.stringify({ rows: Array.from({ length: 200 }, (_, i) => ({ i, text: 'compressible' })) }));
    const up = await admin.upload([
      ['projectId', project.id],
      ['fileType', 'PO'],
      ['file', { data: json, filename: 'data.json', type: 'application/json' }],
    ]);
    assert.equal(up.status, 201, up.text);
    const file = await rawGet(svc.url, new URL(up.body.url as string).pathname, { 'accept-encoding': 'gzip, br' });
    assert.equal(file.status, 200);
    assert.equal(file.headers['content-encoding'], undefined);
    assert.deepEqual(file.body, json);
  });

  test('the realtime stream is never compressed', async () => {
    const res = await new Promise<http.IncomingMessage>((resolve, reject) => {
      const req = http.get(new URL('/api/realtime', svc.url), { headers: { cookie: admin.cookie!, 'accept-encoding': 'gzip, br' } }, resolve);
      req.on('error', reject);
    });
    try {
      assert.equal(res.statusCode, 200);
      assert.match(String(res.headers['content-type']), /^text\/event-stream/);
      assert.equal(res.headers['content-encoding'], undefined);
      const first = await new Promise<Buffer>((resolve) => res.once('data', resolve));
      assert.match(first.toString('utf8'), /^:/, 'the opening comment, readable as sent');
    } finally {
      res.destroy();
    }
  });
});

describe('GET /api/team with the team page parameters', () => {
  test('q, role, active, limit and cursor page through the matching members in list order', async () => {
    const tag = `pager${Date.now()}`;
    for (let i = 0; i < 5; i++) await svc.createUser({ name: `${tag} ${i}`, role: i % 2 ? 'CLIENT' : 'POC', active: i !== 4 });
    const all = (await freshTeam()).filter((u) => u.name.startsWith(tag));
    assert.equal(all.length, 5);

    const first = await admin.get(`/api/team?q=${tag.toUpperCase()}&limit=2`);
    assert.equal(first.status, 200, first.text);
    assert.deepEqual(first.body.items, all.slice(0, 2));
    assert.equal(typeof first.body.nextCursor, 'string');
    const second = await admin.get(`/api/team?q=${tag}&limit=2&cursor=${first.body.nextCursor as string}`);
    assert.deepEqual(second.body.items, all.slice(2, 4));
    const third = await admin.get(`/api/team?q=${tag}&limit=2&cursor=${second.body.nextCursor as string}`);
    assert.deepEqual(third.body, { items: all.slice(4), nextCursor: null });

    const clients = await admin.get(`/api/team?q=${tag}&role=CLIENT`);
    assert.deepEqual(clients.body.items, all.filter((u) => u.role === 'CLIENT'));
    const inactive = await admin.get(`/api/team?q=${tag}&active=false`);
    assert.deepEqual(inactive.body.items, all.filter((u) => !u.active));
  });

  test('bad parameters: 400 with a JSON error; non-admins: 401', async () => {
    for (const query of ['role=BOSS', 'limit=0', 'limit=201', 'active=maybe', 'cursor=not-a-cursor']) {
      const res = await admin.get(`/api/team?${query}`);
      assert.equal(res.status, 400, `${query}: ${res.text}`);
      assert.equal(typeof res.body.error, 'string', query);
    }
    const poc = await svc.signIn('POC');
    assert.equal((await poc.client.get('/api/team?limit=5')).status, 401);
  });
});
