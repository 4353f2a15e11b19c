/**
 * Issue 12, email: the right people get each change (and nobody else) through a real SMTP server
 * started here (test/helpers/smtp.ts); bursts become one email per recipient and project; nothing
 * is lost while SMTP is down; two instances on one database send each email once; without SMTP_URL
 * the emails are .eml files under DATA_DIR/mail.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { simpleParser } from 'mailparser';
import { PI_FIGURES } from './helpers/projects.js';
import { eventuallyPasses } from './helpers/eventually.js';
import { captureLogs } from './helpers/logs.js';
import { mailEnv, outbox, sendNow, settled, startMailService } from './helpers/mail.js';
import { type TestService, startTestService } from './helpers/service.js';
import { type TestSmtpServer, startSmtpServer } from './helpers/smtp.js';

/** "recipient: subject" of each email received since `from`, sorted. */
const summary = (smtp: TestSmtpServer, from = 0) =>
  smtp.received
    .slice(from)
    // Subjects name the job number (#12) before the name: left out here, where what matters is who got what.
    .map((m) => `${m.rcptTo.join(',')}: ${m.subject.replace(/#\d+ /, '')}`)
    .sort();

describe('email: who gets what (MAIL_BATCH_SECONDS=0)', () => {
  let smtp: TestSmtpServer;
  let svc: TestService;
  let close: () => Promise<void>;
  before(async () => ({ smtp, svc, close } = await startMailService(0)));
  after(() => close?.());

  test('each change reaches exactly its audience: never the actor, never an inactive user, never another POC', async () => {
    const a1 = await svc.signIn('ADMIN', { email: 'a1@example.com', name: 'Ann Admin' });
    await svc.createUser({ role: 'ADMIN', email: 'a2@example.com', name: 'Abe Admin' });
    await svc.createUser({ role: 'ADMIN', email: 'a3@example.com', active: false });
    const p = await svc.signIn('POC', { email: 'poc@example.com', name: 'Pia Poc' });
    await svc.createUser({ role: 'POC', email: 'other@example.com' });

    /** Runs a step and checks the emails it caused, exactly. */
    const expectEmails = async (step: () => Promise<{ status: number; text: string }>, status: number, expected: string[]) => {
      const from = smtp.received.length;
      const res = await step();
      assert.equal(res.status, status, res.text);
      await settled(svc);
      assert.deepEqual(summary(smtp, from), expected.sort());
    };

    let projectId = '';
    await expectEmails(
      async () => {
        const res = await p.client.post('/api/projects', { name: 'Spring catalogue' });
        projectId = res.body.id;
        return res;
      },
      201,
      ['a1@example.com: New project: Spring catalogue', 'a2@example.com: New project: Spring catalogue'],
    );
    const act = (who: typeof p, action: string, body: unknown = {}) => () => who.client.post(`/api/projects/${projectId}/${action}`, body);
    // Refused changes send nothing.
    await expectEmails(act(p, 'approve'), 403, []);
    await expectEmails(act(a1, 'dispatch'), 409, []);
    await expectEmails(act(a1, 'approve'), 200, ['poc@example.com: Approved: Spring catalogue']);
    await expectEmails(act(p, 'submit-pi', PI_FIGURES), 200, ['a1@example.com: PI submitted: Spring catalogue', 'a2@example.com: PI submitted: Spring catalogue']);
    await expectEmails(act(a1, 'reject-pi'), 200, ['poc@example.com: PI rejected: Spring catalogue']);
    await expectEmails(act(p, 'submit-pi', PI_FIGURES), 200, ['a1@example.com: PI submitted: Spring catalogue', 'a2@example.com: PI submitted: Spring catalogue']);
    await expectEmails(act(a1, 'verify-pi'), 200, ['poc@example.com: PI verified: Spring catalogue']);
    await expectEmails(
      () => p.client.upload([['projectId', projectId], ['fileType', 'PO'], ['file', { data: '%PDF-1.4 po', filename: 'po.pdf', type: 'application/pdf' }]]),
      201,
      ['a1@example.com: PO uploaded: Spring catalogue', 'a2@example.com: PO uploaded: Spring catalogue'],
    );
    await expectEmails(act(a1, 'start-printing'), 200, ['poc@example.com: Printing started: Spring catalogue']);
    await expectEmails(act(a1, 'dispatch'), 200, ['poc@example.com: Dispatched: Spring catalogue']);
    await expectEmails(
      () => a1.client.upload([['projectId', projectId], ['fileType', 'INVOICE'], ['file', { data: '%PDF-1.4 inv', filename: 'invoice.pdf', type: 'application/pdf' }]]),
      201,
      ['poc@example.com: Invoice uploaded: Spring catalogue'],
    );
    // The POC confirms delivery: they made the change, and the admins are not told of deliveries.
    await expectEmails(act(p, 'deliver'), 200, []);

    // Rejection carries the note; the POC's cancellation reaches the admins, an admin's reaches the POC.
    const second = await svc.createProject(p.user.id, { name: 'Flyers' });
    await expectEmails(() => a1.client.post(`/api/projects/${second.id}/reject`, { note: 'Bleed is missing' }), 200, ['poc@example.com: Rejected: Flyers']);
    const rejected = smtp.to('poc@example.com').at(-1)!;
    assert.match(rejected.text, /Rejected by Ann Admin\. Note: Bleed is missing/);
    assert.match(rejected.text, new RegExp(`Open the project: ${svc.url.replace(/[.]/g, '\\.')}/projects/${second.id}`));
    assert.match(rejected.html, new RegExp(`href="${svc.url}/projects/${second.id}"`));
    assert.equal(rejected.from, '"Print shop" <orders@shop.example>');
    assert.equal(rejected.to, '"Pia Poc" <poc@example.com>');
    await expectEmails(() => p.client.post(`/api/projects/${second.id}/cancel`, {}), 200, ['a1@example.com: Cancelled: Flyers', 'a2@example.com: Cancelled: Flyers']);
    const third = await svc.createProject(p.user.id, { name: 'Posters' });
    await expectEmails(() => a1.client.post(`/api/projects/${third.id}/cancel`, {}), 200, ['poc@example.com: Cancelled: Posters']);

    // An admin's correction through PATCH is not one of the listed events.
    await expectEmails(() => a1.client.patch(`/api/projects/${third.id}`, { name: 'Posters A2' }), 200, []);
    assert.deepEqual(await outbox(svc), { sent: smtp.received.length });
  });
});

describe('email: bursts and outages', () => {
  let smtp: TestSmtpServer;
  after(async () => smtp?.stop());
  before(async () => {
    smtp = await startSmtpServer();
  });

  test('changes within MAIL_BATCH_SECONDS reach each recipient as one email per project, listing them', async () => {
    const svc = await startTestService({ env: mailEnv(smtp, 2) });
    try {
      const admin = await svc.signIn('ADMIN', { email: 'burst-admin@example.com' });
      const poc = await svc.createUser({ role: 'POC', email: 'burst-poc@example.com' });
      const one = await svc.createProject(poc.user.id, { name: 'Menus', status: 'APPROVED', piStatus: 'SUBMITTED' });
      const two = await svc.createProject(poc.user.id, { name: 'Cards', status: 'REQUESTED' });
      const from = smtp.received.length;
      for (const action of ['verify-pi', 'start-printing', 'dispatch']) assert.equal((await admin.client.post(`/api/projects/${one.id}/${action}`, {})).status, 200);
      assert.equal((await admin.client.post(`/api/projects/${two.id}/approve`, {})).status, 200);
      assert.equal(await outbox(svc).then((b) => b.pending), 2, 'one email per recipient and project waits out the window');
      await settled(svc);
      assert.deepEqual(summary(smtp, from), ['burst-poc@example.com: 3 updates: Menus', 'burst-poc@example.com: Approved: Cards']);
      const menus = smtp.received.slice(from).find((m) => m.subject.includes('Menus'))!;
      assert.match(menus.text, /- PI verified by .*\n- Printing started .*\n- Dispatched /);
    } finally {
      await svc.close();
    }
  });

  test('uploads at the same moment all join the one email (no event lost between them)', async () => {
    const svc = await startTestService({ env: mailEnv(smtp, 2) });
    try {
      const admin = await svc.signIn('ADMIN', { email: 'race-admin@example.com' });
      const poc = await svc.createUser({ role: 'POC', email: 'race-poc@example.com' });
      const project = await svc.createProject(poc.user.id, { name: 'Race', status: 'APPROVED', piStatus: 'VERIFIED' });
      const answers = await Promise.all(
        Array.from({ length: 6 }, (_, i) => admin.client.upload([['projectId', project.id], ['fileType', 'PO'], ['file', { data: `%PDF-1.4 ${i}`, filename: `po-${i}.pdf`, type: 'application/pdf' }]])),
      );
      assert.deepEqual(answers.map((a) => a.status), [201, 201, 201, 201, 201, 201]);
      await settled(svc);
      const mails = smtp.to('race-poc@example.com');
      assert.equal(mails.length, 1, mails.map((m) => m.subject).join('; '));
      assert.equal(mails[0]!.subject, `6 updates: #${project.number} Race`);
      for (let i = 0; i < 6; i++) assert.match(mails[0]!.text, new RegExp(`PO uploaded by .*: po-${i}\\.pdf`));
    } finally {
      await svc.close();
    }
  });

  test('SMTP down when the change happens: the change stands, the email waits and is delivered once SMTP is back, once', async () => {
    const svc = await startTestService({ env: mailEnv(smtp) });
    try {
      const admin = await svc.createUser({ role: 'ADMIN', email: 'outage-admin@example.com' });
      const poc = await svc.signIn('POC', { email: 'outage-poc@example.com' });
      await smtp.stop();
      const res = await poc.client.post('/api/projects', { name: 'During the outage' });
      assert.equal(res.status, 201);
      // Tried and failed at least twice while SMTP was away; still pending.
      const row = await eventuallyPasses(async () => {
        const r = await svc.deps.database.db.selectFrom('outbox').selectAll().where('recipient_id', '=', admin.user.id).executeTakeFirstOrThrow();
        assert.ok(r.attempts >= 2, 'the dispatcher did not retry');
        return r;
      }, 10_000);
      assert.equal(row.status, 'pending');
      assert.match(row.last_error ?? '', /ECONNREFUSED|connect/i);
      assert.equal(smtp.to('outage-admin@example.com').length, 0);
      await smtp.start();
      await settled(svc);
      await new Promise((r) => setTimeout(r, 300)); // a few more dispatcher rounds: nothing is sent twice
      assert.deepEqual(summary(smtp).filter((s) => s.startsWith('outage-')), ['outage-admin@example.com: New project: During the outage']);
    } finally {
      await svc.close();
    }
  });

  test('a standing backlog is logged; after MAIL_MAX_ATTEMPTS an email is given up, kept as failed and logged', async () => {
    const log = captureLogs('info');
    const svc = await startTestService({
      env: { ...mailEnv(smtp), MAIL_BACKLOG_WARN_SECONDS: '1', MAIL_MAX_ATTEMPTS: '3', MAIL_RETRY_BASE_MS: '800', MAIL_RETRY_MAX_MS: '800' },
      logger: log.logger,
    });
    await smtp.stop();
    try {
      await svc.createUser({ role: 'ADMIN', email: 'backlog-admin@example.com' });
      const poc = await svc.signIn('POC');
      assert.equal((await poc.client.post('/api/projects', { name: 'Never delivered' })).status, 201);
      await eventuallyPasses(async () => {
        const by = await outbox(svc);
        assert.ok(by.failed, `not given up: ${JSON.stringify(by)}`);
      }, 15_000);
      assert.deepEqual(await outbox(svc), { failed: 1 });
      const messages = log.lines.map((l) => l.msg);
      assert.equal(messages.filter((m) => m === 'email not sent; it will be retried').length, 2);
      assert.ok(messages.some((m) => /^mail backlog: 1 email\(s\) waiting, the oldest due since /.test(m)), messages.join('\n'));
      assert.equal(log.lines.find((l) => l.msg === 'email given up after its last attempt')?.level, 50);
    } finally {
      await smtp.start();
      await svc.close();
    }
  });

  test('emails wait in the database across a restart', async () => {
    const first = await startTestService({ env: mailEnv(smtp, 3600) });
    const database = first.deps.config.database;
    const admin = await first.createUser({ role: 'ADMIN', email: 'restart-admin@example.com' });
    const poc = await first.signIn('POC', { email: 'restart-poc@example.com' });
    assert.equal((await poc.client.post('/api/projects', { name: 'Across a restart' })).status, 201);
    await first.running.close(); // stops the service; its database stays (cleanup below drops it)
    // Due now: as if the window had passed while the service was down.
    const second = await startTestService({ env: mailEnv(smtp), sharedDatabase: database });
    try {
      await second.deps.database.db.updateTable('outbox').set({ due_at: new Date().toISOString() }).where('recipient_id', '=', admin.user.id).execute();
      await settled(second);
      assert.equal(smtp.to('restart-admin@example.com').length, 1);
    } finally {
      await second.close();
      await first.close();
    }
  });

  test('two instances on one database send each email once', { timeout: 60_000 }, async () => {
    const a = await startTestService({ env: mailEnv(smtp) });
    const b = await startTestService({ env: mailEnv(smtp), sharedDatabase: a.deps.config.database });
    try {
      const admins = ['pair-a1@example.com', 'pair-a2@example.com'];
      for (const email of admins) await a.createUser({ role: 'ADMIN', email });
      const poc = await a.signIn('POC', { email: 'pair-poc@example.com' });
      const pocOnB = await b.login('pair-poc@example.com', poc.password);
      const names = Array.from({ length: 20 }, (_, i) => `Pair ${i}`);
      await Promise.all(names.map((name, i) => (i % 2 ? pocOnB : poc.client).post('/api/projects', { name })));
      await settled(a, 30_000);
      const got = summary(smtp).filter((s) => s.startsWith('pair-'));
      const expected = admins.flatMap((email) => names.map((n) => `${email}: New project: ${n}`)).sort();
      assert.deepEqual(got, expected);
    } finally {
      await b.close();
      await a.close();
    }
  });

  test('an inactive recipient gets nothing that was waiting for them', async () => {
    const svc = await startTestService({ env: mailEnv(smtp, 1) });
    try {
      const admin = await svc.signIn('ADMIN', { email: 'gone-admin@example.com' });
      const poc = await svc.createUser({ role: 'POC', email: 'gone-poc@example.com' });
      const project = await svc.createProject(poc.user.id, { name: 'Left behind' });
      assert.equal((await admin.client.post(`/api/projects/${project.id}/approve`, {})).status, 200);
      assert.equal((await admin.client.patch(`/api/team/${poc.user.id}`, { active: false })).status, 200);
      assert.deepEqual(await settled(svc), { dropped: 1 });
      assert.equal(smtp.to('gone-poc@example.com').length, 0);
    } finally {
      await svc.close();
    }
  });
});

describe('email: what an email says is what holds when it is sent (issue 20)', () => {
  let smtp: TestSmtpServer;
  let svc: TestService;
  let close: () => Promise<void>;
  // A long window, ended by the test (sendNow): every change below falls within one batch.
  before(async () => ({ smtp, svc, close } = await startMailService(3600)));
  after(() => close?.());

  test('create, approve, submit and verify the PI within the window: the admin’s one email lists the changes and says it is approved with the PI verified', async () => {
    const admin = await svc.signIn('ADMIN', { email: 'state-admin@example.com', name: 'Ann Admin' });
    const poc = await svc.signIn('POC', { email: 'state-poc@example.com', name: 'Pia Poc' });
    const created = await poc.client.post('/api/projects', { name: 'Wedding cards' });
    assert.equal(created.status, 201);
    const id = created.body.id as string;
    for (const [who, action] of [[admin, 'approve'], [poc, 'submit-pi'], [admin, 'verify-pi']] as const) {
      assert.equal((await who.client.post(`/api/projects/${id}/${action}`, action === 'submit-pi' ? PI_FIGURES : {})).status, 200, action);
    }
    const from = smtp.received.length;
    await sendNow(svc);
    assert.deepEqual(summary(smtp, from), ['state-admin@example.com: 2 updates: Wedding cards', 'state-poc@example.com: 2 updates: Wedding cards']);

    const toAdmin = smtp.to('state-admin@example.com').at(-1)!;
    assert.match(toAdmin.text, /- New project requested by Pia Poc\.\n- PI PI-2026-001 for ₹1,25,000\.00 submitted by Pia Poc\.\n/);
    assert.match(toAdmin.text, /Where it stands now: Approved, PI verified\./);
    assert.doesNotMatch(toAdmin.text, /waits for|awaiting/i, 'nothing says it still waits');
    assert.match(toAdmin.html, /Where it stands now: Approved, PI verified\./);
    const toPoc = smtp.to('state-poc@example.com').at(-1)!;
    assert.match(toPoc.text, /- Approved by Ann Admin\.\n- PI verified by Ann Admin\.\n/);
    assert.match(toPoc.text, /Where it stands now: Approved, PI verified\./);
  });

  test('rejected, then corrected and asked again within the window: the POC’s email says it awaits approval again', async () => {
    const admin = await svc.signIn('ADMIN', { email: 'again-admin@example.com', name: 'Ann Again' });
    const poc = await svc.signIn('POC', { email: 'again-poc@example.com', name: 'Pia Again' });
    const project = await svc.createProject(poc.user.id, { name: 'Flyers' });
    assert.equal((await admin.client.post(`/api/projects/${project.id}/reject`, { note: 'Bleed is missing' })).status, 200);
    assert.equal((await poc.client.post(`/api/projects/${project.id}/resubmit`, {})).status, 200);
    const from = smtp.received.length;
    await sendNow(svc);
    const mine = smtp.received.slice(from).filter((m) => m.rcptTo.includes('again-poc@example.com'));
    assert.equal(mine.length, 1);
    assert.match(mine[0]!.text, /- Rejected by Ann Again\. Note: Bleed is missing\n/);
    assert.match(mine[0]!.text, /Where it stands now: Awaiting approval\./);
    assert.doesNotMatch(mine[0]!.text, /stands now: Rejected/);
    const admins = smtp.received.slice(from).filter((m) => m.rcptTo.includes('again-admin@example.com'));
    assert.equal(admins.length, 1);
    assert.match(admins[0]!.text, /- Pia Again asked for approval again\.\n/);
    assert.match(admins[0]!.text, /Where it stands now: Awaiting approval\./);
  });

  test('every change is listed with its note, in order: the dispatch note reaches the POC', async () => {
    const admin = await svc.signIn('ADMIN', { email: 'note-admin@example.com', name: 'Ann Note' });
    const poc = await svc.createUser({ role: 'POC', email: 'note-poc@example.com', name: 'Pia Note' });
    const project = await svc.createProject(poc.user.id, { name: 'Banners', status: 'APPROVED', piStatus: 'VERIFIED' });
    for (const [action, note] of [['start-printing', 'On the big press'], ['dispatch', 'BlueDart AWB 123456789']]) {
      assert.equal((await admin.client.post(`/api/projects/${project.id}/${action}`, { note })).status, 200, action);
    }
    const from = smtp.received.length;
    await sendNow(svc);
    const [mail, ...more] = smtp.received.slice(from).filter((m) => m.rcptTo.includes('note-poc@example.com'));
    assert.equal(more.length, 0);
    assert.match(mail!.text, /- Printing started \(Ann Note\)\. Note: On the big press\n- Dispatched \(Ann Note\)\. Note: BlueDart AWB 123456789\n/);
    assert.match(mail!.html, /Dispatched \(Ann Note\)\. Note: BlueDart AWB 123456789/);
    assert.match(mail!.text, /Where it stands now: Dispatched, PI verified\./);
  });

  test('the state is read when the email is sent: a change made after the last listed one (an admin’s correction, which sends no email of its own) shows', async () => {
    const admin = await svc.signIn('ADMIN', { email: 'late-admin@example.com', name: 'Ann Late' });
    const poc = await svc.createUser({ role: 'POC', email: 'late-poc@example.com', name: 'Pia Late' });
    const project = await svc.createProject(poc.user.id, { name: 'Stickers' });
    assert.equal((await admin.client.post(`/api/projects/${project.id}/approve`, {})).status, 200);
    assert.equal((await admin.client.patch(`/api/projects/${project.id}`, { status: 'CANCELLED' })).status, 200);
    const from = smtp.received.length;
    await sendNow(svc);
    const [mail] = smtp.received.slice(from).filter((m) => m.rcptTo.includes('late-poc@example.com'));
    assert.equal(mail!.subject, `Approved: #${project.number} Stickers`);
    assert.match(mail!.text, /Where it stands now: Cancelled\./);
  });
});

describe('email: who may see the project is asked when the email is sent (issue 33, item 14)', () => {
  let smtp: TestSmtpServer;
  let svc: TestService;
  let close: () => Promise<void>;
  // A long window, ended by the test (sendNow): the loss of access falls within the batch.
  before(async () => ({ smtp, svc, close } = await startMailService(3600)));
  after(() => close?.());

  test('a CLIENT moved to another customer, or whose customer’s project moved away, within the window gets no email; the others theirs', async () => {
    const admin = await svc.signIn('ADMIN', { email: 'moved-admin@example.com', name: 'Ann Moved' });
    const poc = await svc.createUser({ role: 'POC', email: 'moved-poc@example.com' });
    const acme = (await admin.client.post('/api/customers', { name: 'Acme Moved' })).body.id as string;
    const beta = (await admin.client.post('/api/customers', { name: 'Beta Moved' })).body.id as string;
    const gamma = (await admin.client.post('/api/customers', { name: 'Gamma Moved' })).body.id as string;
    const [moved, stays, left] = await Promise.all(['moved', 'stays', 'left'].map((n) => svc.createUser({ role: 'CLIENT', email: `${n}-client@example.com` })));
    for (const c of [moved!, stays!, left!]) assert.equal((await admin.client.patch(`/api/team/${c.user.id}`, { customerId: acme })).status, 200);
    const one = await svc.createProject(poc.user.id, { name: 'Moved cards', customerId: acme });
    const two = await svc.createProject(poc.user.id, { name: 'Moved menus', customerId: acme });
    for (const p of [one, two]) assert.equal((await admin.client.post(`/api/projects/${p.id}/comments`, { body: `about ${p.name}` })).status, 201);
    const queued = await svc.deps.database.db.selectFrom('outbox').select(['recipient_id']).where('status', '=', 'pending').execute();
    assert.ok(queued.some((r) => r.recipient_id === moved!.user.id), 'the email to the moved CLIENT was queued while they could see');

    // Within the window: one CLIENT moves to Beta; project two moves to Gamma (so no Acme CLIENT sees it).
    assert.equal((await admin.client.patch(`/api/team/${moved!.user.id}`, { customerId: beta })).status, 200);
    assert.equal((await admin.client.patch(`/api/projects/${two.id}`, { customerId: gamma })).status, 200);
    const from = smtp.received.length;
    await sendNow(svc);
    const got = summary(smtp, from);
    assert.ok(!got.some((m) => m.startsWith('moved-client@')), `the moved CLIENT got nothing: ${got.join('; ')}`);
    assert.deepEqual(got.filter((m) => m.includes('-client@')), ['left-client@example.com: New comment: Moved cards', 'stays-client@example.com: New comment: Moved cards']);
  });
});

describe('email without SMTP_URL', () => {
  test('each email is written as an .eml file under DATA_DIR/mail', async () => {
    const svc = await startTestService({ env: mailEnv(null) });
    try {
      await svc.createUser({ role: 'ADMIN', email: 'eml-admin@example.com', name: 'Eve Admin' });
      const poc = await svc.signIn('POC');
      assert.equal((await poc.client.post('/api/projects', { name: 'On disk' })).status, 201);
      await settled(svc);
      const dir = path.join(svc.dataDir, 'mail');
      const files = fs.readdirSync(dir);
      assert.equal(files.length, 1);
      assert.match(files[0]!, /\.eml$/);
      const parsed = await simpleParser(fs.readFileSync(path.join(dir, files[0]!)));
      assert.match(parsed.subject ?? '', /^New project: #\d+ On disk$/);
      assert.equal((Array.isArray(parsed.to) ? parsed.to[0] : parsed.to)?.text, '"Eve Admin" <eml-admin@example.com>');
      assert.match(parsed.text ?? '', /Open the project: http:\/\/127\.0\.0\.1:\d+\/projects\//);
      // /readyz does not depend on mail.
      assert.equal((await svc.anonymous.get('/readyz')).status, 200);
    } finally {
      await svc.close();
    }
  });
});
