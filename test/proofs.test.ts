/**
 * Proofs (interface.md, additions of 2026-11-27, "Proofs"), over real HTTP on both databases: who
 * may post, see and answer; versions and supersede; every refusal with its exact message; approval
 * links (a deep scan finds nothing else of the project, expiry, spent after the answer, unknown
 * tokens, throttling); printing held then allowed; the emails to exactly the right people; the
 * webhook deliveries, signed; the activity entries; the dashboard's counts and the project's `proof`.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { barsPdf } from './helpers/pdf.js';
import { eventuallyPasses } from './helpers/eventually.js';
import { mailEnv } from './helpers/mail.js';
import { type Client, type TestService, openEventStream, startTestService } from './helpers/service.js';
import { type TestSmtpServer, startSmtpServer } from './helpers/smtp.js';
import { type Receiver, startReceiver, verifiedBy } from './helpers/webhook-receiver.js';
import type { User } from '../src/domain/model.js';

type Someone = { user: User; client: Client };
const NOT_FOUND = { error: 'Project not found' };
const FORBIDDEN = { error: 'Forbidden' };
const INVALID_LINK = { error: 'This proof link is invalid or expired' };
const PROOF_KEYS = ['contentType', 'createdAt', 'filename', 'id', 'note', 'postedById', 'postedByName', 'projectId', 'response', 'sha256', 'size', 'status', 'url', 'version'];

/** POST /api/projects/:id/proofs with the parts in the given order. */
function postProof(client: Client, projectId: string, parts: ({ note: string } | { file: Buffer | string; filename?: string; type?: string })[]) {
  const form = new FormData();
  for (const p of parts) {
    if ('note' in p) form.append('note', p.note);
    else form.append('file', new Blob([typeof p.file === 'string' ? p.file : new Uint8Array(p.file)], { type: p.type ?? 'application/pdf' }), p.filename ?? 'proof.pdf');
  }
  return client.request('POST', `/api/projects/${projectId}/proofs`, { body: form });
}

describe('proofs', () => {
  let smtp: TestSmtpServer;
  let svc: TestService;
  let receiver: Receiver;
  let hook: { id: string; secret: string };
  let admin: Someone;
  let poc: Someone;
  let otherPoc: Someone;
  let client: Someone;
  let client2: Someone;
  let strangerClient: Someone;
  let customerId: string;
  const pdf = barsPdf(2);

  before(async () => {
    smtp = await startSmtpServer();
    receiver = await startReceiver();
    svc = await startTestService({ env: { ...mailEnv(smtp, 0), WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true', WEBHOOK_POLL_MS: '30' } });
    [admin, poc, otherPoc, client, client2, strangerClient] = await Promise.all([
      svc.signIn('ADMIN', { email: 'ann@example.com', name: 'Ann Admin' }),
      svc.signIn('POC', { email: 'pia@example.com', name: 'Pia Poc' }),
      svc.signIn('POC', { email: 'oscar@example.com', name: 'Oscar Other' }),
      svc.signIn('CLIENT', { email: 'cleo@example.com', name: 'Cleo Client' }),
      svc.signIn('CLIENT', { email: 'carl@example.com', name: 'Carl Client' }),
      svc.signIn('CLIENT', { email: 'stan@example.com', name: 'Stan Stranger' }),
    ]);
    const created = await admin.client.post('/api/customers', { name: 'Acme Menus' });
    assert.equal(created.status, 201, created.text);
    customerId = created.body.id;
    for (const who of [client, client2]) assert.equal((await admin.client.patch(`/api/team/${who.user.id}`, { customerId })).status, 200);
    const other = await admin.client.post('/api/customers', { name: 'Other Co' });
    assert.equal((await admin.client.patch(`/api/team/${strangerClient.user.id}`, { customerId: other.body.id })).status, 200);
    const res = await admin.client.post('/api/webhooks', { url: receiver.url, events: ['proof.posted', 'proof.approved', 'proof.changes_requested'] });
    assert.equal(res.status, 201, res.text);
    hook = res.body;
  });
  after(async () => {
    await svc?.close();
    await smtp?.stop();
    await receiver?.close();
  });

  const newProject = async (opts: { status?: 'REQUESTED' | 'APPROVED' | 'PRINTING' | 'DISPATCHED' | 'DELIVERED' | 'CANCELLED'; piStatus?: 'PENDING' | 'VERIFIED' } = {}) =>
    (await svc.createProject(poc.user.id, { customerId, reference: 'PO-77', status: opts.status ?? 'APPROVED', piStatus: opts.piStatus ?? 'VERIFIED' })).id;
  const proofsOf = async (who: Someone, projectId: string) => {
    const res = await who.client.get(`/api/projects/${projectId}/proofs`);
    assert.equal(res.status, 200, res.text);
    return res.body.items as { id: string; version: number; status: string; response: Record<string, unknown> | null }[];
  };
  const posted = async (who: Someone, projectId: string, note?: string) => {
    const res = await postProof(who.client, projectId, [...(note ? [{ note }] : []), { file: pdf }]);
    assert.equal(res.status, 201, res.text);
    return res.body as { id: string; version: number; status: string };
  };
  const sendLink = async (projectId: string, proofId: string, email = 'buyer@customer.example') => {
    const seen = smtp.to(email).length;
    const res = await poc.client.post(`/api/projects/${projectId}/proofs/${proofId}/links`, { email, name: 'Bea Buyer' });
    assert.equal(res.status, 201, res.text);
    const mail = await smtp.nextTo(email, seen);
    const token = /\/proofs\/([0-9A-Za-z]+)/.exec(mail.text)?.[1];
    assert.ok(token && token.length >= 32, `a token of at least 32 base62 characters in: ${mail.text}`);
    return { token: token!, mail, answer: res.body };
  };

  describe('posting and seeing', () => {
    test('the owner posts v1 with a note: 201 as the interface shapes it, stored like a document; every viewer lists it; the project carries it', async () => {
      const projectId = await newProject();
      const res = await postProof(poc.client, projectId, [{ file: pdf, filename: 'menu v1.pdf' }, { note: '  First layout  ' }]);
      assert.equal(res.status, 201, res.text);
      assert.deepEqual(Object.keys(res.body).sort(), PROOF_KEYS);
      assert.equal(res.body.version, 1);
      assert.equal(res.body.status, 'pending');
      assert.equal(res.body.note, 'First layout', 'the note after the file is read');
      assert.equal(res.body.filename, 'menu v1.pdf');
      assert.equal(res.body.size, pdf.length);
      assert.match(res.body.sha256, /^[0-9a-f]{64}$/);
      assert.equal(res.body.postedByName, 'Pia Poc');
      assert.equal(res.body.response, null);
      assert.match(res.body.url, new RegExp(`print-orders/${projectId}/proof/proof_\\d+\\.pdf$`));
      for (const who of [admin, poc, client, client2]) assert.deepEqual((await proofsOf(who, projectId)).map((p) => p.id), [res.body.id]);
      for (const who of [otherPoc, strangerClient]) assert.deepEqual((await who.client.get(`/api/projects/${projectId}/proofs`)).body, NOT_FOUND);
      const project = await client.client.get(`/api/projects/${projectId}`);
      assert.deepEqual((project.body.project ?? project.body).proof, { id: res.body.id, version: 1, status: 'pending' });
      const listed = await poc.client.get('/api/projects?limit=200');
      assert.deepEqual(listed.body.items.find((p: { id: string }) => p.id === projectId).proof, { id: res.body.id, version: 1, status: 'pending' });
      const preview = await client.client.get(`/api/projects/${projectId}/proofs/${res.body.id}/preview?width=200`);
      assert.equal(preview.status, 200, preview.text);
      assert.equal(preview.headers.get('content-type'), 'image/webp');
      assert.equal(preview.headers.get('x-page-count'), '2');
      assert.equal((await otherPoc.client.get(`/api/projects/${projectId}/proofs/${res.body.id}/preview`)).status, 404);
    });

    test('who may post: ADMIN and the owner; anyone else who may see 403, who may not 404; no session 401; nothing stored', async () => {
      const projectId = await newProject();
      assert.deepEqual((await postProof(client.client, projectId, [{ file: pdf }])).body, FORBIDDEN);
      assert.deepEqual((await postProof(otherPoc.client, projectId, [{ file: pdf }])).body, NOT_FOUND);
      assert.deepEqual((await postProof(strangerClient.client, projectId, [{ file: pdf }])).body, NOT_FOUND);
      assert.equal((await postProof(svc.anonymous, projectId, [{ file: pdf }])).status, 401);
      assert.deepEqual(await proofsOf(admin, projectId), []);
      assert.equal((await postProof(admin.client, projectId, [{ file: pdf }])).status, 201);
    });

    test('refusals: no file 400, a dispatched, delivered or cancelled project 409, a long note 400; a refused post takes no version number', async () => {
      const projectId = await newProject();
      assert.deepEqual((await postProof(poc.client, projectId, [{ note: 'only a note' }])).body, { error: 'file is required' });
      assert.deepEqual((await postProof(poc.client, projectId, [{ file: '', filename: 'empty.pdf' }])).body, { error: 'file is required' });
      const notForm = await poc.client.post(`/api/projects/${projectId}/proofs`, { file: 'x' });
      assert.deepEqual([notForm.status, notForm.body], [400, { error: 'file is required' }]);
      const long = await postProof(poc.client, projectId, [{ note: 'x'.repeat(2001) }, { file: pdf }]);
      assert.deepEqual([long.status, long.body], [400, { error: 'Note must be at most 2000 characters' }]);
      assert.equal((await posted(poc, projectId)).version, 1, 'the refused posts took no number');
      for (const status of ['DISPATCHED', 'DELIVERED', 'CANCELLED'] as const) {
        const closed = await newProject({ status });
        const res = await postProof(admin.client, closed, [{ file: pdf }]);
        assert.deepEqual([res.status, res.body], [409, { error: 'Proofs can be posted only before dispatch' }], status);
      }
      const keys = await svc.deps.database.db.selectFrom('storage_names').select('key').where('key', 'like', `print-orders/${projectId}/proof/%`).execute();
      assert.equal(keys.length, 1, 'the refused posts left no stored name');
    });

    test('versions: a new one supersedes a pending one; an answered one keeps its answer', async () => {
      const projectId = await newProject();
      const v1 = await posted(poc, projectId);
      const v2 = await posted(poc, projectId);
      assert.equal(v2.version, 2);
      const changes = await client.client.post(`/api/projects/${projectId}/proofs/${v2.id}/request-changes`, { note: 'Bigger logo' });
      assert.equal(changes.status, 200, changes.text);
      const v3 = await posted(admin, projectId);
      assert.deepEqual(
        (await proofsOf(client, projectId)).map((p) => [p.version, p.status]),
        [
          [3, 'pending'],
          [2, 'changes-requested'],
          [1, 'superseded'],
        ],
      );
      const all = await proofsOf(admin, projectId);
      assert.equal(all[1]!.response!.note, 'Bigger logo');
      assert.equal(all[0]!.id, v3.id);
      assert.notEqual(v1.id, v3.id);
    });
  });

  describe('answers', () => {
    test('a CLIENT of the customer approves; the owner or an ADMIN records a phone answer; anyone else 403/404; notes checked', async () => {
      const projectId = await newProject();
      const v1 = await posted(poc, projectId);
      const approve = (who: Someone, json: unknown = {}) => who.client.post(`/api/projects/${projectId}/proofs/${v1.id}/approve`, json);
      assert.deepEqual((await approve(otherPoc)).body, NOT_FOUND);
      assert.deepEqual((await approve(strangerClient)).body, NOT_FOUND);
      const noNote = await client.client.post(`/api/projects/${projectId}/proofs/${v1.id}/request-changes`, {});
      assert.deepEqual([noNote.status, noNote.body], [400, { error: 'Note is required' }]);
      const blank = await client.client.post(`/api/projects/${projectId}/proofs/${v1.id}/request-changes`, { note: '   ' });
      assert.deepEqual([blank.status, blank.body], [400, { error: 'Note is required' }]);
      assert.equal((await approve(client, { note: 'ok', extra: 1 })).status, 400, 'unknown fields refused');
      assert.equal((await client.client.post(`/api/projects/${projectId}/proofs/nope/approve`, {})).status, 404);
      const res = await approve(client, { note: 'Looks good' });
      assert.equal(res.status, 200, res.text);
      assert.equal(res.body.status, 'approved');
      assert.deepEqual({ ...res.body.response, at: undefined }, { decision: 'approved', note: 'Looks good', byId: client.user.id, byName: 'Cleo Client', via: 'account', at: undefined });
      const again = await approve(client2);
      assert.deepEqual([again.status, again.body], [409, { error: 'This proof was already answered' }]);

      const v2 = await posted(poc, projectId);
      const older = await client.client.post(`/api/projects/${projectId}/proofs/${v1.id}/request-changes`, { note: 'x' });
      assert.deepEqual([older.status, older.body], [409, { error: 'A newer proof replaces this one' }]);
      const byPhone = await poc.client.post(`/api/projects/${projectId}/proofs/${v2.id}/request-changes`, { note: 'Called: red, not blue' });
      assert.equal(byPhone.status, 200, byPhone.text);
      assert.deepEqual([byPhone.body.response.byId, byPhone.body.response.byName, byPhone.body.response.via], [poc.user.id, 'Pia Poc', 'account']);
      const v3 = await posted(poc, projectId);
      const byAdmin = await admin.client.post(`/api/projects/${projectId}/proofs/${v3.id}/approve`, {});
      assert.equal(byAdmin.status, 200, byAdmin.text);
      assert.equal(byAdmin.body.response.note, null);

      const entries = (await admin.client.get(`/api/activity?entityType=project&entityId=${projectId}&limit=50`)).body.items as { action: string; userId: string | null; details: Record<string, unknown> }[];
      const approved = entries.find((e) => e.action === 'PROOF_APPROVED' && e.userId === client.user.id)!;
      assert.deepEqual(approved.details, { proofId: v1.id, version: 1, via: 'account', byName: 'Cleo Client', note: 'Looks good' });
      const postedEntry = entries.find((e) => e.action === 'PROOF_POSTED' && e.details.version === 1)!;
      assert.deepEqual(postedEntry.details, { proofId: v1.id, version: 1, filename: 'proof.pdf' });
      assert.ok(entries.some((e) => e.action === 'PROOF_CHANGES_REQUESTED' && e.userId === poc.user.id));
    });

    test('printing waits for the latest proof’s approval, after the action’s other rules; a project without proofs is not held', async () => {
      const free = await newProject();
      assert.equal((await admin.client.post(`/api/projects/${free}/start-printing`, {})).status, 200);
      const projectId = await newProject();
      const v1 = await posted(poc, projectId);
      assert.deepEqual((await client.client.post(`/api/projects/${projectId}/start-printing`, {})).body, FORBIDDEN, 'who may act is decided first');
      const held = await admin.client.post(`/api/projects/${projectId}/start-printing`, {});
      assert.deepEqual([held.status, held.body], [409, { error: "Printing waits for the customer's approval of proof v1" }]);
      await client.client.post(`/api/projects/${projectId}/proofs/${v1.id}/request-changes`, { note: 'No' });
      assert.deepEqual((await admin.client.post(`/api/projects/${projectId}/start-printing`, {})).body, { error: "Printing waits for the customer's approval of proof v1" });
      const v2 = await posted(poc, projectId);
      assert.deepEqual((await admin.client.post(`/api/projects/${projectId}/start-printing`, {})).body, { error: "Printing waits for the customer's approval of proof v2" });
      assert.equal((await client.client.post(`/api/projects/${projectId}/proofs/${v2.id}/approve`, {})).status, 200);
      const started = await admin.client.post(`/api/projects/${projectId}/start-printing`, {});
      assert.equal(started.status, 200, started.text);
      assert.equal(started.body.status, 'PRINTING');
    });

    test('emails: a posted proof to the customer’s CLIENT users only; an answer to the owner and the ADMINs only', async () => {
      const name = `Emails ${Math.random().toString(36).slice(2, 8)}`;
      const projectId = (await svc.createProject(poc.user.id, { name, customerId, status: 'APPROVED', piStatus: 'VERIFIED' })).id;
      const about = () => smtp.received.filter((m) => m.text.includes(name));
      const v1 = await posted(poc, projectId);
      await eventuallyPasses(() => assert.equal(about().length, 2));
      assert.deepEqual(about().map((m) => m.rcptTo[0]).sort(), [client.user.email, client2.user.email].map((e) => e.toLowerCase()).sort());
      assert.match(about()[0]!.text, /Proof v1 posted by Pia Poc/);
      await client.client.post(`/api/projects/${projectId}/proofs/${v1.id}/approve`, { note: 'Yes' });
      await eventuallyPasses(() => assert.equal(about().length, 4));
      const answers = about().slice(2);
      assert.deepEqual(answers.map((m) => m.rcptTo[0]).sort(), [admin.user.email, poc.user.email].map((e) => e.toLowerCase()).sort());
      for (const m of answers) assert.match(m.text, /Proof v1 approved by Cleo Client\. Note: Yes/);
      await new Promise((r) => setTimeout(r, 300));
      assert.equal(about().length, 4, 'nobody else');
    });

    test('webhooks: proof.posted, proof.approved and proof.changes_requested, signed, carrying the project and the proof', async () => {
      const projectId = await newProject();
      const seen = receiver.received.length;
      const v1 = await posted(poc, projectId);
      await client.client.post(`/api/projects/${projectId}/proofs/${v1.id}/request-changes`, { note: 'Smaller' });
      const v2 = await posted(poc, projectId);
      await client.client.post(`/api/projects/${projectId}/proofs/${v2.id}/approve`, {});
      const got = await eventuallyPasses(() => {
        const mine = receiver.received.slice(seen).filter((r) => JSON.parse(r.body).data.project?.id === projectId);
        assert.equal(mine.length, 4);
        return mine;
      }, 10_000);
      for (const r of got) assert.deepEqual(verifiedBy([hook.secret], r), [hook.secret]);
      const bodies = got.map((r) => JSON.parse(r.body)).sort((a, b) => a.createdAt.localeCompare(b.createdAt));
      assert.deepEqual(bodies.map((b) => b.type), ['proof.posted', 'proof.changes_requested', 'proof.posted', 'proof.approved']);
      assert.equal(bodies[1].data.proof.id, v1.id);
      assert.equal(bodies[1].data.proof.response.note, 'Smaller');
      assert.equal(bodies[3].data.project.id, projectId);
    });

    test('realtime: a post and an answer (through a link too) reach the streams of who may see the project, and no other', async () => {
      const projectId = await newProject();
      const [clientStream, strangerStream] = await Promise.all([openEventStream(client.client), openEventStream(otherPoc.client)]);
      try {
        const v1 = await posted(poc, projectId);
        const { token } = await sendLink(projectId, v1.id);
        assert.equal((await svc.anonymous.post(`/api/proof-links/${token}/approve`, { name: 'Bea' })).status, 200);
        const events = await clientStream.next(4);
        assert.deepEqual(
          events.map((e) => [e.event, e.data.payload?.id ?? null]),
          [
            ['project-updated', projectId],
            ['stats-updated', null],
            ['project-updated', projectId],
            ['stats-updated', null],
          ],
        );
        // The other POC's stream stays silent about it: what it carries within 300 ms is not this project.
        await strangerStream.idWithin(300);
        await assert.rejects(strangerStream.next(1, 200));
      } finally {
        clientStream.close();
        strangerStream.close();
      }
    });

    test('the dashboard counts open projects whose latest proof waits, or came back, scoped like the rest', async () => {
      const stats = async (who: Someone) => (await who.client.get('/api/dashboard/stats')).body.proofs as { awaitingCustomer: number; changesRequested: number };
      const [a0, o0, s0] = [await stats(admin), await stats(otherPoc), await stats(strangerClient)];
      const waiting = await newProject();
      await posted(poc, waiting);
      const back = await newProject();
      const b1 = await posted(poc, back);
      await client.client.post(`/api/projects/${back}/proofs/${b1.id}/request-changes`, { note: 'No' });
      const a1 = await stats(admin);
      assert.deepEqual([a1.awaitingCustomer - a0.awaitingCustomer, a1.changesRequested - a0.changesRequested], [1, 1]);
      assert.deepEqual(await stats(otherPoc), o0);
      assert.deepEqual(await stats(strangerClient), s0);
      const c = await stats(client);
      assert.ok(c.awaitingCustomer >= 1 && c.changesRequested >= 1);
    });
  });

  describe('approval links', () => {
    test('sending: ADMIN or owner; anyone else 403/404; a proof not pending 409; the email goes at once with a ≥32-character token, only its hash stored', async () => {
      const projectId = await newProject();
      const v1 = await posted(poc, projectId);
      const path = `/api/projects/${projectId}/proofs/${v1.id}/links`;
      assert.deepEqual((await client.client.post(path, { email: 'x@example.com' })).body, FORBIDDEN);
      assert.deepEqual((await otherPoc.client.post(path, { email: 'x@example.com' })).body, NOT_FOUND);
      assert.equal((await poc.client.post(path, { email: 'not an address' })).status, 400);
      assert.equal((await poc.client.post(path, { email: 'x@example.com', extra: 1 })).status, 400);
      const { token, answer, mail } = await sendLink(projectId, v1.id);
      assert.deepEqual(Object.keys(answer).sort(), ['email', 'expiresAt', 'id']);
      assert.ok(Math.abs(Date.parse(answer.expiresAt) - Date.now() - 14 * 86_400_000) < 60_000, 'valid 14 days');
      assert.match(mail.text, new RegExp(`${svc.deps.config.publicUrl}/proofs/${token}`));
      const rows = await svc.deps.database.db.selectFrom('proof_links').selectAll().execute();
      assert.ok(!JSON.stringify(rows).includes(token), 'the token itself is stored nowhere');
      await client.client.post(`/api/projects/${projectId}/proofs/${v1.id}/approve`, {});
      const late = await poc.client.post(path, { email: 'x@example.com' });
      assert.deepEqual([late.status, late.body], [409, { error: 'Only a pending proof can be sent' }]);
    });

    test('what a link answers: its proof and the project’s name, reference and customer, nothing else (deep scan); preview and file work', async () => {
      const projectId = await newProject();
      await admin.client.post(`/api/projects/${projectId}/comments`, { body: 'SECRET-COMMENT-TEXT' });
      await admin.client.post(`/api/projects/${projectId}/submit-pi`, { number: 'PI-SECRET', amount: 987654 });
      const v1 = await posted(poc, projectId, 'Please check the fold');
      const { token } = await sendLink(projectId, v1.id);
      const view = await svc.anonymous.get(`/api/proof-links/${token}`);
      assert.equal(view.status, 200, view.text);
      assert.deepEqual(view.body, {
        project: { name: view.body.project.name, reference: 'PO-77', customerName: 'Acme Menus' },
        proof: { version: 1, filename: 'proof.pdf', contentType: 'application/pdf', size: pdf.length, note: 'Please check the fold', status: 'pending', createdAt: view.body.proof.createdAt },
        pageCount: 2,
      });
      const preview = await svc.anonymous.get(`/api/proof-links/${token}/preview?page=2&width=100`);
      assert.equal(preview.status, 200);
      assert.equal(preview.headers.get('content-type'), 'image/webp');
      const file = await fetch(`${svc.url}/api/proof-links/${token}/file`);
      assert.equal(file.status, 200);
      assert.match(file.headers.get('content-disposition')!, /^attachment/);
      assert.deepEqual(Buffer.from(await file.arrayBuffer()), pdf);
      const answered = await svc.anonymous.post(`/api/proof-links/${token}/request-changes`, { name: 'Bea Buyer', note: 'Fold on the left' });
      assert.equal(answered.status, 200, answered.text);
      // Deep scan of every JSON a link answered: no price, document, comment, person or id.
      const seen = JSON.stringify([view.body, answered.body]);
      for (const secret of ['PI-SECRET', '987654', 'SECRET-COMMENT-TEXT', poc.user.id, poc.user.email, 'Pia Poc', admin.user.id, projectId, v1.id, 'sha256', 'url', 'pocId', 'amount', 'files', 'comments', 'buyer@customer.example'])
        assert.ok(!seen.includes(secret), `a link answered ${secret}`);
      assert.deepEqual(Object.keys(answered.body).sort(), ['contentType', 'createdAt', 'filename', 'note', 'size', 'status', 'version']);
      assert.equal(answered.body.status, 'changes-requested');
      const [stored] = await proofsOf(admin, projectId);
      assert.deepEqual({ ...stored!.response, at: undefined }, { decision: 'changes-requested', note: 'Fold on the left', byId: null, byName: 'Bea Buyer', via: 'link', at: undefined });
      const entries = (await admin.client.get(`/api/activity?entityType=project&entityId=${projectId}&limit=50`)).body.items as { action: string; userId: string | null; details: Record<string, unknown> }[];
      const entry = entries.find((e) => e.action === 'PROOF_CHANGES_REQUESTED')!;
      assert.equal(entry.userId, null);
      assert.deepEqual(entry.details, { proofId: v1.id, version: 1, via: 'link', byName: 'Bea Buyer', note: 'Fold on the left', email: 'buyer@customer.example' });
      // Spent: every link endpoint answers the invalid link now.
      for (const res of [
        await svc.anonymous.get(`/api/proof-links/${token}`),
        await svc.anonymous.get(`/api/proof-links/${token}/preview`),
        await svc.anonymous.get(`/api/proof-links/${token}/file`),
        await svc.anonymous.post(`/api/proof-links/${token}/approve`, { name: 'Bea' }),
      ])
        assert.deepEqual([res.status, res.body], [404, INVALID_LINK]);
    });

    test('a link: name required (400 naming it), a new version spends it, expiry ends it, unknown tokens 404', async () => {
      const projectId = await newProject();
      const v1 = await posted(poc, projectId);
      const { token } = await sendLink(projectId, v1.id);
      const noName = await svc.anonymous.post(`/api/proof-links/${token}/approve`, {});
      assert.deepEqual([noName.status, noName.body], [400, { error: 'Name is required' }]);
      const blank = await svc.anonymous.post(`/api/proof-links/${token}/approve`, { name: '  ' });
      assert.deepEqual([blank.status, blank.body], [400, { error: 'Name is required' }]);
      const noNote = await svc.anonymous.post(`/api/proof-links/${token}/request-changes`, { name: 'Bea' });
      assert.deepEqual([noNote.status, noNote.body], [400, { error: 'Note is required' }]);
      await posted(poc, projectId);
      assert.deepEqual((await svc.anonymous.get(`/api/proof-links/${token}`)).body, INVALID_LINK, 'superseded: spent');

      const fresh = await newProject();
      const f1 = await posted(poc, fresh);
      const link = await sendLink(fresh, f1.id);
      assert.equal((await svc.anonymous.get(`/api/proof-links/${link.token}`)).status, 200);
      await svc.deps.database.db.updateTable('proof_links').set({ expires_at: new Date(Date.now() - 1000).toISOString() }).where('id', '=', link.answer.id).execute();
      assert.deepEqual((await svc.anonymous.get(`/api/proof-links/${link.token}`)).body, INVALID_LINK, 'expired');
      for (const unknown of ['x', 'A'.repeat(40), `${link.token}0`]) assert.deepEqual((await svc.anonymous.get(`/api/proof-links/${unknown}`)).body, INVALID_LINK);
      // Answered through a link, approval lets printing start.
      const other = await newProject();
      const o1 = await posted(poc, other);
      const l = await sendLink(other, o1.id);
      const ok = await svc.anonymous.post(`/api/proof-links/${l.token}/approve`, { name: 'Bea Buyer' });
      assert.equal(ok.status, 200, ok.text);
      assert.equal((await admin.client.post(`/api/projects/${other}/start-printing`, {})).status, 200);
    });
  });
});

describe('approval links: throttling', () => {
  let svc: TestService;
  before(async () => {
    svc = await startTestService({ env: { LOGIN_MAX_FAILURES_PER_ADDRESS: '3', MAIL_BATCH_SECONDS: '0' } });
  });
  after(() => svc?.close());

  test('wrong tokens count as failed sign-ins of the address: past the limit, link endpoints (and sign-ins) answer 429 with Retry-After', async () => {
    for (let i = 0; i < 3; i++) assert.deepEqual((await svc.anonymous.get(`/api/proof-links/${'Z'.repeat(40)}${i}`)).body, INVALID_LINK);
    const refused = await svc.anonymous.get(`/api/proof-links/${'Z'.repeat(41)}`);
    assert.equal(refused.status, 429, refused.text);
    assert.ok(Number(refused.headers.get('retry-after')) > 0);
    const post = await svc.anonymous.post(`/api/proof-links/${'Z'.repeat(41)}/approve`, { name: 'x' });
    assert.equal(post.status, 429);
    const login = await svc.anonymous.post('/api/auth/login', { email: 'nobody@example.com', password: 'whatever-long' });
    assert.equal(login.status, 429, 'the same counter as sign-ins');
  });
});

describe('proofs with DOCUMENT_ACCESS=private', () => {
  let svc: TestService;
  before(async () => {
    svc = await startTestService({ env: { DOCUMENT_ACCESS: 'private' } });
  });
  after(() => svc?.close());

  test('a proof’s url is ours and answers only who may see the project now', async () => {
    const [poc, otherPoc] = await Promise.all([svc.signIn('POC'), svc.signIn('POC')]);
    const projectId = (await svc.createProject(poc.user.id, { status: 'APPROVED', piStatus: 'VERIFIED' })).id;
    const bytes = barsPdf(1);
    const res = await postProof(poc.client, projectId, [{ file: bytes }]);
    assert.equal(res.status, 201, res.text);
    const url = new URL(res.body.url);
    assert.equal(url.origin, svc.url);
    assert.match(url.pathname, /^\/files\/print-orders\/.+\/proof\/proof_\d+\.pdf$/);
    const own = await fetch(url, { headers: { cookie: poc.client.cookie! } });
    assert.equal(own.status, 200);
    assert.deepEqual(Buffer.from(await own.arrayBuffer()), bytes);
    assert.equal((await fetch(url, { headers: { cookie: otherPoc.client.cookie! } })).status, 404);
    assert.equal((await fetch(url)).status, 401);
  });
});
