/**
 * API tokens in a real browser (Debian's Chromium through playwright-core): My account → API tokens →
 * a write token made, shown once with Copy, then used with fetch from the test as `Authorization:
 * Bearer`; revoked on the page, and refused from then on. An ADMIN sees everyone's tokens with
 * their owner on My account and revokes a member's.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Page } from 'playwright-core';
import { type BrowserTest, heading, screenshot, startBrowserTest } from '../helpers/browser.js';
import type { TestService } from '../helpers/service.js';
import { browserTestsSkipped } from './build.js';

const skip = browserTestsSkipped('test/e2e/api-tokens.e2e.test.ts');

if (skip) test('API tokens in a browser', { skip }, () => {});
else
  describe('API tokens in a browser', { timeout: 300_000 }, () => {
    let t: BrowserTest;
    let svc: TestService;
    let page: Page;
    const problems: string[] = [];
    const person = { email: 'tokens@example.com', password: 'tokens-password-1', name: 'Token Tara' };

    before(async () => {
      t = await startBrowserTest();
      svc = t.svc;
      await svc.createUser({ role: 'POC', ...person });
      page = await t.window({ problems });
      await page.context().grantPermissions(['clipboard-read', 'clipboard-write'], { origin: svc.url });
      page.on('dialog', (dialog) => void dialog.accept());
    });
    after(() => t?.close());

    test('create a token on My account, copy it, use it with fetch, revoke it', async () => {
      await t.signIn(page, person);
      await page.getByRole('link', { name: 'My account' }).click();
      await heading(page, 'My account').waitFor();

      const section = page.getByRole('region', { name: 'API tokens' });
      await section.getByText('No API tokens yet.').waitFor();
      await section.getByLabel('Used for').fill('ERP sync');
      await section.getByLabel('Access').selectOption('write');
      await section.getByLabel('Expires').selectOption('30');
      await section.getByRole('button', { name: 'Create token' }).click();
      const shown = section.getByLabel('New API token', { exact: true }).filter({ hasText: /^pos_/ });
      await shown.waitFor();
      const token = (await shown.textContent())!.trim();
      assert.match(token, /^pos_[0-9A-Za-z]{32,}$/);
      await section.getByText('it will not be shown again').waitFor();
      await section.getByRole('button', { name: 'Copy' }).click();
      await section.getByRole('button', { name: 'Copied' }).waitFor();
      assert.equal(await page.evaluate(() => navigator.clipboard.readText()), token);
      await section.getByRole('cell', { name: 'ERP sync', exact: true }).waitFor();
      await section.getByRole('cell', { name: 'Read and write', exact: true }).waitFor();
      await screenshot(page, 'api-tokens');

      // The token from the page, used as another system would.
      const who = await fetch(`${svc.url}/api/auth/session`, { headers: { authorization: `Bearer ${token}` } });
      assert.equal(who.status, 200);
      assert.equal(((await who.json()) as { user: { email: string } }).user.email, person.email);
      const made = await fetch(`${svc.url}/api/projects`, { method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body: JSON.stringify({ name: 'Made with a token' }) });
      assert.equal(made.status, 201);

      await section.getByRole('button', { name: 'Revoke ERP sync' }).click();
      await section.getByText('No API tokens yet.').waitFor();
      const refused = await fetch(`${svc.url}/api/auth/session`, { headers: { authorization: `Bearer ${token}` } });
      assert.equal(refused.status, 401);
      assert.deepEqual(problems, []);
    });

    test("an ADMIN sees a member's token among everyone's and revokes it", async () => {
      const member = await svc.login(person.email, person.password);
      const made = await member.post('/api/account/tokens', { name: 'Dispatch scanner', scope: 'write' });
      assert.equal(made.status, 201);
      const token = made.body.token as string;
      const { client: admin, user, password } = await svc.signIn('ADMIN', { name: 'Admin Asha' });
      await admin.post('/api/account/tokens', { name: 'Admin script', scope: 'read' });

      const adminPage = await t.window({ problems, who: 'admin' });
      try {
        adminPage.on('dialog', (dialog) => void dialog.accept());
        await t.signIn(adminPage, { email: user.email, password });
        await adminPage.getByRole('link', { name: 'My account' }).click();
        const everyone = adminPage.getByRole('region', { name: 'Everyone’s API tokens' });
        await everyone.getByRole('cell', { name: 'Dispatch scanner', exact: true }).waitFor();
        await everyone.getByRole('cell', { name: person.name, exact: true }).waitFor();
        await everyone.getByRole('cell', { name: 'Admin script', exact: true }).waitFor();
        // Their own list stays their own.
        const own = adminPage.getByRole('region', { name: 'API tokens', exact: true });
        await own.getByRole('cell', { name: 'Admin script', exact: true }).waitFor();
        assert.equal(await own.getByRole('cell', { name: 'Dispatch scanner', exact: true }).count(), 0);

        await everyone.getByRole('button', { name: `Revoke Dispatch scanner of ${person.name}` }).click();
        await everyone.getByRole('cell', { name: 'Dispatch scanner', exact: true }).waitFor({ state: 'detached' });
        const refused = await fetch(`${svc.url}/api/auth/session`, { headers: { authorization: `Bearer ${token}` } });
        assert.equal(refused.status, 401);
        assert.deepEqual(problems, []);
      } finally {
        await adminPage.context().close();
      }
    });
  });
