/**
 * `kill -9` in the middle of uploads (both orders of the parts), then a restart: nothing is left
 * behind. The service runs as a child process on the tests' database; its spool files
 * (DATA_DIR/tmp) and the local driver's temporary files are there when it dies, and after the
 * restart (which empties DATA_DIR/tmp and reconciles) every stored file has a record, every record
 * its file, and no partial file remains.
 */
import assert from 'node:assert/strict';
import net from 'node:net';
import path from 'node:path';
import { test } from 'node:test';
import { spawnService } from './helpers/child-service.js';
import { eventually } from './helpers/eventually.js';
import { Client, testConfig } from './helpers/service.js';
import { filesUnder, multipart, partHead } from './helpers/upload.js';

const ADMIN = { ADMIN_EMAIL: 'admin@example.com', ADMIN_PASSWORD: 'admin-password' };

/** Sends an upload's head and the first `bytes` of its file, then holds the connection open. */
function startUpload(url: string, cookie: string, projectId: string, fileFirst: boolean, bytes: number): net.Socket {
  const { port } = new URL(url);
  const boundary = `crash-${Math.random().toString(36).slice(2)}`;
  const fields = multipart(
    [
      { name: 'projectId', value: projectId },
      { name: 'fileType', value: 'PO' },
    ],
    boundary,
  ).body;
  const fieldParts = fields.subarray(0, fields.length - `--${boundary}--\r\n`.length);
  const fileHead = partHead({ name: 'file', data: '', filename: 'big.pdf', type: 'application/pdf' }, boundary);
  const sent = Buffer.concat([...(fileFirst ? [] : [fieldParts]), fileHead, Buffer.alloc(bytes, 0x41)]);
  const socket = net.connect(Number(port), '127.0.0.1');
  socket.on('error', () => {});
  socket.write(
    `POST /api/upload HTTP/1.1\r\nHost: 127.0.0.1\r\nCookie: ${cookie}\r\nContent-Type: multipart/form-data; boundary=${boundary}\r\nContent-Length: ${sent.length + 10_000_000}\r\n\r\n`,
  );
  socket.write(sent);
  return socket;
}

test('SIGKILL during uploads leaves, after a restart, no file without a record and no spool or partial file', { timeout: 120_000 }, async () => {
  const { env, config, cleanup } = await testConfig({ env: { ...ADMIN, RECONCILE_ON_START: 'off' } });
  const uploads = path.join(config.dataDir, 'uploads');
  const tmp = path.join(config.dataDir, 'tmp');
  const sockets: net.Socket[] = [];
  let service = await spawnService(env);
  try {
    const admin = new Client(service.url);
    assert.equal((await admin.post('/api/auth/login', { email: ADMIN.ADMIN_EMAIL, password: ADMIN.ADMIN_PASSWORD })).status, 200);
    const project = (await admin.post('/api/projects', { name: 'Crash' })).body as { id: string };
    assert.equal((await admin.post(`/api/projects/${project.id}/approve`)).status, 200);
    for (let i = 0; i < 2; i++) {
      const done = await admin.upload([
        ['projectId', project.id],
        ['fileType', 'PO'],
        ['file', { data: `%PDF-1.4\n% complete ${i}\n`, filename: 'done.pdf', type: 'application/pdf' }],
      ]);
      assert.equal(done.status, 201, done.text);
    }

    // Past the size a file is held in memory whole (1 MiB), so that each is on disk when the process dies.
    for (const fileFirst of [false, true, false, true, false, true]) sockets.push(startUpload(service.url, admin.cookie!, project.id, fileFirst, 2 * 1024 * 1024));
    // The service is writing all six: three spooled, three into the local driver's temporary files.
    await eventually('six uploads in flight', () => filesUnder(tmp).length === 3 && filesUnder(uploads).filter((f) => f.startsWith('.incoming')).length === 3, 20_000);

    service.child.kill('SIGKILL');
    await service.exited;
    for (const s of sockets) s.destroy();
    assert.equal(filesUnder(tmp).length, 3, 'the spool files outlive the process');
    assert.equal(filesUnder(uploads).filter((f) => f.startsWith('.incoming')).length, 3, 'so do the partial files');

    service = await spawnService({ ...env, RECONCILE_ON_START: 'repair', RECONCILE_GRACE_MS: '0' });
    assert.deepEqual(filesUnder(tmp), [], 'DATA_DIR/tmp is emptied at start-up');
    await eventually('the reconciler removed the partial files', () => filesUnder(uploads).every((f) => !f.startsWith('.incoming')), 20_000);

    const restarted = new Client(service.url);
    assert.equal((await restarted.post('/api/auth/login', { email: ADMIN.ADMIN_EMAIL, password: ADMIN.ADMIN_PASSWORD })).status, 200);
    const detail = (await restarted.get(`/api/projects/${project.id}`)).body as { files: { url: string; filename: string }[] };
    assert.equal(detail.files.length, 2);
    const recorded = detail.files.map((f) => decodeURIComponent(new URL(f.url).pathname.slice('/files/'.length))).sort();
    assert.deepEqual(filesUnder(uploads), recorded, 'every stored file has a record and every record its file');
    for (const f of detail.files) assert.match(await (await fetch(f.url)).text(), /^%PDF-1\.4\n% complete \d\n$/);
  } finally {
    for (const s of sockets) s.destroy();
    await service.stop();
    await cleanup();
  }
});

/** GET /metrics's value of one unlabelled metric. */
async function metric(url: string, token: string, name: string): Promise<number> {
  const text = await (await fetch(`${url}/metrics`, { headers: { authorization: `Bearer ${token}` } })).text();
  return Number(new RegExp(`^${name} (\\S+)$`, 'm').exec(text)?.[1] ?? NaN);
}

test('SIGKILL during a burst of grouped uploads: every upload answered 201 keeps its record and its bytes; after the reconciler nothing unreferenced remains', { timeout: 120_000 }, async () => {
  const METRICS_TOKEN = 'crash-test-metrics-token';
  const { env, config, cleanup } = await testConfig({ env: { ...ADMIN, RECONCILE_ON_START: 'off', METRICS_TOKEN } });
  const uploads = path.join(config.dataDir, 'uploads');
  let service = await spawnService(env);
  let bursting = true;
  try {
    const admin = new Client(service.url);
    assert.equal((await admin.post('/api/auth/login', { email: ADMIN.ADMIN_EMAIL, password: ADMIN.ADMIN_PASSWORD })).status, 200);
    const project = (await admin.post('/api/projects', { name: 'Burst' })).body as { id: string };
    assert.equal((await admin.post(`/api/projects/${project.id}/approve`)).status, 200);

    // Sixteen clients upload small documents one after another, each with bytes of its own, until the process dies.
    const answered = new Map<string, { url: string; data: string }>();
    const client = async (c: number) => {
      for (let i = 0; bursting; i++) {
        const data = `%PDF-1.4\n% burst ${c}-${i}\n`;
        const res = await admin
          .upload([
            ['projectId', project.id],
            ['fileType', 'PO'],
            ['file', { data, filename: `burst-${c}-${i}.pdf`, type: 'application/pdf' }],
          ])
          .catch(() => undefined); // the process died under it: no answer
        if (!res) return;
        if (res.status === 201) {
          const { id, url } = res.body as { id: string; url: string };
          answered.set(id, { url, data });
        }
      }
    };
    const clients = Array.from({ length: 16 }, (_, c) => client(c));
    // Killed mid-burst, once uploads have shared commits (the writer's counts, on /metrics).
    await eventually('uploads sharing a commit', async () => answered.size >= 40 && (await metric(service.url, METRICS_TOKEN, 'group_commit_largest_batch')) >= 2, 30_000);
    service.child.kill('SIGKILL');
    await service.exited;
    bursting = false;
    await Promise.all(clients);

    service = await spawnService({ ...env, RECONCILE_ON_START: 'repair', RECONCILE_GRACE_MS: '0' });
    const restarted = new Client(service.url);
    assert.equal((await restarted.post('/api/auth/login', { email: ADMIN.ADMIN_EMAIL, password: ADMIN.ADMIN_PASSWORD })).status, 200);
    const files = async () => ((await restarted.get(`/api/projects/${project.id}`)).body as { files: { id: string; url: string }[] }).files;
    const keyOf = (url: string) => decodeURIComponent(new URL(url).pathname.slice('/files/'.length));
    // The reconciler removes the bytes of uploads that died before their record: then every stored file has one.
    const recorded = (await files()).map((f) => keyOf(f.url)).sort();
    await eventually('the reconciler removed every file without a record', () => JSON.stringify(filesUnder(uploads)) === JSON.stringify(recorded), 20_000);

    const byId = new Map((await files()).map((f) => [f.id, f]));
    for (const [id, { url, data }] of answered) {
      assert.ok(byId.has(id), `the upload answered 201 as ${id} has its record`);
      assert.equal(await (await fetch(url)).text(), data, `and its bytes (${keyOf(url)})`);
    }
    assert.ok(byId.size >= answered.size);
  } finally {
    bursting = false;
    await service.stop();
    await cleanup();
  }
});
