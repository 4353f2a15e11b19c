/**
 * Comments in a real browser (Debian's Chromium through playwright-core), issue 28: a CLIENT who
 * owns a project and an ADMIN talk in two windows, each comment appearing live in the other; the
 * admin's internal note never shows in the CLIENT's window; links are links, and markup is text.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Page } from 'playwright-core';
import { type BrowserTest, screenshot, startBrowserTest } from '../helpers/browser.js';
import type { TestService } from '../helpers/service.js';
import { browserTestsSkipped } from './build.js';

const skip = browserTestsSkipped('test/e2e/comments.e2e.test.ts');

if (skip) test('comments in a browser', { skip }, () => {});
else
  describe('comments in a browser: a CLIENT and an ADMIN, live in two windows', { timeout: 300_000 }, () => {
    let t: BrowserTest;
    let svc: TestService;
    const problems: string[] = [];
    let projectId: string;

    /** A window of its own, signed in through the form. */
    async function windowFor(email: string, password: string): Promise<Page> {
      const page = await t.window({ locale: 'en-GB', problems, who: email });
      await t.signIn(page, { email, password });
      await page.goto(`${svc.url}/projects/${projectId}`);
      await page.getByRole('heading', { name: 'Comments' }).waitFor();
      return page;
    }

    const thread = (page: Page) => page.getByRole('list', { name: 'Comments, oldest first' });
    async function post(page: Page, text: string, internal = false) {
      await page.getByLabel('Add a comment').fill(text);
      if (internal) await page.getByLabel('Internal note (not shown to the customer)').check();
      await page.getByRole('button', { name: internal ? 'Post internal note' : 'Post comment' }).click();
      await thread(page).getByText(text.split(' https')[0]!).waitFor();
    }

    before(async () => {
      t = await startBrowserTest();
      svc = t.svc;
    });
    after(() => t?.close());

    test('each comment appears in the other window without a reload; the internal note only in the admin’s', async () => {
      const client = await svc.createUser({ role: 'CLIENT', name: 'Cleo Client', email: 'cleo@example.com' });
      const admin = await svc.createUser({ role: 'ADMIN', name: 'Ann Admin', email: 'ann@example.com' });
      projectId = (await svc.createProject(client.user.id, { name: 'Wedding cards' })).id;
      const cleo = await windowFor(client.email, client.password);
      const ann = await windowFor(admin.email, admin.password);
      await cleo.getByText('No comments yet.').waitFor();

      // A CLIENT is not offered internal notes; the admin is.
      assert.equal(await cleo.getByLabel('Internal note (not shown to the customer)').count(), 0);
      assert.equal(await ann.getByLabel('Internal note (not shown to the customer)').count(), 1);

      await post(cleo, 'Can the proof be <b>ready</b> by Friday? See https://example.com/proof.pdf');
      // Live in the admin's window.
      const received = thread(ann).getByTestId('comment').filter({ hasText: 'Can the proof be' });
      await received.waitFor();
      assert.match((await received.textContent()) ?? '', /Cleo Client/);
      const link = received.getByRole('link', { name: 'https://example.com/proof.pdf' });
      assert.equal(await link.getAttribute('href'), 'https://example.com/proof.pdf');
      assert.equal(await link.getAttribute('rel'), 'noopener noreferrer nofollow');
      assert.equal(await link.getAttribute('target'), '_blank');
      // Markup someone wrote is shown as text, never made into elements.
      assert.equal(await received.locator('b').count(), 0);
      assert.ok(((await received.textContent()) ?? '').includes('<b>ready</b>'));

      await post(ann, 'Check the paper stock before promising', true);
      const note = thread(ann).getByTestId('comment').filter({ hasText: 'Check the paper stock' });
      await note.getByText('Internal', { exact: true }).waitFor();

      await post(ann, 'Yes, the proof will be ready on Friday.');
      await thread(cleo).getByText('Yes, the proof will be ready on Friday.').waitFor();
      // By the time the reply after it has arrived, the note would have too: it is not there.
      assert.equal(await cleo.getByText('Check the paper stock').count(), 0);
      assert.equal(await cleo.getByText('Internal', { exact: true }).count(), 0);
      assert.deepEqual(
        await thread(cleo).getByTestId('comment').locator('.comment-body').allTextContents(),
        ['Can the proof be <b>ready</b> by Friday? See https://example.com/proof.pdf', 'Yes, the proof will be ready on Friday.'],
      );
      // Nor after a reload, nor in the project's activity.
      await cleo.reload();
      await thread(cleo).getByText('Yes, the proof will be ready on Friday.').waitFor();
      assert.equal(await cleo.getByText('Check the paper stock').count(), 0);
      assert.equal(await thread(ann).getByTestId('comment').count(), 3);
      await screenshot(ann, 'comments');
      assert.deepEqual(problems, []);
    });
  });
