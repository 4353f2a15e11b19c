/**
 * Hostile input. Input a database would refuse is refused first, the same on SQLite and PostgreSQL: NUL
 * characters anywhere (query strings, path parameters, JSON bodies, upload fields, login) are a
 * 400 naming the field, cursors we did not issue are `400 Invalid cursor`, and a file name with
 * control characters is cleaned and stored. Login throttling holds under concurrency. Every
 * answer is JSON, including those Node gives by itself (417, CONNECT, unparsable methods).
 */
import assert from 'node:assert/strict';
import net from 'node:net';
import { after, before, describe, test } from 'node:test';
import { newId } from '../src/ids.js';
import { Client, type TestService, parseBody, startTestService } from './helpers/service.js';
import { assertAnswer, rawJson, uniqueEmail } from './helpers/team.js';
import { filesUnder, postMultipart, storedState, assertNothingStoredSince } from './helpers/upload.js';
import { labelOf } from '../src/domain/labels.js';

let svc: TestService;
let admin: Client;
let adminId: string;

before(async () => {
  svc = await startTestService({ env: { LOGIN_MAX_FAILURES_PER_EMAIL: '5', LOGIN_MAX_FAILURES_PER_ADDRESS: '20' } });
  const signed = await svc.signIn('ADMIN');
  admin = signed.client;
  adminId = signed.user.id;
});
after(() => svc?.close());

// Body fields are named as people call them (domain/labels.ts); query and path fields by where they are.
const nul = (field: string) => ({ error: `${labelOf(field)} must not contain NUL characters` });

describe('NUL characters are a 400 naming the field, before anything is read or written', () => {
  test('query strings and path parameters', async () => {
    const project = await svc.createProject(adminId);
    const cases: [string, string, string][] = [
      ['GET', '/api/projects?q=%00', 'query.q'],
      ['GET', '/api/projects?q=a%00b', 'query.q'],
      ['GET', '/api/projects?pocId=%00', 'query.pocId'],
      ['GET', '/api/activity?entityId=%00', 'query.entityId'],
      ['GET', '/api/activity?entityType=project&entityId=x%00', 'query.entityId'],
      ['GET', '/api/projects/%00', 'params.id'],
      ['PATCH', '/api/projects/%00', 'params.id'],
      ['POST', '/api/projects/%00/approve', 'params.id'],
      ['PATCH', '/api/team/%00', 'params.id'],
      ['GET', '/files/%00', 'params.*'],
      ['GET', `/files/print-orders/${project.id}/po/po_1%00.pdf`, 'params.*'],
    ];
    for (const [method, path, field] of cases) {
      const res = await admin.request(method, path, method === 'PATCH' ? { json: { name: 'x' } } : {});
      assertAnswer(res, 400, nul(field), `${method} ${path}`);
    }
    assert.equal((await svc.deps.store.projects.findById(project.id))?.status, 'REQUESTED');
  });

  test('JSON bodies: creating and changing projects and team members', async () => {
    const project = await svc.createProject(adminId, { name: 'Untouched' });
    const email = uniqueEmail('nul');
    const cases: [string, string, unknown, string][] = [
      ['POST', '/api/projects', { name: 'a\u0000b' }, 'name'],
      ['POST', '/api/projects', { name: 'ok', description: '\u0000' }, 'description'],
      ['PATCH', `/api/projects/${project.id}`, { name: 'a\u0000' }, 'name'],
      ['PATCH', `/api/projects/${project.id}`, { approval: { status: 'APPROVED', note: 'x\u0000' } }, 'approval.note'],
      ['POST', `/api/projects/${project.id}/approve`, { note: '\u0000' }, 'note'],
      ['POST', '/api/team', { name: 'N', email, password: 'pw\u0000pw' }, 'password'],
      ['POST', '/api/team', { name: 'N\u0000', email, password: 'pw-1' }, 'name'],
      ['PATCH', `/api/team/${adminId}`, { branch: '\u0000' }, 'branch'],
    ];
    for (const [method, path, json, field] of cases) {
      assertAnswer(await admin.request(method, path, { json }), 400, nul(field), `${method} ${path} ${JSON.stringify(json)}`);
    }
    const after = await svc.deps.store.projects.findById(project.id);
    assert.equal(after?.name, 'Untouched');
    assert.equal(after?.status, 'REQUESTED');
    assert.equal(await svc.deps.store.users.emailTaken(email), false);
  });

  test('login: a NUL in the email or password is a 400, not a counted failure', async () => {
    const { email, password } = await svc.createUser();
    for (const body of [{ email: `${email}\u0000`, password }, { email, password: `${password}\u0000` }]) {
      const field = body.email.includes('\u0000') ? 'email' : 'password';
      assertAnswer(await new Client(svc.url).post('/api/auth/login', body), 400, nul(field));
    }
    assert.equal((await new Client(svc.url).post('/api/auth/login', { email, password })).status, 200);
  });

  test('upload fields: a NUL in projectId or fileType is a 400 and nothing is stored', async () => {
    const project = await svc.createProject(adminId, { status: 'APPROVED', piStatus: 'VERIFIED' });
    const before = await storedState(svc, [project.id]);
    for (const [fields, field] of [
      [{ projectId: `${project.id}\u0000`, fileType: 'PO' }, 'projectId'],
      [{ projectId: project.id, fileType: 'PO\u0000' }, 'fileType'],
    ] as const) {
      for (const fileFirst of [false, true]) {
        const file = { name: 'file', data: '%PDF-1.4\n', filename: 'order.pdf', type: 'application/pdf' };
        const named = [
          { name: 'projectId', value: fields.projectId },
          { name: 'fileType', value: fields.fileType },
        ];
        const res = await postMultipart(admin, fileFirst ? [file, ...named] : [...named, file]);
        assertAnswer(res, 400, nul(field), `${field}, file ${fileFirst ? 'first' : 'last'}`);
      }
    }
    await assertNothingStoredSince(svc, before);
  });

  test('a file name with NUL or control characters is cleaned and stored, never refused after its bytes were stored', async () => {
    const project = await svc.createProject(adminId, { status: 'APPROVED', piStatus: 'VERIFIED' });
    for (const fileFirst of [false, true]) {
      const file = { name: 'file', data: '%PDF-1.4\n% nul name\n', filename: 'or\u0000d\u0001er.pdf', type: 'application/pdf' };
      const named = [
        { name: 'projectId', value: project.id },
        { name: 'fileType', value: 'PO' },
      ];
      const res = await postMultipart(admin, fileFirst ? [file, ...named] : [...named, file]);
      assert.equal(res.status, 201, res.text);
      assert.equal(res.body.filename, 'order.pdf');
      const served = await fetch(res.body.url);
      assert.equal(served.status, 200);
      assert.equal(await served.text(), '%PDF-1.4\n% nul name\n');
    }
    const detail = await admin.get(`/api/projects/${project.id}`);
    assert.deepEqual(detail.body.files.map((f: { filename: string }) => f.filename), ['order.pdf', 'order.pdf']);
    assert.deepEqual(filesUnder(`${svc.dataDir}/tmp`), []);
  });
});

/** How many activity entries there are: a refused request writes none. */
const activityCount = async () =>
  Number((await svc.deps.database.db.selectFrom('activity_log').select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow()).n);

describe('deeply nested JSON is a 400 on every JSON endpoint, never a 500', () => {
  const TOO_DEEP = { error: 'Request body is nested too deeply' };
  const arrays = (depth: number) => `${'['.repeat(depth)}${']'.repeat(depth)}`;
  const objects = (depth: number) => `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`;

  test('arrays and objects 10,000 and 100,000 deep, at the top or in a field', async () => {
    const project = await svc.createProject(adminId, { name: 'Untouched' });
    const { user: member } = await svc.createUser();
    const endpoints: [string, string][] = [
      ['POST', '/api/projects'],
      ['PATCH', `/api/projects/${project.id}`],
      ['PATCH', `/api/projects/${project.id}/details`],
      ['POST', `/api/projects/${project.id}/approve`],
      ['POST', `/api/projects/${project.id}/cancel`],
      ['POST', '/api/auth/login'],
      ['POST', '/api/auth/forgot-password'],
      ['POST', '/api/auth/reset-password'],
      ['POST', '/api/team'],
      ['PATCH', `/api/team/${member.id}`],
      ['PATCH', '/api/account'],
      ['POST', '/api/account/password'],
    ];
    const activity = await activityCount();
    for (const depth of [10_000, 100_000]) {
      for (const body of [arrays(depth), objects(depth), `{"name":${arrays(depth)}}`, `{"note":${objects(depth)}}`]) {
        for (const [method, path] of endpoints) {
          assertAnswer(await rawJson(admin, method, path, body), 400, TOO_DEEP, `${method} ${path}, ${depth} deep, ${body.slice(0, 12)}`);
        }
      }
    }
    const after = await svc.deps.store.projects.findById(project.id);
    assert.equal(after?.name, 'Untouched');
    assert.equal(after?.status, 'REQUESTED');
    assert.equal(await activityCount(), activity, 'no activity written');
    // What a body of ours needs parses as before.
    assert.equal((await admin.patch(`/api/projects/${project.id}`, { approval: { status: 'PENDING', note: 'fine' } })).status, 200);
  });
});

describe('lone surrogates (valid JSON, refused by PostgreSQL) are a 400 naming the field, on both databases', () => {
  const lone = (field: string) => ({ error: `${labelOf(field)} must not contain unpaired surrogates (invalid Unicode)` });

  test('in any text that would be stored: projects, lifecycle notes, team, account, login', async () => {
    const project = await svc.createProject(adminId, { name: 'Untouched' });
    const { user: member } = await svc.createUser({ name: 'Member Unchanged' });
    const email = uniqueEmail('surrogate');
    const activity = await activityCount();
    const cases: [string, string, string, string][] = [
      ['POST', '/api/projects', '{"name":"\\ud800"}', 'name'],
      ['POST', '/api/projects', '{"name":"ok","description":"x\\udc00y"}', 'description'],
      ['PATCH', `/api/projects/${project.id}`, '{"name":"a\\udbff"}', 'name'],
      ['PATCH', `/api/projects/${project.id}`, '{"approval":{"status":"APPROVED","note":"\\ud83d"}}', 'approval.note'],
      ['PATCH', `/api/projects/${project.id}/details`, '{"description":"\\udfff"}', 'description'],
      ['POST', `/api/projects/${project.id}/approve`, '{"note":"ok \\ud800 then"}', 'note'],
      ['POST', `/api/projects/${project.id}/reject`, '{"note":"\\udc00"}', 'note'],
      ['POST', '/api/team', `{"name":"N\\ud800","email":"${email}","password":"pw-long-enough"}`, 'name'],
      ['POST', '/api/team', `{"name":"N","email":"${email}","password":"pw\\udc00-long-enough"}`, 'password'],
      ['PATCH', `/api/team/${member.id}`, '{"branch":"\\ud800"}', 'branch'],
      ['PATCH', '/api/account', '{"name":"\\ud800"}', 'name'],
      ['POST', '/api/projects', '{"name":"ok","x\\udc00":1}', 'x\\udc00'],
    ];
    for (const [method, path, text, field] of cases) assertAnswer(await rawJson(admin, method, path, text), 400, lone(field), `${method} ${path} ${text}`);
    // A pair (an emoji) is text like any other.
    const emoji = await rawJson(admin, 'PATCH', `/api/projects/${project.id}/details`, '{"description":"print \\ud83d\\ude00"}');
    assert.equal(emoji.status, 200, emoji.text);
    assert.equal(emoji.body.description, 'print 😀');

    const after = await svc.deps.store.projects.findById(project.id);
    assert.equal(after?.name, 'Untouched');
    assert.equal(after?.status, 'REQUESTED');
    assert.equal(await activityCount(), activity + 1, 'only the emoji edit wrote activity');
    assert.equal((await svc.deps.store.users.findById(member.id))?.branch, null);
    assert.equal(await svc.deps.store.users.emailTaken(email), false);
  });

  test('login: a lone surrogate in the email or password is a 400, not a counted failure', async () => {
    const { email, password } = await svc.createUser();
    for (let i = 0; i < 6; i++) {
      assertAnswer(await rawJson(new Client(svc.url), 'POST', '/api/auth/login', `{"email":"${email}","password":"x\\ud800"}`), 400, lone('password'));
    }
    assert.equal((await new Client(svc.url).post('/api/auth/login', { email, password })).status, 200);
  });
});

describe('cursors are decoded strictly', () => {
  const encode = (s: string) => Buffer.from(s).toString('base64url');
  const foreign = [
    encode('2020-02-30T00:00:00.000Z|x'),
    encode(`2020-02-30T00:00:00.000Z|${newId()}`),
    encode(`0|${newId()}`),
    encode('+275760-09-13T00:00:00.000Z|x'),
    encode(`+275760-09-13T00:00:00.000Z|${newId()}`),
    encode(`2020-01-01|${newId()}`),
    encode(`2020-01-01T00:00:00.000Z|${newId()}\u0000`),
    encode('2020-01-01T00:00:00.000Z|x'),
    'not base64!',
    'garbage',
  ];
  for (const path of ['/api/projects', '/api/activity']) {
    test(`${path}: a cursor we did not issue is 400 Invalid cursor; ours page on`, async () => {
      for (const cursor of foreign) {
        assertAnswer(await admin.get(`${path}?cursor=${encodeURIComponent(cursor)}`), 400, { error: 'Invalid cursor' }, cursor);
      }
      await Promise.all([0, 1, 2].map(() => svc.createProject(adminId)));
      await admin.post('/api/projects', { name: 'activity one' });
      await admin.post('/api/projects', { name: 'activity two' });
      const first = await admin.get(`${path}?limit=1`);
      assert.equal(first.status, 200);
      assert.ok(first.body.nextCursor);
      const second = await admin.get(`${path}?limit=1&cursor=${encodeURIComponent(first.body.nextCursor)}`);
      assert.equal(second.status, 200, second.text);
      assert.equal(second.body.items.length, 1);
      assert.notEqual(second.body.items[0].id, first.body.items[0].id);
    });
  }
});

describe('login throttling under concurrency', () => {
  test('30 simultaneous wrong passwords for one email: at most 5 are checked (401), the rest 429', async () => {
    const { email, password } = await svc.createUser();
    const answers = await Promise.all(Array.from({ length: 30 }, (_, i) => new Client(svc.url).post('/api/auth/login', { email, password: `wrong-${i}` })));
    const statuses = answers.map((r) => r.status);
    assert.equal(statuses.filter((s) => s === 401).length, 5, statuses.join(','));
    assert.equal(statuses.filter((s) => s === 429).length, 25, statuses.join(','));
    for (const res of answers.filter((r) => r.status === 429)) assert.match(res.headers.get('retry-after') ?? '', /^\d+$/);
    // The right password too, until the window ends.
    assert.equal((await new Client(svc.url).post('/api/auth/login', { email, password })).status, 429);
  });

  test('50 simultaneous sign-ins with the right password for one account all succeed (failures are counted, not attempts)', async () => {
    const { email, password } = await svc.createUser();
    const answers = await Promise.all(Array.from({ length: 50 }, () => new Client(svc.url).post('/api/auth/login', { email, password })));
    assert.deepEqual(answers.map((r) => r.status), answers.map(() => 200), answers.map((r) => r.text).filter((t) => !t.includes('"user"')).join(' | '));
  });

  test('an office behind one address: 40 people signing in at once, more than the address limit (20), all succeed', async () => {
    const people = await Promise.all(Array.from({ length: 40 }, () => svc.createUser()));
    const answers = await Promise.all(people.map(({ email, password }) => new Client(svc.url).post('/api/auth/login', { email, password })));
    assert.deepEqual(answers.map((r) => r.status), answers.map(() => 200));
  });

  test('the right password is refused only once the failures reached the limit: 4 failures, then 20 at once with it all succeed', async () => {
    const { email, password } = await svc.createUser();
    for (let i = 0; i < 4; i++) assert.equal((await new Client(svc.url).post('/api/auth/login', { email, password: `wrong-${i}` })).status, 401);
    const answers = await Promise.all(Array.from({ length: 20 }, () => new Client(svc.url).post('/api/auth/login', { email, password })));
    assert.deepEqual(answers.map((r) => r.status), answers.map(() => 200));
    // The right password cleared the failures: five more wrong ones are checked before the 429.
    for (let i = 0; i < 5; i++) assert.equal((await new Client(svc.url).post('/api/auth/login', { email, password: `again-${i}` })).status, 401, `failure ${i + 1}`);
    assertAnswer(await new Client(svc.url).post('/api/auth/login', { email, password }), 429, { error: 'Too many login attempts, try again later' });
  });

  test('two instances sharing the database: 30 wrong passwords at once give 5 guesses in all; 40 right ones all succeed', async () => {
    const second = await startTestService({ sharedDatabase: svc.deps.config.database, env: { LOGIN_MAX_FAILURES_PER_EMAIL: '5', LOGIN_MAX_FAILURES_PER_ADDRESS: '20' } });
    try {
      const urls = [svc.url, second.url];
      const attacked = await svc.createUser();
      const wrong = await Promise.all(Array.from({ length: 30 }, (_, i) => new Client(urls[i % 2]!).post('/api/auth/login', { email: attacked.email, password: `wrong-${i}` })));
      const statuses = wrong.map((r) => r.status);
      assert.equal(statuses.filter((s) => s === 401).length, 5, statuses.join(','));
      assert.equal(statuses.filter((s) => s === 429).length, 25, statuses.join(','));
      const { email, password } = await svc.createUser();
      const right = await Promise.all(Array.from({ length: 40 }, (_, i) => new Client(urls[i % 2]!).post('/api/auth/login', { email, password })));
      assert.deepEqual(right.map((r) => r.status), right.map(() => 200));
    } finally {
      await second.close();
    }
  });

  test('30 simultaneous wrong passwords for different emails from one address: at most 20 are checked', async () => {
    const other = await startTestService({ env: { LOGIN_MAX_FAILURES_PER_ADDRESS: '20' } });
    try {
      const answers = await Promise.all(
        Array.from({ length: 30 }, (_, i) => new Client(other.url).post('/api/auth/login', { email: uniqueEmail(`addr${i}`), password: 'wrong' })),
      );
      const statuses = answers.map((r) => r.status);
      assert.equal(statuses.filter((s) => s === 401).length, 20, statuses.join(','));
      assert.equal(statuses.filter((s) => s === 429).length, 10, statuses.join(','));
    } finally {
      await other.close();
    }
  });
});

describe('bodies that are not what they claim', () => {
  test('a JSON body with a NUL escape in a key is refused too', async () => {
    assertAnswer(await rawJson(admin, 'POST', '/api/projects', '{"name":"ok","x\\u0000":1}'), 400, nul('x\\u0000'));
  });

  test('unknown fields are named plainly however many there are (1 or 40,000, any value), and nothing changes', async () => {
    const { user } = await svc.createUser({ role: 'POC' });
    const project = await svc.createProject(adminId, { status: 'APPROVED' });
    const before = await admin.get(`/api/projects/${project.id}`);
    const endpoints: [string, string][] = [
      ['PATCH', `/api/projects/${project.id}`],
      ['PATCH', `/api/projects/${project.id}/details`],
      ['PATCH', '/api/account'],
      ['PATCH', `/api/team/${user.id}`],
      ['POST', '/api/projects'],
    ];
    for (const [method, path] of endpoints) {
      for (const keys of [1, 40_000]) {
        for (const value of keys === 1 ? ['false', 'true', '"x"'] : ['false', '"x"']) {
          const text = `{${Array.from({ length: keys }, (_, i) => `"k${i}":${value}`).join(',')}}`;
          assertAnswer(await rawJson(admin, method, path, text), 400, { error: 'k0 is not a known field' }, `${method} ${path}, ${keys} keys of ${value}`);
        }
      }
    }
    assert.deepEqual((await admin.get(`/api/projects/${project.id}`)).body, before.body);
  });

  test('an upload whose Content-Type is garbage gets the specification\'s 400 and stores nothing', async () => {
    const before = await storedState(svc);
    for (const type of ['garbage', 'text/plain', 'application/json', 'multipart/mixed; boundary=x', '']) {
      const res = await admin.request('POST', '/api/upload', { body: 'projectId=x&fileType=PO', headers: { 'content-type': type } });
      assertAnswer(res, 400, { error: 'file, projectId and fileType are required' }, `Content-Type: ${type}`);
    }
    await assertNothingStoredSince(svc, before);
  });
});

/** A request written to a bare socket as is; resolves with what came back once the server closed. */
function rawExchange(text: string): Promise<{ status: number; headers: string; body: unknown }> {
  const { hostname, port } = new URL(svc.url);
  return new Promise((resolve, reject) => {
    const socket = net.connect(Number(port), hostname);
    let received = '';
    socket.setEncoding('utf8');
    socket.on('data', (d: string) => (received += d));
    socket.on('error', reject);
    socket.on('close', () => {
      clearTimeout(timer);
      const split = received.indexOf('\r\n\r\n');
      resolve({ status: Number(received.split(' ')[1]), headers: received.slice(0, split), body: parseBody(received.slice(split + 4)) });
    });
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new Error(`no answer, or the connection stayed open: ${JSON.stringify(received)}`));
    }, 5000);
    socket.write(text);
  });
}

describe('answers Node would give by itself are JSON too', () => {
  test('Expect: anything but 100-continue is 417 with a JSON body', async () => {
    for (const expect of ['bogus', '200-ok']) {
      const res = await rawExchange(`GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nExpect: ${expect}\r\nConnection: close\r\n\r\n`);
      assert.equal(res.status, 417);
      assert.match(res.headers, /content-type: application\/json/i);
      assert.deepEqual(res.body, { error: 'Expectation Failed: only Expect: 100-continue is supported' });
    }
  });

  test('CONNECT is 405 with a JSON body, not a connection closed unanswered', async () => {
    const res = await rawExchange('CONNECT example.com:443 HTTP/1.1\r\nHost: example.com:443\r\n\r\n');
    assert.equal(res.status, 405);
    assert.deepEqual(res.body, { error: 'Method CONNECT is not supported' });
    assert.equal((await svc.anonymous.get('/healthz')).status, 200);
  });

  test('an HTTP/1.1 request without Host is 400 in JSON on every route and does nothing; HTTP/1.0 needs no Host', async () => {
    const email = uniqueEmail('no-host');
    const body = JSON.stringify({ name: 'No Host', email, password: 'pw-no-host-1' });
    const requests = [
      'GET /api/projects HTTP/1.1\r\nConnection: close\r\n\r\n',
      'GET /healthz HTTP/1.1\r\nConnection: close\r\n\r\n',
      'GET /api/nope HTTP/1.1\r\nConnection: close\r\n\r\n',
      `POST /api/team HTTP/1.1\r\nCookie: ${admin.cookie!}\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\nConnection: close\r\n\r\n${body}`,
      `PATCH /api/resumable-uploads/${newId()} HTTP/1.1\r\nCookie: ${admin.cookie!}\r\nTus-Resumable: 1.0.0\r\nUpload-Offset: 0\r\nContent-Type: application/offset+octet-stream\r\nContent-Length: 3\r\n\r\nabc`,
    ];
    for (const request of requests) {
      const label = request.split('\r\n')[0]!;
      const res = await rawExchange(request);
      assert.equal(res.status, 400, label);
      assert.match(res.headers, /\r\ncontent-type: application\/json/i, label);
      assert.deepEqual(res.body, { error: 'Host header is required' }, label);
    }
    assert.equal(await svc.deps.database.db.selectFrom('users').select('id').where('email', '=', email).executeTakeFirst(), undefined, 'no member was created');
    const old = await rawExchange('GET /healthz HTTP/1.0\r\n\r\n');
    assert.deepEqual([old.status, old.body], [200, { status: 'ok' }], 'HTTP/1.0 without Host');
  });

  test('methods no route has, and methods Node cannot parse, are JSON', async () => {
    for (const method of ['PROPFIND', 'TRACE', 'DELETE']) {
      const res = await rawExchange(`${method} /api/projects HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n`);
      assert.equal(res.status, 404, method);
      assert.deepEqual(res.body, { error: `Route ${method} /api/projects not found` });
    }
    const res = await rawExchange('FOO /api/projects HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n');
    assert.equal(res.status, 400);
    assert.deepEqual(res.body, { error: 'Bad Request' });
  });
});
