/**
 * Slow and silent clients (README, Timeouts): headers and JSON bodies must arrive in bounded
 * time (408 in JSON, connection closed), an upload that goes silent is aborted and stores
 * nothing while one that keeps sending is never cut, a body answered before it was in is read
 * (so the answer can be read) only within the drain limits, and idle keep-alive connections are closed.
 * The limits are set small here; the service keeps serving everyone else throughout.
 */
import assert from 'node:assert/strict';
import net from 'node:net';
import { after, before, describe, test } from 'node:test';
import { captureLogs } from './helpers/logs.js';
import { Client, type TestService, parseBody, startTestService } from './helpers/service.js';
import { eventuallyNothingStoredSince, multipart, partHead, storedState, streamRequest } from './helpers/upload.js';

const DRAIN_MS = 1500;
const DRAIN_BYTES = 1024 * 1024;
const LIMITS = {
  HEADERS_TIMEOUT_MS: '600',
  BODY_TIMEOUT_MS: '600',
  UPLOAD_IDLE_TIMEOUT_MS: '600',
  KEEP_ALIVE_TIMEOUT_MS: '600',
  UNREAD_BODY_DRAIN_MS: String(DRAIN_MS),
  UNREAD_BODY_DRAIN_BYTES: String(DRAIN_BYTES),
};

let svc: TestService;
let admin: Client;
let adminId: string;
/** What the service logs: a client's stall is the client's, not an error of ours (level 50 and above). */
const log = captureLogs('info');
const errorLines = () => log.lines.filter((l) => l.level >= 50);

before(async () => {
  svc = await startTestService({ env: LIMITS, logger: log.logger });
  const signed = await svc.signIn('ADMIN');
  admin = signed.client;
  adminId = signed.user.id;
});
after(() => svc?.close());

/** Writes `sent` to a bare socket and collects whatever comes back until the server closes it. */
function stall(sent: string | Buffer, timeoutMs = 10_000): Promise<{ text: string; status: number | undefined; body: unknown; closedAfterMs: number }> {
  const { hostname, port } = new URL(svc.url);
  return new Promise((resolve, reject) => {
    const started = Date.now();
    const socket = net.connect(Number(port), hostname);
    const chunks: Buffer[] = [];
    socket.on('data', (d: Buffer) => chunks.push(d));
    socket.on('error', () => {});
    socket.on('close', () => {
      clearTimeout(timer);
      const text = Buffer.concat(chunks).toString('utf8');
      const split = text.indexOf('\r\n\r\n');
      const status = text ? Number(text.split(' ')[1]) : undefined;
      resolve({ text, status, body: split >= 0 ? parseBody(text.slice(split + 4)) : undefined, closedAfterMs: Date.now() - started });
    });
    socket.on('connect', () => {
      if (sent.length) socket.write(sent);
    });
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new Error(`the server kept a stalled connection open for ${timeoutMs} ms`));
    }, timeoutMs);
  });
}

const head = (path: string, headers: Record<string, string>) =>
  `POST ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\n${Object.entries(headers)
    .map(([k, v]) => `${k}: ${v}\r\n`)
    .join('')}\r\n`;

describe('headers and JSON bodies that do not arrive in time', () => {
  test('headers that stop half-way: 408 in JSON, connection closed', async () => {
    const res = await stall('GET /api/projects HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ');
    assert.equal(res.status, 408, res.text);
    assert.deepEqual(res.body, { error: 'Request headers not received in time' });
  });

  test('a connection that sends nothing at all is closed', async () => {
    const res = await stall('');
    assert.ok(res.status === undefined || res.status === 408, res.text);
  });

  test('a login whose body stops after 9 of 100 bytes: 408 in JSON, connection closed, nothing counted', async () => {
    const { email, password } = await svc.createUser();
    const res = await stall(`${head('/api/auth/login', { 'Content-Type': 'application/json', 'Content-Length': '100' })}{"email":`);
    assert.equal(res.status, 408, res.text);
    assert.deepEqual(res.body, { error: 'Request body not received within 600 ms' });
    assert.equal((await new Client(svc.url).post('/api/auth/login', { email, password })).status, 200);
  });

  test('a hundred stalled bodies at once are all closed, and the service answers everyone else meanwhile', async () => {
    const stalled = Array.from({ length: 100 }, () =>
      stall(`${head('/api/projects', { 'Content-Type': 'application/json', 'Content-Length': '1000', Cookie: admin.cookie! })}{"name":"`),
    );
    assert.equal((await svc.anonymous.get('/healthz')).status, 200);
    assert.equal((await admin.get('/api/projects')).status, 200);
    for (const res of await Promise.all(stalled)) assert.equal(res.status, 408, res.text);
    assert.equal((await svc.anonymous.get('/healthz')).status, 200);
    // Once answered 408, nothing else answers the same request (Fastify warns of a second reply, as a 500).
    assert.deepEqual(
      // (The start-up's setup link, logged at warn before the admin was made, is no reply.)
      log.lines.filter((l) => l.level >= 40 && !/to create the first admin$/.test(l.msg)).map((l) => l.msg),
      [],
    );
  });
});

describe('uploads', () => {
  const pdf = Buffer.from('%PDF-1.4\n' + 'x'.repeat(4096));

  for (const fileFirst of [false, true]) {
    test(`an upload that goes silent mid-file is aborted (408) and stores nothing (${fileFirst ? 'file first, spooled' : 'fields first, streamed'})`, async () => {
      const project = await svc.createProject(adminId, { status: 'APPROVED', piStatus: 'VERIFIED' });
      const before = await storedState(svc, [project.id]);
      const errorsBefore = errorLines().length;
      const boundary = 'stall-boundary';
      const fields = [
        { name: 'projectId', value: project.id },
        { name: 'fileType', value: 'PO' },
      ];
      const fieldBytes = multipart(fields, boundary).body;
      const fieldsOnly = fieldBytes.subarray(0, fieldBytes.length - `--${boundary}--\r\n`.length);
      const file = Buffer.concat([partHead({ name: 'file', data: '', filename: 'order.pdf', type: 'application/pdf' }, boundary), pdf]);
      const body = fileFirst ? file : Buffer.concat([fieldsOnly, file]);
      const res = await stall(
        Buffer.concat([
          Buffer.from(head('/api/upload', { 'Content-Type': `multipart/form-data; boundary=${boundary}`, 'Content-Length': String(body.length + 10_000), Cookie: admin.cookie! })),
          body,
        ]),
      );
      assert.equal(res.status, 408, res.text);
      assert.deepEqual(res.body, { error: 'No data received for 600 ms' });
      // The service's cleanup runs as the aborted body fails.
      await eventuallyNothingStoredSince(svc, before);
      assert.deepEqual(errorLines().slice(errorsBefore), [], 'the stall is logged as the client’s, not as an error');
    });
  }

  test('an upload answered before its body is in (no session, a refused project) whose client then goes silent: answered, then closed', async () => {
    const partial = `--XB\r\nContent-Disposition: form-data; name="projectId"\r\n\r\nabc`;
    const headers = { 'Content-Type': 'multipart/form-data; boundary=XB', 'Content-Length': '100000000' };
    const anonymous = await stall(`${head('/api/upload', headers)}${partial}`, 6000);
    assert.equal(anonymous.status, 401, anonymous.text);
    assert.deepEqual(anonymous.body, { error: 'Unauthorized' });

    const project = await svc.createProject(adminId);
    const cookie = admin.cookie!;
    const refusedBody = `--XB\r\nContent-Disposition: form-data; name="projectId"\r\n\r\n${project.id}\r\n--XB\r\nContent-Disposition: form-data; name="fileType"\r\n\r\nPO\r\n--XB\r\nContent-Disposition: form-data; name="file"; filename="po.pdf"\r\n\r\n%PDF`;
    const refused = await stall(`${head('/api/upload', { ...headers, Cookie: cookie })}${refusedBody}`, 6000);
    assert.equal(refused.status, 400, refused.text);
    assert.deepEqual(refused.body, { error: 'PO can only be uploaded after project approval' });
  });

  test('after an early answer the rest of the body is read, so the connection serves the next request', async () => {
    const body = Buffer.alloc(DRAIN_BYTES - 4096, 1);
    const { hostname, port } = new URL(svc.url);
    const socket = net.connect(Number(port), hostname);
    const received: Buffer[] = [];
    socket.on('data', (d: Buffer) => received.push(d));
    await new Promise((r) => socket.once('connect', r));
    socket.write(head('/api/upload', { 'Content-Type': 'multipart/form-data; boundary=XB', 'Content-Length': String(body.length) }));
    socket.write(body);
    socket.write('GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n');
    await new Promise((r) => socket.once('close', r));
    const text = Buffer.concat(received).toString();
    assert.match(text, /^HTTP\/1\.1 401 [^]*\{"error":"Unauthorized"\}HTTP\/1\.1 200 /, text);
  });

  /** Sends an early-refused upload's head, then `piece` every `everyMs` (0: as fast as the socket takes them) until the server closes. */
  function keepSending(piece: Buffer, everyMs: number): Promise<{ text: string; sent: number; closedAfterMs: number }> {
    const { hostname, port } = new URL(svc.url);
    return new Promise((resolve, reject) => {
      const started = Date.now();
      const socket = net.connect(Number(port), hostname);
      const chunks: Buffer[] = [];
      let sent = 0;
      let timer: NodeJS.Timeout | undefined;
      const give = () => {
        if (socket.destroyed) return;
        sent += piece.length;
        if (everyMs) {
          socket.write(piece);
          timer = setTimeout(give, everyMs);
        } else if (socket.write(piece)) setImmediate(give);
        else socket.once('drain', give);
      };
      socket.on('data', (d: Buffer) => chunks.push(d));
      socket.on('error', () => {});
      socket.on('close', () => {
        clearTimeout(timer);
        clearTimeout(guard);
        resolve({ text: Buffer.concat(chunks).toString(), sent, closedAfterMs: Date.now() - started });
      });
      socket.on('connect', () => {
        socket.write(head('/api/upload', { 'Content-Type': 'multipart/form-data; boundary=XB', 'Transfer-Encoding': 'chunked' }));
        give();
      });
      const guard = setTimeout(() => {
        socket.destroy();
        reject(new Error(`a client that kept sending held its connection for 10 s (${sent} bytes sent)`));
      }, 10_000);
    });
  }
  const chunked = (bytes: number) => Buffer.concat([Buffer.from(`${bytes.toString(16)}\r\n`), Buffer.alloc(bytes, 2), Buffer.from('\r\n')]);

  test('a client that never stops sending after an early answer, but never goes silent either, is closed after UNREAD_BODY_DRAIN_MS', async () => {
    // 1 KiB every 100 ms: far under the byte limit, never silent for the idle limit.
    const res = await keepSending(chunked(1024), 100);
    assert.match(res.text, /^HTTP\/1\.1 401 [^]*\{"error":"Unauthorized"\}$/, res.text);
    assert.ok(res.closedAfterMs >= DRAIN_MS - 100 && res.closedAfterMs < DRAIN_MS + 2000, `closed after ${res.closedAfterMs} ms`);
  });

  test('a client that sends fast after an early answer is closed once UNREAD_BODY_DRAIN_BYTES were read', async () => {
    const res = await keepSending(chunked(64 * 1024), 0);
    assert.match(res.text, /^HTTP\/1\.1 401 [^]*\{"error":"Unauthorized"\}$/, res.text);
    assert.ok(res.closedAfterMs < DRAIN_MS, `closed after ${res.closedAfterMs} ms, ${res.sent} bytes sent`);
    assert.ok(res.sent > DRAIN_BYTES, `${res.sent} bytes sent`);
  });

  test('an upload that keeps sending, slower than the idle limit in total but never silent for it, is stored whole', async () => {
    const project = await svc.createProject(adminId, { status: 'APPROVED', piStatus: 'VERIFIED' });
    const { body, contentType } = multipart([
      { name: 'projectId', value: project.id },
      { name: 'fileType', value: 'PO' },
      { name: 'file', data: pdf, filename: 'slow.pdf', type: 'application/pdf' },
    ]);
    // 12 pieces, one every 200 ms: 2.4 s in all, four times the idle limit.
    const pieces = Array.from({ length: 12 }, (_, i) => body.subarray(Math.floor((i * body.length) / 12), Math.floor(((i + 1) * body.length) / 12)));
    const res = await streamRequest(`${svc.url}/api/upload`, {
      headers: { 'content-type': contentType, 'content-length': String(body.length), cookie: admin.cookie! },
      body: (async function* () {
        for (const piece of pieces) {
          yield piece;
          await new Promise((r) => setTimeout(r, 200));
        }
      })(),
    });
    assert.equal(res.status, 201, res.text);
    const served = await fetch((res.body as { url: string }).url);
    assert.deepEqual(Buffer.from(await served.arrayBuffer()), pdf);
  });
});

test('an idle keep-alive connection is closed after KEEP_ALIVE_TIMEOUT_MS', async () => {
  const res = await stall('GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n');
  assert.equal(res.status, 200);
  assert.match(res.text, /keep-alive/i);
  assert.ok(res.closedAfterMs >= 500, `closed after ${res.closedAfterMs} ms`);
});
