import assert from 'node:assert/strict';
import http from 'node:http';
import net from 'node:net';
import { after, before, test } from 'node:test';
import { type ChildService, startChildService } from './helpers/child-service.js';
import { eventually } from './helpers/eventually.js';

let svc: ChildService;
before(async () => {
  svc = await startChildService({ SHUTDOWN_GRACE_MS: '10000' });
});
after(() => svc.stop());

type Answer = { status: number; body: string; connection: string | undefined };

/** GET on a connection of its own: the answer, 'refused' when the connection is, 'reset' when it is dropped unanswered. */
function onNewConnection(url: string): Promise<Answer | 'refused' | 'reset'> {
  return new Promise((resolve, reject) => {
    const req = http.get(url, { agent: false }, (res) => {
      let body = '';
      res.on('data', (d) => (body += d));
      res.on('end', () => resolve({ status: res.statusCode!, body, connection: res.headers.connection }));
    });
    req.on('error', (err: NodeJS.ErrnoException) => {
      if (err.code === 'ECONNREFUSED') resolve('refused');
      else if (err.code === 'ECONNRESET') resolve('reset');
      else reject(err);
    });
  });
}

/** A request sent in two parts on a bare socket: its first part once connected, the rest by finish(); `reply` is all that came back once the server closed. */
async function splitRequest(url: string, first: string): Promise<{ finish(rest: string): void; reply: Promise<string> }> {
  const { hostname, port } = new URL(url);
  const socket = net.connect(Number(port), hostname);
  let received = '';
  socket.on('data', (d) => (received += d));
  const reply = new Promise<string>((resolve, reject) => {
    socket.on('close', () => resolve(received));
    socket.on('error', reject);
  });
  await new Promise<void>((resolve, reject) => socket.write(first, (err) => (err ? reject(err) : resolve())));
  return { finish: (rest) => socket.write(rest), reply };
}

const SHUTTING_DOWN = { status: 503, body: JSON.stringify({ error: 'Service is shutting down' }), connection: 'close' };

test('SIGTERM lets an upload in flight finish, refuses new connections meanwhile, then exits cleanly', async () => {
  const created = await svc.admin.post('/api/projects', { name: 'Shutdown' });
  assert.equal(created.status, 201, created.text);
  const project = created.body;
  const approved = await svc.admin.post(`/api/projects/${project.id}/approve`);
  assert.equal(approved.status, 200, approved.text);

  const boundary = 'shutdown-boundary';
  const head = Buffer.from(
    `--${boundary}\r\nContent-Disposition: form-data; name="projectId"\r\n\r\n${project.id}\r\n` +
      `--${boundary}\r\nContent-Disposition: form-data; name="fileType"\r\n\r\nPO\r\n` +
      `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="slow.bin"\r\nContent-Type: application/octet-stream\r\n\r\n`,
  );
  const tail = Buffer.from(`\r\n--${boundary}--\r\n`);
  const chunk = Buffer.alloc(64 * 1024, 7);
  const chunks = 20;

  const req = http.request(`${svc.url}/api/upload`, {
    method: 'POST',
    headers: { cookie: svc.admin.cookie!, 'content-type': `multipart/form-data; boundary=${boundary}` },
  });
  let answered = false;
  const response = new Promise<{ status: number; body: string }>((resolve, reject) => {
    req.on('response', (res) => {
      answered = true;
      let body = '';
      res.on('data', (d) => (body += d));
      res.on('end', () => resolve({ status: res.statusCode!, body }));
    });
    req.on('error', reject);
  });
  const write = (data: Buffer) => new Promise<void>((resolve, reject) => req.write(data, (err) => (err ? reject(err) : resolve())));
  await write(head);
  for (let i = 0; i < 3; i++) await write(chunk);
  // A request whose headers are still coming in when the shutdown begins: its connection is not idle, so it stays open.
  const lateHeaders = await splitRequest(svc.url, 'GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n');
  assert.deepEqual(await onNewConnection(`${svc.url}/healthz`), { status: 200, body: '{"status":"ok"}', connection: 'close' }, 'a round trip: the service has read that first part too');

  svc.child.kill('SIGTERM'); // mid-upload
  // While the upload is in flight, a new connection is refused (the listener is closed), or, should
  // it race the close, answered 503; before the signal is handled, as usual.
  await eventually(
    'new connections refused during the grace period',
    async () => {
      const answer = await onNewConnection(`${svc.url}/healthz`);
      if (answer === 'refused') return true;
      if (answer !== 'reset' && answer.status !== 200) assert.deepEqual(answer, SHUTTING_DOWN);
      return false;
    },
    5000,
  );
  assert.equal(answered, false, 'the upload is still in flight');
  // The request begun before the signal, completed now, is answered 503 and its connection closed.
  lateHeaders.finish('\r\n');
  const late = await lateHeaders.reply;
  assert.match(late, /^HTTP\/1\.1 503 /);
  assert.match(late, /\r\nconnection: close\r\n/i);
  assert.ok(late.endsWith(SHUTTING_DOWN.body), late);

  for (let i = 3; i < chunks; i++) await write(chunk);
  req.end(tail);
  const result = await response;
  assert.equal(result.status, 201, result.body);
  assert.equal(JSON.parse(result.body).size, chunks * chunk.length);
  assert.equal(await svc.exited, 0);
  // And after the exit.
  assert.equal(await onNewConnection(`${svc.url}/healthz`), 'refused');
});
