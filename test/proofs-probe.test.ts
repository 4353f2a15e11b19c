/**
 * Proofs probed from outside (a fresh pair of eyes after issue 34 merged): refusals that must come
 * while a big proof is still arriving, an oversized or refused proof leaving nothing behind and
 * taking no number, simultaneous posts, a link on a type without a preview, and proof tokens kept
 * out of the logs whatever way the address is written.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { barsPdf } from './helpers/pdf.js';
import { captureLogs } from './helpers/logs.js';
import { mailEnv } from './helpers/mail.js';
import { type Client, type TestService, startTestService } from './helpers/service.js';
import { type TestSmtpServer, startSmtpServer } from './helpers/smtp.js';
import { type Receiver, startReceiver } from './helpers/webhook-receiver.js';
import { eventuallyPasses } from './helpers/eventually.js';
import type { User } from '../src/domain/model.js';

type Someone = { user: User; client: Client };
const INVALID_LINK = { error: 'This proof link is invalid or expired' };

function postProof(client: Client, projectId: string, file: Buffer | string, type = 'application/pdf', filename = 'proof.pdf') {
  const form = new FormData();
  form.append('file', new Blob([typeof file === 'string' ? file : new Uint8Array(file)], { type }), filename);
  return client.request('POST', `/api/projects/${projectId}/proofs`, { body: form });
}

/** Files under the service's data dir whose path has a `/proof/` folder. */
function storedProofs(dataDir: string): string[] {
  const found: string[] = [];
  const walk = (dir: string) => {
    for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
      const p = path.join(dir, e.name);
      if (e.isDirectory()) walk(p);
      else if (p.includes(`${path.sep}proof${path.sep}`)) found.push(p);
    }
  };
  walk(dataDir);
  return found;
}

/**
 * A multipart POST whose file part is `total` bytes sent slowly in chunks; resolves with the answer's
 * status and body and how many bytes had been sent when the answer came.
 */
function slowPost(url: string, cookie: string, total: number): Promise<{ status: number; body: string; sentWhenAnswered: number; total: number }> {
  const boundary = 'probeboundary';
  const head = Buffer.from(`--${boundary}\r\ncontent-disposition: form-data; name="file"; filename="big.pdf"\r\ncontent-type: application/pdf\r\n\r\n%PDF-1.4\n`);
  const tail = Buffer.from(`\r\n--${boundary}--\r\n`);
  const length = head.length + total + tail.length;
  return new Promise((resolve, reject) => {
    let sent = 0;
    let answered = -1;
    const req = http.request(url, { method: 'POST', headers: { cookie, 'content-type': `multipart/form-data; boundary=${boundary}`, 'content-length': String(length) } }, (res) => {
      answered = sent;
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => (body += c));
      res.on('end', () => resolve({ status: res.statusCode!, body, sentWhenAnswered: answered, total: length }));
    });
    req.on('error', (err) => (answered >= 0 ? undefined : reject(err)));
    req.write(head);
    sent += head.length;
    const chunk = Buffer.alloc(64 * 1024, 0x20);
    const pump = () => {
      if (answered >= 0) return req.destroy();
      if (sent - head.length >= total) {
        req.end(tail);
        return;
      }
      const n = Math.min(chunk.length, total - (sent - head.length));
      req.write(chunk.subarray(0, n));
      sent += n;
      setTimeout(pump, 5);
    };
    pump();
  });
}

describe('proofs probed from outside', () => {
  let smtp: TestSmtpServer;
  let svc: TestService;
  let poc: Someone;
  let client: Someone;
  let stranger: Someone;
  let admin: Someone;
  let receiver: Receiver;
  let customerId: string;
  const logs = captureLogs('debug');

  before(async () => {
    smtp = await startSmtpServer();
    receiver = await startReceiver();
    svc = await startTestService({ env: { ...mailEnv(smtp, 0), WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true', WEBHOOK_POLL_MS: '30', MAX_UPLOAD_BYTES: String(256 * 1024), LOG_LEVEL: 'debug' }, logger: logs.logger });
    admin = await svc.signIn('ADMIN');
    assert.equal((await admin.client.post('/api/webhooks', { url: receiver.url, events: ['proof.posted', 'proof.approved', 'proof.changes_requested'] })).status, 201);
    [poc, client, stranger] = await Promise.all([svc.signIn('POC'), svc.signIn('CLIENT'), svc.signIn('CLIENT')]);
    customerId = (await admin.client.post('/api/customers', { name: 'Acme Menus' })).body.id;
    await admin.client.patch(`/api/team/${client.user.id}`, { customerId });
    const other = (await admin.client.post('/api/customers', { name: 'Other Co' })).body.id;
    await admin.client.patch(`/api/team/${stranger.user.id}`, { customerId: other });
  });
  after(async () => {
    await svc?.close();
    await smtp?.stop();
    await receiver?.close();
  });
  const newProject = async (status: 'APPROVED' | 'DISPATCHED' = 'APPROVED') =>
    (await svc.createProject(poc.user.id, { customerId, status, piStatus: 'VERIFIED' })).id;

  test('refusals come while a big proof is still arriving (403, 404, 409, 413), and nothing is stored', async () => {
    const approved = await newProject();
    const dispatched = await newProject('DISPATCHED');
    const big = 20 * 1024 * 1024;
    for (const [who, projectId, status] of [
      [client, approved, 403],
      [stranger, approved, 404],
      [poc, dispatched, 409],
    ] as const) {
      const res = await slowPost(`${svc.url}/api/projects/${projectId}/proofs`, who.client.cookie!, big);
      assert.equal(res.status, status, res.body);
      assert.ok(res.sentWhenAnswered < res.total / 4, `answered after ${res.sentWhenAnswered} of ${res.total} bytes`);
    }
    const over = await slowPost(`${svc.url}/api/projects/${approved}/proofs`, poc.client.cookie!, 2 * 1024 * 1024);
    assert.equal(over.status, 413, over.body);
    assert.ok(over.sentWhenAnswered < over.total / 2, `answered after ${over.sentWhenAnswered} of ${over.total} bytes`);
    assert.deepEqual(storedProofs(svc.dataDir), []);
    const v = await postProof(poc.client, approved, barsPdf(1));
    assert.equal(v.status, 201, v.text);
    assert.equal(v.body.version, 1, 'the refused posts took no number');
  });

  test('a proof over MAX_UPLOAD_BYTES or of a refused type leaves nothing stored and takes no version number', async () => {
    const projectId = await newProject();
    const before = storedProofs(svc.dataDir).length;
    const over = await postProof(poc.client, projectId, Buffer.concat([Buffer.from('%PDF-1.4\n'), Buffer.alloc(256 * 1024)]));
    assert.equal(over.status, 413, over.text);
    assert.equal(storedProofs(svc.dataDir).length, before);
    const v1 = await postProof(poc.client, projectId, barsPdf(1));
    assert.equal(v1.body.version, 1);
  });

  test('simultaneous posts get distinct versions, and exactly one stays pending', async () => {
    const projectId = await newProject();
    const answers = await Promise.all(Array.from({ length: 6 }, () => postProof(poc.client, projectId, barsPdf(1))));
    assert.deepEqual(answers.map((a) => a.status), [201, 201, 201, 201, 201, 201], answers.map((a) => a.text).join('\n'));
    assert.deepEqual(answers.map((a) => a.body.version).sort(), [1, 2, 3, 4, 5, 6]);
    const list = (await poc.client.get(`/api/projects/${projectId}/proofs`)).body.items as { version: number; status: string }[];
    assert.deepEqual(list.map((p) => [p.version, p.status]), [[6, 'pending'], [5, 'superseded'], [4, 'superseded'], [3, 'superseded'], [2, 'superseded'], [1, 'superseded']]);
  });

  test('a link to a type without a preview: pageCount null, its preview refused as a document’s is, its file as an attachment', async () => {
    const projectId = await newProject();
    const posted = await postProof(poc.client, projectId, 'plain words\n', 'text/plain', 'brief.txt');
    assert.equal(posted.status, 201, posted.text);
    const link = await poc.client.post(`/api/projects/${projectId}/proofs/${posted.body.id}/links`, { email: 'bea@customer.example' });
    assert.equal(link.status, 201, link.text);
    const mail = await smtp.nextTo('bea@customer.example', 0);
    const token = /\/proofs\/([0-9A-Za-z]+)/.exec(mail.text)![1]!;
    const view = await svc.anonymous.get(`/api/proof-links/${token}`);
    assert.equal(view.status, 200, view.text);
    assert.equal(view.body.pageCount, null);
    const preview = await svc.anonymous.get(`/api/proof-links/${token}/preview`);
    const own = await poc.client.get(`/api/projects/${projectId}/proofs/${posted.body.id}/preview`);
    assert.deepEqual([preview.status, preview.body], [own.status, own.body]);
    const file = await fetch(`${svc.url}/api/proof-links/${token}/file`);
    assert.equal(file.status, 200);
    assert.match(file.headers.get('content-disposition')!, /^attachment; filename="brief.txt"/);
    assert.equal(await file.text(), 'plain words\n');

    // The token never reaches the logs, however the address is written.
    for (const p of [`/api/proof-links/${token}`, `//api/proof-links/${token}/preview`, `/api/%70roof-links/${token}`, `/API/proof-links/${token}/file`, `/proofs/${token}`, `/api/proof-links/${token}?x=1`])
      await fetch(`${svc.url}${p}`);
    const leaked = logs.text.filter((l) => l.includes(token));
    assert.deepEqual(leaked, []);
    assert.ok(logs.text.some((l) => l.includes('proof-links/[redacted]')), 'request lines are written, redacted');
  });

  test('a link of another project’s proof reaches only its own proof', async () => {
    const a = await newProject();
    const b = await newProject();
    const pa = await postProof(poc.client, a, barsPdf(1));
    await postProof(poc.client, b, barsPdf(2));
    await poc.client.post(`/api/projects/${a}/proofs/${pa.body.id}/links`, { email: 'only-a@customer.example' });
    const token = /\/proofs\/([0-9A-Za-z]+)/.exec((await smtp.nextTo('only-a@customer.example', 0)).text)![1]!;
    for (const p of [`/api/proof-links/${token}/../../projects/${b}/proofs`, `/api/proof-links/${token}/files`, `/api/proof-links/${token}/comments`]) {
      const res = await fetch(`${svc.url}${p}`);
      assert.ok([401, 404].includes(res.status), `${p} → ${res.status}`);
    }
    assert.deepEqual((await svc.anonymous.get(`/api/proof-links/${token.toLowerCase()}`)).body, INVALID_LINK);
  });

  test('webhook data: the project as an ADMIN sees it after the change, and the proof as the API shows it', async () => {
    const projectId = await newProject();
    const seen = receiver.received.length;
    const v1 = await postProof(poc.client, projectId, barsPdf(1));
    await poc.client.post(`/api/projects/${projectId}/proofs/${v1.body.id}/links`, { email: 'hooked@customer.example' });
    const token = /\/proofs\/([0-9A-Za-z]+)/.exec((await smtp.nextTo('hooked@customer.example', 0)).text)![1]!;
    const answered = await svc.anonymous.post(`/api/proof-links/${token}/approve`, { name: 'Hank Hook' });
    assert.equal(answered.status, 200, answered.text);
    const bodies = await eventuallyPasses(() => {
      const mine = receiver.received.slice(seen).map((r) => JSON.parse(r.body)).filter((b) => b.data.project?.id === projectId);
      assert.equal(mine.length, 2);
      return mine.sort((a, b) => a.createdAt.localeCompare(b.createdAt));
    }, 10_000);
    const [list, project] = await Promise.all([admin.client.get(`/api/projects/${projectId}/proofs`), admin.client.get(`/api/projects/${projectId}`)]);
    assert.deepEqual(bodies.map((b) => b.type), ['proof.posted', 'proof.approved']);
    assert.deepEqual(bodies[0].data.project.proof, { id: v1.body.id, version: 1, status: 'pending' });
    assert.deepEqual(bodies[0].data.proof, v1.body);
    assert.deepEqual(bodies[1].data.project.proof, project.body.proof);
    assert.deepEqual(bodies[1].data.proof, list.body.items[0]);
  });
});

describe('approval links: a burst of guesses', () => {
  let svc: TestService;
  before(async () => {
    svc = await startTestService({ env: { LOGIN_MAX_FAILURES_PER_ADDRESS: '3' } });
  });
  after(() => svc?.close());

  test('forty wrong tokens at once, each claiming another X-Forwarded-For: exactly the limit answered 404, the rest 429 with Retry-After', async () => {
    const answers = await Promise.all(
      Array.from({ length: 40 }, (_, i) => fetch(`${svc.url}/api/proof-links/${'Q'.repeat(38)}${String(i).padStart(2, '0')}`, { headers: { 'x-forwarded-for': `10.0.0.${i}` } })),
    );
    assert.equal(answers.filter((r) => r.status === 404).length, 3);
    assert.equal(answers.filter((r) => r.status === 429).length, 37);
    assert.ok(answers.filter((r) => r.status === 429).every((r) => Number(r.headers.get('retry-after')) > 0));
  });
});
