import assert from 'node:assert/strict';
import http from 'node:http';
import { after, before, test } from 'node:test';
import { type ChildService, startChildService } from './helpers/child-service.js';

let svc: ChildService;
before(async () => {
  svc = await startChildService({ SHUTDOWN_GRACE_MS: '10000' });
});
after(() => svc.stop());

test('SIGTERM lets an upload in flight finish, refuses new connections, then exits cleanly', async () => {
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

  const response = new Promise<{ status: number; body: string }>((resolve, reject) => {
    const req = http.request(`${svc.url}/api/upload`, {
      method: 'POST',
      headers: { cookie: svc.admin.cookie!, 'content-type': `multipart/form-data; boundary=${boundary}` },
    });
    req.on('response', (res) => {
      let body = '';
      res.on('data', (d) => (body += d));
      res.on('end', () => resolve({ status: res.statusCode!, body }));
    });
    req.on('error', reject);
    (async () => {
      req.write(head);
      for (let i = 0; i < chunks; i++) {
        req.write(chunk);
        if (i === 2) svc.child.kill('SIGTERM'); // mid-upload
        await new Promise((r) => setTimeout(r, 50));
      }
      req.end(tail);
    })().catch(reject);
  });

  const result = await response;
  assert.equal(result.status, 201, result.body);
  assert.equal(JSON.parse(result.body).size, chunks * chunk.length);
  // The listener closed on SIGTERM: a new connection is refused.
  await assert.rejects(fetch(`${svc.url}/healthz`));
  assert.equal(await svc.exited, 0);
});
