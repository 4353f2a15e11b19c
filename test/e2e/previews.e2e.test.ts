import assert from 'node:assert/strict';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { type Browser, type Page, chromium } from 'playwright-core';
import { barsPdf } from '../helpers/pdf.js';
import { type TestService, startTestService } from '../helpers/service.js';
import { CHROMIUM, SCREENSHOTS, browserTestsSkipped, ensureFreshBuild } from './build.js';

/**
 * Document previews in a real browser on a 390 px phone screen: a PDF's thumbnail loads, a document
 * without a preview shows its type and size instead, and the viewer pages through the PDF without
 * the page growing wider than the screen.
 */

const skip = browserTestsSkipped('test/e2e/previews.e2e.test.ts');

const POC = { name: 'Priya Shah', email: 'priya.previews@example.com', password: 'priya-previews-42' };

if (skip) test('previews in a browser', { skip }, () => {});
else
  describe('previews in a browser', { timeout: 300_000 }, () => {
    let svc: TestService;
    let browser: Browser;
    let page: Page;
    let projectId: string;

    before(async () => {
      await ensureFreshBuild();
      svc = await startTestService();
      const poc = await svc.createUser({ role: 'POC', ...POC });
      projectId = (await svc.createProject(poc.user.id, { name: 'Catalogue', status: 'APPROVED', piStatus: 'VERIFIED' })).id;
      const client = await svc.login(POC.email, POC.password);
      for (const [data, filename, type] of [
        [barsPdf(3), 'catalogue.pdf', 'application/pdf'],
        [Buffer.from('Quantity: 5000\n'), 'notes.txt', 'text/plain'],
      ] as const) {
        const res = await client.upload([
          ['projectId', projectId],
          ['fileType', 'PO'],
          ['file', { data, filename, type }],
        ]);
        assert.equal(res.status, 201, res.text);
      }
      browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run'] });
      const context = await browser.newContext({ viewport: { width: 390, height: 844 }, deviceScaleFactor: 2, locale: 'en-GB' });
      context.setDefaultTimeout(60_000);
      page = await context.newPage();
      await page.goto(svc.url);
      await page.getByLabel('Email').fill(POC.email);
      await page.getByLabel('Password').fill(POC.password);
      await page.getByRole('button', { name: 'Sign in' }).click();
      await page.getByRole('heading', { level: 1, name: 'Dashboard' }).waitFor();
    });
    after(async () => {
      await browser?.close();
      await svc?.close();
    });

    test('a thumbnail for the PDF, the type and size for the text; the viewer pages through at 390 px', async () => {
      await page.goto(`${svc.url}/projects/${projectId}`);
      const thumb = page.getByTestId('thumb');
      await thumb.first().waitFor();
      await page.waitForFunction(() => [...document.querySelectorAll<HTMLImageElement>('[data-testid="thumb"]')].every((i) => i.complete && i.naturalWidth > 0));
      assert.equal(await thumb.count(), 1);
      const icon = page.getByTestId('thumb-icon');
      await icon.waitFor();
      assert.match(await icon.innerText(), /TXT\s+15 bytes/);

      await page.getByRole('button', { name: 'Preview catalogue.pdf' }).click();
      const viewer = page.getByTestId('viewer');
      await viewer.getByText('Page 1 of 3').waitFor();
      await viewer.getByRole('img', { name: 'Page 1 of catalogue.pdf' }).waitFor();
      await viewer.getByRole('button', { name: 'Next' }).click();
      await viewer.getByText('Page 2 of 3').waitFor();
      const shown = viewer.getByRole('img', { name: 'Page 2 of catalogue.pdf' });
      await shown.waitFor();
      await page.waitForFunction(() => {
        const img = document.querySelector<HTMLImageElement>('[data-testid="viewer"] img');
        return img !== null && img.complete && img.naturalWidth > 0;
      });
      const box = await shown.boundingBox();
      assert.ok(box && box.width <= 390 && box.width > 200, `the page is ${box?.width} px wide`);
      assert.ok(await page.evaluate(() => document.documentElement.scrollWidth <= 390), 'no sideways scrolling');
      await page.screenshot({ path: path.join(SCREENSHOTS, 'preview-viewer-390.png') });
      await viewer.getByRole('button', { name: 'Close' }).click();
      await viewer.waitFor({ state: 'detached' });
    });
  });
