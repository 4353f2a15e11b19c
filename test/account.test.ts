/**
 * Issue 12: My account (every role) and the forgotten password, over HTTP, with a real SMTP server
 * (test/helpers/smtp.ts) receiving the reset links and the project emails.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { assertAnswer } from './helpers/team.js';
import { Client, type TestService, openEventStream, startTestService } from './helpers/service.js';
import { type TestSmtpServer, startSmtpServer } from './helpers/smtp.js';

let smtp: TestSmtpServer;
let svc: TestService;

before(async () => {
  smtp = await startSmtpServer();
  svc = await startTestService({
    env: { SMTP_URL: smtp.url, MAIL_BATCH_SECONDS: '0', MAIL_POLL_MS: '50', LOGIN_MAX_FAILURES_PER_EMAIL: '3', LOGIN_MAX_FAILURES_PER_ADDRESS: '1000' },
  });
});
after(async () => {
  await svc?.close();
  await smtp?.stop();
});

/** The reset link's token from an email, after checking the link's form. */
function tokenOf(mail: { text: string }): string {
  const m = new RegExp(`${svc.url.replace(/[.]/g, '\\.')}/reset-password\\?token=([A-Za-z0-9_%-]+)`).exec(mail.text);
  assert.ok(m, `no reset link in: ${mail.text}`);
  return decodeURIComponent(m[1]!);
}

/** Gives the dispatcher and the background sender a moment to (not) send anything more. */
const quiet = () => new Promise((r) => setTimeout(r, 300));

describe('GET and PATCH /api/account', () => {
  test('each role sees its own profile and email preferences; no secrets', async () => {
    assertAnswer(await svc.anonymous.get('/api/account'), 401, { error: 'Unauthorized' });
    for (const role of ['ADMIN', 'POC', 'CLIENT'] as const) {
      const { user, client } = await svc.signIn(role, { name: `My ${role}` });
      assertAnswer(await client.get('/api/account'), 200, {
        id: user.id,
        name: `My ${role}`,
        email: user.email,
        phone: null,
        role,
        location: null,
        branch: null,
        emailPreferences: { approvals: true, pi: true, progress: true, documents: true },
      });
    }
  });

  test('name, phone and preferences change; role, email and unknown fields are refused and change nothing', async () => {
    const { user, client } = await svc.signIn('POC', { name: 'Before' });
    const res = await client.patch('/api/account', { name: '  After  ', phone: '+91 98450 00000', emailPreferences: { progress: false } });
    assert.equal(res.status, 200, res.text);
    assert.equal(res.body.name, 'After');
    assert.equal(res.body.phone, '+91 98450 00000');
    assert.deepEqual(res.body.emailPreferences, { approvals: true, pi: true, progress: false, documents: true });
    for (const [body, error] of [
      [{ role: 'ADMIN' }, 'Role is not a known field'],
      [{ email: 'new@example.com' }, 'Email is not a known field'],
      [{ name: '  ' }, 'Name is required'],
      [{ emailPreferences: { progress: 'no' } }, 'emailPreferences.progress must be true or false'],
    ] as const) {
      const refused = await client.patch('/api/account', body);
      assert.equal(refused.status, 400, JSON.stringify(body));
      assert.equal(refused.body.error, error);
    }
    const now = await client.get('/api/account');
    assert.equal(now.body.role, 'POC');
    assert.equal(now.body.email, user.email);
    assert.equal(now.body.name, 'After');
    assert.equal((await client.patch('/api/account', { phone: null, emailPreferences: { progress: true, documents: false } })).body.phone, null);
    assert.deepEqual((await client.get('/api/account')).body.emailPreferences, { approvals: true, pi: true, progress: true, documents: false });
  });

  test('a switched-off category sends nothing; the others still arrive', async () => {
    const admin = await svc.signIn('ADMIN');
    const poc = await svc.signIn('POC', { email: 'prefs-poc@example.com' });
    assert.equal((await poc.client.patch('/api/account', { emailPreferences: { progress: false } })).status, 200);
    const project = await svc.createProject(poc.user.id, { name: 'Quiet one', status: 'PRINTING', piStatus: 'VERIFIED' });
    assert.equal((await admin.client.post(`/api/projects/${project.id}/dispatch`, {})).status, 200);
    const other = await svc.createProject(poc.user.id, { name: 'Loud one' });
    assert.equal((await admin.client.post(`/api/projects/${other.id}/approve`, {})).status, 200);
    const mail = await smtp.nextTo('prefs-poc@example.com', 0);
    assert.equal(mail.subject, 'Approved: Loud one');
    await quiet();
    assert.equal(smtp.to('prefs-poc@example.com').length, 1);
  });
});

describe('POST /api/account/password', () => {
  test('needs the current password and 8 characters; ends the other sessions (and their streams), keeps this one', async () => {
    const { user, email, password } = await svc.createUser({ role: 'CLIENT' });
    const here = await svc.login(email, password);
    const elsewhere = await svc.login(email, password);
    const [hereStream, elsewhereStream] = await Promise.all([openEventStream(here), openEventStream(elsewhere)]);
    try {
      assertAnswer(await here.post('/api/account/password', { newPassword: 'long-enough-1' }), 400, { error: 'currentPassword and newPassword are required' });
      assertAnswer(await here.post('/api/account/password', { currentPassword: 'wrong-one', newPassword: 'long-enough-1' }), 400, { error: 'Current password is incorrect' });
      assertAnswer(await here.post('/api/account/password', { currentPassword: password, newPassword: 'short' }), 400, { error: 'Password must be at least 8 characters' });
      assert.equal((await elsewhere.get('/api/auth/session')).status, 200, 'refusals change nothing');

      const res = await here.post('/api/account/password', { currentPassword: password, newPassword: 'long-enough-1' });
      assert.equal(res.status, 204, res.text);
      const events = await elsewhereStream.end(3000);
      assert.deepEqual(events.at(-1), { id: '', event: 'session-ended', data: { reason: 'password-changed' } });
      assertAnswer(await elsewhere.get('/api/auth/session'), 401, { error: 'Unauthorized' });
      assert.equal((await here.get('/api/auth/session')).body.user.id, user.id);
      // This browser's stream stays open: it still hears its projects.
      const own = await svc.createProject(user.id);
      const admin = await svc.signIn('ADMIN');
      assert.equal((await admin.client.patch(`/api/projects/${own.id}`, { name: 'Heard' })).status, 200);
      assert.equal((await hereStream.next(1)).at(0)?.event, 'project-updated');

      assert.equal((await new Client(svc.url).post('/api/auth/login', { email, password })).status, 401, 'the old password no longer works');
      assert.equal((await new Client(svc.url).post('/api/auth/login', { email, password: 'long-enough-1' })).status, 200);
    } finally {
      hereStream.close();
      elsewhereStream.close();
    }
  });
});

describe('forgot and reset password', () => {
  test('the whole flow: same answer for unknown emails, a single-use link, every session ended, this browser signed in', async () => {
    const { user, email, password } = await svc.createUser({ role: 'POC', email: 'forgetful@example.com', name: 'Forgetful Fay' });
    const oldSession = await svc.login(email, password);
    const oldStream = await openEventStream(oldSession);
    try {
      assertAnswer(await svc.anonymous.post('/api/auth/forgot-password', { email: 'nobody@example.com' }), 202, {});
      assertAnswer(await svc.anonymous.post('/api/auth/forgot-password', { email: 'FORGETFUL@example.com' }), 202, {});
      assertAnswer(await svc.anonymous.post('/api/auth/forgot-password', {}), 400, { error: 'email is required' });
      const mail = await smtp.nextTo(email, 0);
      assert.equal(mail.subject, 'Reset your password');
      assert.equal(mail.to, '"Forgetful Fay" <forgetful@example.com>');
      const token = tokenOf(mail);
      assert.match(mail.html, /href="http:\/\/127\.0\.0\.1:\d+\/reset-password\?token=/);
      await quiet();
      assert.equal(smtp.to('nobody@example.com').length, 0);

      // Only the token's hash is stored.
      const stored = await svc.deps.database.db.selectFrom('password_resets').selectAll().where('user_id', '=', user.id).execute();
      assert.equal(stored.length, 1);
      assert.notEqual(stored[0]!.token_hash, token);
      assert.ok(!JSON.stringify(stored).includes(token));

      const browser = new Client(svc.url);
      assertAnswer(await browser.post('/api/auth/reset-password', { token, password: 'short' }), 400, { error: 'Password must be at least 8 characters' });
      assertAnswer(await browser.post('/api/auth/reset-password', { token: 'made-up', password: 'brand-new-pass' }), 400, { error: 'This reset link is invalid, used or expired; ask for a new one' });
      const res = await browser.post('/api/auth/reset-password', { token, password: 'brand-new-pass' });
      assertAnswer(res, 200, { user: { id: user.id, name: 'Forgetful Fay', email, role: 'POC' } });
      assert.match(res.headers.get('set-cookie') ?? '', /^session=[^;]+;.*HttpOnly/i);
      assert.equal((await browser.get('/api/auth/session')).body.user.id, user.id, 'this browser is signed in');

      const events = await oldStream.end(3000);
      assert.deepEqual(events.at(-1), { id: '', event: 'session-ended', data: { reason: 'password-changed' } });
      assert.equal((await oldSession.get('/api/auth/session')).status, 401, 'every earlier session ended');
      assert.equal((await new Client(svc.url).post('/api/auth/login', { email, password })).status, 401);
      assert.equal((await new Client(svc.url).post('/api/auth/login', { email, password: 'brand-new-pass' })).status, 200);

      // Used once: never again.
      assertAnswer(await new Client(svc.url).post('/api/auth/reset-password', { token, password: 'another-pass-2' }), 400, { error: 'This reset link is invalid, used or expired; ask for a new one' });
    } finally {
      oldStream.close();
    }
  });

  test('an expired link is refused; an inactive user gets no link', async () => {
    const { user, email } = await svc.createUser({ role: 'CLIENT' });
    assert.equal((await svc.anonymous.post('/api/auth/forgot-password', { email })).status, 202);
    const token = tokenOf(await smtp.nextTo(email, 0));
    // As if PASSWORD_RESET_MINUTES had passed.
    await svc.deps.database.db.updateTable('password_resets').set({ expires_at: new Date(Date.now() - 1000).toISOString() }).where('user_id', '=', user.id).execute();
    assertAnswer(await new Client(svc.url).post('/api/auth/reset-password', { token, password: 'brand-new-pass' }), 400, { error: 'This reset link is invalid, used or expired; ask for a new one' });

    const inactive = await svc.createUser({ role: 'POC', active: false });
    assertAnswer(await svc.anonymous.post('/api/auth/forgot-password', { email: inactive.email }), 202, {});
    await quiet();
    assert.equal(smtp.to(inactive.email).length, 0);
  });

  test('requests are throttled per email like logins, the same for unknown emails', async () => {
    for (const email of ['throttled@example.com', 'unknown-throttled@example.com']) {
      if (email.startsWith('throttled')) await svc.createUser({ email });
      for (let i = 0; i < 3; i++) assert.equal((await svc.anonymous.post('/api/auth/forgot-password', { email })).status, 202);
      const res = await svc.anonymous.post('/api/auth/forgot-password', { email });
      assertAnswer(res, 429, { error: 'Too many password reset requests, try again later' });
      assert.ok(Number(res.headers.get('retry-after')) > 0);
    }
    await quiet();
    assert.equal(smtp.to('throttled@example.com').length, 3);
  });
});

test('/api/openapi.json describes the account and password endpoints', async () => {
  // Read with fetch, not Client: the document names "password" properties, which Client refuses in any body.
  const doc = JSON.parse(await (await fetch(new URL('/api/openapi.json', svc.url))).text());
  for (const [path, method] of [
    ['/api/account', 'get'],
    ['/api/account', 'patch'],
    ['/api/account/password', 'post'],
    ['/api/auth/forgot-password', 'post'],
    ['/api/auth/reset-password', 'post'],
  ] as const) {
    assert.ok(doc.paths[path]?.[method]?.summary, `${method.toUpperCase()} ${path} has a summary`);
  }
  assert.deepEqual(Object.keys(doc.paths['/api/account'].get.responses['200'].content['application/json'].schema.properties.emailPreferences.properties), ['approvals', 'pi', 'progress', 'documents']);
  assert.deepEqual(Object.keys(doc.paths['/api/auth/forgot-password'].post.responses).sort(), ['202', '400', '429']);
});
