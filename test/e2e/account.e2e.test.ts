/**
 * Issue 12 in a real browser (Debian's Chromium through playwright-core): "Forgot password?" on the
 * sign-in page → the link from the email a real SMTP server captured → a new password → signed in;
 * then My account: name and an email category switched off, as the API then reports them.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Page } from 'playwright-core';
import { type BrowserTest, SESSION_CHECK, heading, screenshot, settles, startBrowserTest } from '../helpers/browser.js';
import { Client, type TestService } from '../helpers/service.js';
import { type TestSmtpServer, startSmtpServer } from '../helpers/smtp.js';
import { browserTestsSkipped } from './build.js';

const skip = browserTestsSkipped('test/e2e/account.e2e.test.ts');

const PERSON = { name: 'Forgetful Farah', email: 'farah@example.com', password: 'the-old-password' };

if (skip) test('account pages in a browser', { skip }, () => {});
else
  describe('account pages in a browser', { timeout: 300_000 }, () => {
    let smtp: TestSmtpServer;
    let t: BrowserTest;
    let svc: TestService;
    let page: Page;
    const problems: string[] = [];

    before(async () => {
      smtp = await startSmtpServer();
      t = await startBrowserTest({ env: { SMTP_URL: smtp.url, MAIL_BATCH_SECONDS: '0', MAIL_POLL_MS: '50' } });
      svc = t.svc;
      await svc.createUser({ role: 'POC', ...PERSON });
      // On purpose besides the session check: the refused short password and the used link (400).
      const expected = [SESSION_CHECK, { path: /^\/api\/auth\/reset-password$/, status: [400] }];
      page = await t.window({ viewport: { width: 1280, height: 860 }, problems, expected });
    });
    after(async () => {
      await t?.close();
      await smtp?.stop();
    });

    test('forgot password → the emailed link → a new password → signed in', async () => {
      const before = await svc.login(PERSON.email, PERSON.password);
      await page.goto(svc.url);
      await heading(page, 'Sign in').waitFor();
      await page.getByRole('link', { name: 'Forgot password?' }).click();
      await heading(page, 'Forgot password').waitFor();
      await page.getByLabel('Email').fill(PERSON.email);
      await page.getByRole('button', { name: 'Send me a link' }).click();
      await page.getByRole('status').filter({ hasText: `If ${PERSON.email} belongs to an account` }).waitFor();

      const email = await smtp.nextTo(PERSON.email);
      const link = /(http:\/\/\S+\/reset-password\?token=\S+)/.exec(email.text)?.[1] ?? '';
      assert.ok(link.startsWith(`${svc.url}/reset-password?token=`), email.text);

      await page.goto(link);
      await heading(page, 'Choose a new password').waitFor();
      await screenshot(page, 'reset-password', false);
      await page.getByLabel('New password', { exact: true }).fill('short');
      await page.getByLabel('New password again').fill('short');
      await page.getByRole('button', { name: 'Set password and sign in' }).click();
      await page.getByRole('alert').filter({ hasText: 'Password must be at least 8 characters' }).waitFor();
      await page.getByLabel('New password', { exact: true }).fill('a-brand-new-one');
      await page.getByLabel('New password again').fill('a-brand-new-one');
      await page.getByRole('button', { name: 'Set password and sign in' }).click();
      await heading(page, 'Dashboard').waitFor();
      assert.equal(new URL(page.url()).pathname, '/');
      assert.equal((await before.get('/api/auth/session')).status, 401, 'the earlier session ended');

      // The link worked once.
      await page.goto(link);
      await page.getByLabel('New password', { exact: true }).fill('yet-another-one');
      await page.getByLabel('New password again').fill('yet-another-one');
      await page.getByRole('button', { name: 'Set password and sign in' }).click();
      await page.getByRole('alert').filter({ hasText: 'This reset link is invalid, used or expired' }).waitFor();
    });

    test('My account: the name and the emails I get, as the API then reports them', async () => {
      await page.goto(svc.url);
      await page.getByRole('link', { name: 'My account' }).click();
      await heading(page, 'My account').waitFor();
      await page.getByLabel('Name').fill('Farah Khan');
      await page.getByRole('button', { name: 'Save profile' }).click();
      await page.getByRole('status').filter({ hasText: 'Saved.' }).waitFor();
      const progress = page.getByRole('checkbox', { name: 'Progress' });
      await settles(() => progress.isChecked(), true);
      await progress.uncheck();
      await page.getByRole('group', { name: 'Emails I get' }).getByRole('status').filter({ hasText: 'Saved.' }).waitFor();
      const digest = page.getByRole('checkbox', { name: 'Morning due-date digest' });
      await settles(() => digest.isChecked(), true);
      assert.match((await page.locator(`#${await digest.getAttribute('aria-describedby')}`).textContent()) ?? '', /overdue or due that day/);
      await screenshot(page, 'account');

      const api = new Client(svc.url);
      assert.equal((await api.post('/api/auth/login', { email: PERSON.email, password: 'a-brand-new-one' })).status, 200);
      const account = (await api.get('/api/account')).body;
      assert.equal(account.name, 'Farah Khan');
      assert.deepEqual(account.emailPreferences, { approvals: true, pi: true, progress: false, documents: true, dueDigest: true, comments: true, proofs: true });
      assert.deepEqual(problems, []);
    });
  });
