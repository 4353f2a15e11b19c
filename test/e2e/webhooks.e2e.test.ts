/**
 * The Webhooks page in a real browser (Debian's Chromium through playwright-core): an admin adds a
 * webhook to a receiver the test runs, sees its secret once, sends a test event and sees it
 * delivered, signed with that secret.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Page } from 'playwright-core';
import { ADMIN, type BrowserTest, screenshot, startBrowserTest } from '../helpers/browser.js';
import { type Receiver, startReceiver, verifiedBy } from '../helpers/webhook-receiver.js';
import { browserTestsSkipped } from './build.js';

const skip = browserTestsSkipped('test/e2e/webhooks.e2e.test.ts');

if (skip) test('the Webhooks page in a browser', { skip }, () => {});
else
  describe('the Webhooks page in a browser', { timeout: 300_000 }, () => {
    let t: BrowserTest;
    let page: Page;
    let receiver: Receiver;
    const problems: string[] = [];
    let firstSecret = '';

    before(async () => {
      receiver = await startReceiver();
      t = await startBrowserTest({ admin: ADMIN, env: { WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true', WEBHOOK_POLL_MS: '50' } });
      page = await t.window({ locale: 'en-GB', problems });
      await t.signIn(page, ADMIN);
    });
    after(async () => {
      await t?.close();
      await receiver?.close();
    });

    test('an admin adds a webhook, copies its secret once, sends a test event and sees it delivered', async () => {
      await page.getByRole('link', { name: 'Webhooks' }).click();
      await page.getByRole('heading', { level: 1, name: 'Webhooks', exact: true }).waitFor();
      await page.getByLabel('URL').fill(receiver.url);
      await page.getByLabel('Description').fill('Accounts system');
      await page.getByLabel('All events').uncheck();
      await page.getByLabel('project.created').check();
      await page.getByRole('button', { name: 'Add webhook' }).click();
      const secret = (await page.getByTestId('webhook-secret').locator('code').textContent())!.trim();
      assert.match(secret, /^whsec_/);
      firstSecret = secret;
      const card = page.getByTestId(`webhook-${receiver.url}`);
      await card.getByText('Events: project.created').waitFor();
      await page.getByRole('button', { name: 'Done' }).click();
      assert.equal(await page.getByTestId('webhook-secret').count(), 0, 'the secret is not shown again');

      await card.getByRole('button', { name: 'Send a test event' }).click();
      await card.getByTestId('delivery-webhook.test').getByText('delivered').waitFor();
      assert.equal(receiver.received.length, 1);
      assert.deepEqual(verifiedBy([secret], receiver.received[0]!), [secret]);
      await screenshot(page, 'webhooks');
      assert.deepEqual(problems, []);
    });

    test('the admin rotates the secret (both sign during the overlap), deactivates the webhook and deletes it', async () => {
      const card = page.getByTestId(`webhook-${receiver.url}`);
      await card.getByRole('button', { name: 'Rotate secret' }).click();
      const rotated = (await page.getByTestId('webhook-secret').locator('code').textContent())!.trim();
      assert.match(rotated, /^whsec_/);
      await page.getByRole('button', { name: 'Done' }).click();

      const before = receiver.received.length;
      await card.getByRole('button', { name: 'Send a test event' }).click();
      await card.getByTestId('delivery-webhook.test').getByText('delivered').nth(1).waitFor();
      assert.equal(receiver.received.length, before + 1);
      const after = receiver.received[before]!;
      // During the overlap both the new secret and the one it replaced sign.
      assert.notEqual(rotated, firstSecret);
      assert.deepEqual(verifiedBy([rotated, firstSecret], after), [rotated, firstSecret]);

      await card.getByRole('button', { name: 'Deactivate' }).click();
      await card.getByText('Inactive', { exact: true }).waitFor();

      page.once('dialog', (dialog) => void dialog.accept());
      await card.getByRole('button', { name: 'Delete' }).click();
      await card.waitFor({ state: 'detached' });
      assert.deepEqual(problems, []);
    });
  });
