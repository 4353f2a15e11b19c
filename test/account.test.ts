/**
 * Issue 12: My account (every role) and the forgotten password, over HTTP, with a real SMTP server
 * (test/helpers/smtp.ts) receiving the reset links and the project emails.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import http from 'node:http';
import { after, before, describe, test } from 'node:test';
import bcrypt from 'bcrypt';
import { hashToken } from '../src/actions/auth.js';
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
        customerId: null,
        emailPreferences: { approvals: true, pi: true, progress: true, documents: true, dueDigest: true, comments: true, proofs: true },
      });
    }
  });

  test('name, phone and preferences change; role, email and unknown fields are refused and change nothing', async () => {
    const { user, client } = await svc.signIn('POC', { name: 'Before' });
    const res = await client.patch('/api/account', { name: '  After  ', phone: '+91 98450 00000', emailPreferences: { progress: false } });
    assert.equal(res.status, 200, res.text);
    assert.equal(res.body.name, 'After');
    assert.equal(res.body.phone, '+91 98450 00000');
    assert.deepEqual(res.body.emailPreferences, { approvals: true, pi: true, progress: false, documents: true, dueDigest: true, comments: true, proofs: true });
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
    assert.deepEqual((await client.get('/api/account')).body.emailPreferences, { approvals: true, pi: true, progress: true, documents: false, dueDigest: true, comments: true, proofs: true });
  });

  test('only the known email categories: unknown keys are a 400 naming one, and nothing is stored', async () => {
    const { user, client } = await svc.signIn('CLIENT');
    const optouts = async () => (await svc.deps.database.db.selectFrom('email_optouts').select('category').where('user_id', '=', user.id).execute()).map((r) => r.category);
    const many = (n: number) => Object.fromEntries(Array.from({ length: n }, (_, i) => [`k${i}`, false]));
    for (const [what, prefs] of [
      ['one unknown key beside a known one', { progress: false, bogus: false }],
      ['4,000 unknown keys', many(4_000)],
      ['17,000 unknown keys', many(17_000)],
      ['33,000 unknown keys', many(33_000)],
    ] as const) {
      const res = await client.patch('/api/account', { emailPreferences: prefs });
      assert.equal(res.status, 400, `${what}: ${res.text.slice(0, 200)}`);
      assert.match(res.body.error, /^emailPreferences\.(bogus|k0) is not a known field$/, what);
      assert.deepEqual(await optouts(), [], `${what}: nothing stored`);
    }
    assert.deepEqual((await client.get('/api/account')).body.emailPreferences, { approvals: true, pi: true, progress: true, documents: true, dueDigest: true, comments: true, proofs: true });
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
    assert.equal(mail.subject, `Approved: #${other.number} Loud one`);
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

describe('throttling wrong current passwords', () => {
  test('per user: after LOGIN_MAX_FAILURES_PER_EMAIL (3) wrong current passwords, 429 with Retry-After, the right one too; others unaffected', async () => {
    const { email, password } = await svc.createUser();
    const me = await svc.login(email, password);
    for (let i = 0; i < 3; i++) {
      assertAnswer(await me.post('/api/account/password', { currentPassword: `wrong-${i}`, newPassword: 'long-enough-1' }), 400, { error: 'Current password is incorrect' }, `failure ${i + 1}`);
    }
    for (const currentPassword of ['wrong-again', password]) {
      const res = await me.post('/api/account/password', { currentPassword, newPassword: 'long-enough-1' });
      assertAnswer(res, 429, { error: 'Too many password attempts, try again later' }, currentPassword);
      const retryAfter = Number(res.headers.get('retry-after'));
      assert.ok(Number.isInteger(retryAfter) && retryAfter >= 1 && retryAfter <= 15 * 60, `Retry-After ${res.headers.get('retry-after')}`);
    }
    assert.equal((await new Client(svc.url).post('/api/auth/login', { email, password })).status, 200, 'the password did not change');
    // Someone else changes theirs.
    const other = await svc.createUser();
    const them = await svc.login(other.email, other.password);
    assert.equal((await them.post('/api/account/password', { currentPassword: other.password, newPassword: 'long-enough-2' })).status, 204);
  });

  test('only failures count: five changes in a row with the right current password all succeed', async () => {
    let { email, password } = await svc.createUser(); // eslint-disable-line prefer-const
    const me = await svc.login(email, password);
    for (let i = 0; i < 5; i++) {
      const next = `long-enough-${i}-x`;
      assert.equal((await me.post('/api/account/password', { currentPassword: password, newPassword: next })).status, 204, `change ${i + 1}`);
      password = next;
    }
  });

  test('per client address: after LOGIN_MAX_FAILURES_PER_ADDRESS (4) failures across users, 429; another address is not affected', async () => {
    const perAddress = await startTestService({ env: { LOGIN_MAX_FAILURES_PER_EMAIL: '1000', LOGIN_MAX_FAILURES_PER_ADDRESS: '4' } });
    try {
      for (let i = 0; i < 4; i++) {
        const { client } = await perAddress.signIn('POC');
        assert.equal((await client.post('/api/account/password', { currentPassword: 'wrong', newPassword: 'long-enough-1' })).status, 400);
      }
      const { user, client, password } = await perAddress.signIn('CLIENT');
      const res = await client.post('/api/account/password', { currentPassword: password, newPassword: 'long-enough-1' });
      assertAnswer(res, 429, { error: 'Too many password attempts, try again later' });
      assert.match(res.headers.get('retry-after') ?? '', /^\d+$/);
      const elsewhere = await postFrom(perAddress, '127.0.0.2', '/api/account/password', { currentPassword: password, newPassword: 'long-enough-1' }, client.cookie!);
      assert.equal(elsewhere.status, 204, elsewhere.text);
      assert.equal((await new Client(perAddress.url).post('/api/auth/login', { email: user.email, password: 'long-enough-1' })).status, 200);
    } finally {
      await perAddress.close();
    }
  });
});

/** A JSON POST from a chosen local address (all of 127.0.0.0/8 is loopback on Linux), with a cookie. */
function postFrom(service: TestService, localAddress: string, path: string, body: unknown, cookie?: string): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const req = http.request(
      `${service.url}${path}`,
      { method: 'POST', localAddress, headers: { 'content-type': 'application/json', ...(cookie ? { cookie } : {}) } },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (text += chunk));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, text }));
      },
    );
    req.on('error', reject);
    req.end(JSON.stringify(body));
  });
}

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

describe('reset-password: the token first, then the work; unknown tokens throttled per address', () => {
  const INVALID_LINK = { error: 'This reset link is invalid, used or expired; ask for a new one' };
  let perAddress: TestService;
  before(async () => {
    perAddress = await startTestService({ env: { LOGIN_MAX_FAILURES_PER_EMAIL: '1000', LOGIN_MAX_FAILURES_PER_ADDRESS: '4' } });
  });
  after(() => perAddress?.close());

  /** A reset link for the user, made as forgot-password makes it (only its hash stored). */
  async function linkFor(service: TestService, userId: string): Promise<string> {
    const token = randomBytes(32).toString('base64url');
    await service.deps.store.passwordResets.create(hashToken(token), userId, new Date().toISOString(), new Date(Date.now() + 3_600_000).toISOString());
    return token;
  }

  /** How many bcrypt hashes the service computes while `work` runs (it runs in this process). */
  async function hashesDuring(work: () => Promise<unknown>): Promise<number> {
    const original = bcrypt.hash;
    let count = 0;
    (bcrypt as { hash: unknown }).hash = (...args: Parameters<typeof original>) => {
      count++;
      return original(...args);
    };
    try {
      await work();
    } finally {
      bcrypt.hash = original;
    }
    return count;
  }

  test('16 bogus tokens at once cost no password hash; a valid one costs one', async () => {
    const bogus = await hashesDuring(() =>
      Promise.all(
        Array.from({ length: 16 }, async (_, i) => {
          const res = await new Client(svc.url).post('/api/auth/reset-password', { token: `made-up-${i}`, password: 'brand-new-pass' });
          assert.ok([400, 429].includes(res.status), res.text);
        }),
      ),
    );
    assert.equal(bogus, 0, 'no bcrypt work for tokens that do not exist');
    const { user } = await svc.createUser();
    const token = await linkFor(svc, user.id);
    const valid = await hashesDuring(async () => assert.equal((await new Client(svc.url).post('/api/auth/reset-password', { token, password: 'brand-new-pass' })).status, 200));
    assert.equal(valid, 1);
  });

  test('after LOGIN_MAX_FAILURES_PER_ADDRESS (4) unknown tokens the address gets 429 with Retry-After, even with a valid token; another address does not', async () => {
    for (let i = 0; i < 4; i++) {
      assertAnswer(await new Client(perAddress.url).post('/api/auth/reset-password', { token: `guess-${i}`, password: 'brand-new-pass' }), 400, INVALID_LINK, `guess ${i + 1}`);
    }
    const { user, email } = await perAddress.createUser();
    const token = await linkFor(perAddress, user.id);
    const res = await new Client(perAddress.url).post('/api/auth/reset-password', { token, password: 'brand-new-pass' });
    assertAnswer(res, 429, { error: 'Too many password reset attempts, try again later' });
    const retryAfter = Number(res.headers.get('retry-after'));
    assert.ok(Number.isInteger(retryAfter) && retryAfter >= 1 && retryAfter <= 15 * 60, `Retry-After ${res.headers.get('retry-after')}`);
    // The link was not spent: from another address it works.
    const elsewhere = await postFrom(perAddress, '127.0.0.2', '/api/auth/reset-password', { token, password: 'brand-new-pass' });
    assert.equal(elsewhere.status, 200, elsewhere.text);
    assert.equal((await new Client(perAddress.url).post('/api/auth/login', { email, password: 'brand-new-pass' })).status, 200);
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
  assert.deepEqual(Object.keys(doc.paths['/api/account'].get.responses['200'].content['application/json'].schema.properties.emailPreferences.properties), ['approvals', 'pi', 'progress', 'documents', 'dueDigest', 'comments', 'proofs']);
  assert.deepEqual(Object.keys(doc.paths['/api/auth/forgot-password'].post.responses).sort(), ['202', '400', '429']);
});
