import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Page } from 'playwright-core';
import { type BrowserTest, screenshot, seedPocProject, startBrowserTest } from '../helpers/browser.js';
import { barsPdf } from '../helpers/pdf.js';
import type { TestService } from '../helpers/service.js';
import { browserTestsSkipped } from './build.js';

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
    let t: BrowserTest;
    let svc: TestService;
    let page: Page;
    let projectId: string;

    before(async () => {
      t = await startBrowserTest();
      svc = t.svc;
      projectId = await seedPocProject(svc, POC, { name: 'Catalogue', status: 'APPROVED', piStatus: 'VERIFIED' });
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
      page = await t.window({ viewport: { width: 390, height: 844 }, deviceScaleFactor: 2, locale: 'en-GB', timeout: 60_000 });
      await t.signIn(page, POC);
    });
    after(() => t?.close());

    test('a thumbnail for the PDF, the type and size for the text; the viewer pages through at 390 px', async () => {
      await page.goto(`${svc.url}/projects/${projectId}`);
      const thumb = page.getByTestId('thumb');
      // Thumbnails load lazily: on a phone the documents card is below the fold, so scroll to it as a person would.
      await thumb.first().waitFor({ state: 'attached' });
      await thumb.first().evaluate((img) => img.scrollIntoView());
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
      await screenshot(page, 'preview-viewer-390', false);
      await viewer.getByRole('button', { name: 'Close' }).click();
      await viewer.waitFor({ state: 'detached' });
    });
  });
