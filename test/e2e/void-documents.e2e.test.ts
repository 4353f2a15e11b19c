import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { Page } from 'playwright-core';
import { type BrowserTest, screenshot, seedPocProject, settles, startBrowserTest } from '../helpers/browser.js';
import type { TestService } from '../helpers/service.js';
import { browserTestsSkipped } from './build.js';

/**
 * Withdrawing a wrong document in a real browser (Debian's Chromium through playwright-core): the
 * uploader withdraws it with a reason, it folds away under "Withdrawn (1)" with who, when and why,
 * its address answers 404, and "Upload a replacement" offers the same type and uploads the right one.
 */

const skip = browserTestsSkipped('test/e2e/void-documents.e2e.test.ts');

const POC = { name: 'Priya Shah', email: 'priya.void@example.com', password: 'priya-void-42' };

if (skip) test('withdrawing a document in a browser', { skip }, () => {});
else
  describe('withdrawing a document in a browser', { timeout: 300_000 }, () => {
    let t: BrowserTest;
    let svc: TestService;
    let page: Page;
    let projectId: string;
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'void-e2e-'));

    before(async () => {
      t = await startBrowserTest();
      svc = t.svc;
      projectId = await seedPocProject(svc, POC, { name: 'Wrong file project', status: 'DISPATCHED', piStatus: 'VERIFIED' });
      page = await t.window({ locale: 'en-GB', timeout: 60_000 });
      await t.signIn(page, POC);
    });
    after(async () => {
      await t?.close();
      fs.rmSync(dir, { recursive: true, force: true });
    });

    test('voiding and replacing a document', async () => {
      const wrong = path.join(dir, 'po-other-customer.pdf');
      fs.writeFileSync(wrong, Buffer.concat([Buffer.from('%PDF-1.4\n'), randomBytes(20_000)]));
      const right = path.join(dir, 'po-4711.pdf');
      fs.writeFileSync(right, Buffer.concat([Buffer.from('%PDF-1.4\n'), randomBytes(20_000)]));

      await page.goto(`${svc.url}/projects/${projectId}`);
      await page.locator('#type-PO').check();
      await page.locator('#upload-file').setInputFiles(wrong);
      await page.getByRole('button', { name: 'Upload', exact: true }).click();
      const pos = page.getByTestId('files-PO');
      await pos.getByRole('link', { name: 'po-other-customer.pdf' }).waitFor();
      const [record] = await svc.deps.store.files.listForProject(projectId);
      assert.ok(record);
      assert.equal((await fetch(record.url)).status, 200);

      // Withdraw it, with a reason.
      await pos.getByRole('button', { name: 'Withdraw po-other-customer.pdf' }).click();
      await pos.getByLabel('Why is it withdrawn?').fill('Uploaded to the wrong customer');
      await pos.getByRole('button', { name: 'Withdraw document' }).click();

      // Folded away under "Withdrawn (1)", with who, when and why; no longer a link, no longer counted.
      const withdrawn = page.getByTestId('withdrawn-PO');
      await withdrawn.getByText('Withdrawn (1)').waitFor();
      assert.equal(await pos.getByRole('link', { name: 'po-other-customer.pdf' }).count(), 0);
      assert.equal(await pos.locator('h3 .count').innerText(), '0');
      await withdrawn.getByText('Withdrawn (1)').click();
      const text = await withdrawn.innerText();
      assert.match(text, /po-other-customer\.pdf/);
      assert.match(text, /Withdrawn by You · /);
      assert.match(text, /Reason: Uploaded to the wrong customer/);
      assert.equal((await fetch(record.url)).status, 404, 'its address answers 404');
      await page.getByText('withdrew a PO').waitFor();
      await screenshot(page, 'withdrawn-document');

      // Upload a replacement: the same type is chosen and the file picker is next.
      await page.locator('#type-INVOICE').check();
      await withdrawn.getByRole('button', { name: 'Upload a replacement' }).click();
      // Both follow the click (a render, then an effect): read through waiting, never once right after it.
      await settles(() => page.locator('#type-PO').isChecked(), true, 'PO is chosen');
      await settles(() => page.evaluate(() => document.activeElement?.id), 'upload-file', 'the file picker has the focus');
      await page.locator('#upload-file').setInputFiles(right);
      await page.getByRole('button', { name: 'Upload', exact: true }).click();
      await pos.getByRole('link', { name: 'po-4711.pdf' }).waitFor();
      assert.equal(await pos.locator('h3 .count').innerText(), '1');
      const files = await svc.deps.store.files.listForProject(projectId);
      assert.deepEqual(
        files.map((f) => [f.filename, f.type, f.voidedAt === null]),
        [
          ['po-4711.pdf', 'PO', true],
          ['po-other-customer.pdf', 'PO', false],
        ],
      );
    });
  });
