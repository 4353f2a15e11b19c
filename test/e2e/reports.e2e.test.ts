/**
 * The Reports page in a real browser (Debian's Chromium through playwright-core): an admin reads
 * the outstanding-by-customer chart's table, sees it change live when a payment is recorded, and
 * follows the customer's bar to the project list filtered to that customer's verified PIs; the
 * dashboard's headline figures lead there. Axe finds nothing serious; nothing scrolls sideways at
 * 390 px, and every table fits its box at 1280 and 390 px; screenshots land in docs/screenshots.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Page } from 'playwright-core';
import { ADMIN, type BrowserTest, assertAccessible, heading, screenshot, sidewaysOverflow, startBrowserTest } from '../helpers/browser.js';
import type { Client } from '../helpers/service.js';
import { browserTestsSkipped } from './build.js';

const skip = browserTestsSkipped('test/e2e/reports.e2e.test.ts');

/** A table's body cells, row by row (the row header first). */
const tableRows = (page: Page, id: string) =>
  page.getByTestId(id).evaluate((table) => [...table.querySelectorAll('tbody tr')].map((tr) => [...tr.children].map((c) => c.textContent!.trim())));

/** The tables wider than their box (each scrolls inside .report-table): their ids with both widths. */
const tablesOverflowing = (page: Page) =>
  page.evaluate(() =>
    [...document.querySelectorAll<HTMLElement>('.report-table')]
      .filter((box) => box.scrollWidth > box.clientWidth + 1)
      .map((box) => `${box.querySelector('table')?.id ?? '?'}: ${box.scrollWidth} > ${box.clientWidth}`),
  );

if (skip) test('the Reports page in a browser', { skip }, () => {});
else
  describe('the Reports page in a browser', { timeout: 300_000 }, () => {
    let t: BrowserTest;
    let page: Page;
    let admin: Client;
    let acmeId = '';
    const projectIds: string[] = [];
    const problems: string[] = [];

    before(async () => {
      t = await startBrowserTest({ admin: ADMIN, env: { CURRENCY: 'INR' } });
      admin = await t.svc.login(ADMIN.email, ADMIN.password);
      const post = async (path: string, body: unknown, status = 200) => {
        const res = await admin.post(path, body);
        assert.equal(res.status, status, res.text);
        return res.body;
      };
      acmeId = (await post('/api/customers', { name: 'Acme Prints' }, 201)).id;
      // Two verified PIs of Acme (1,250.00 and 500.00), one delivered, 250.00 received: Acme owes 1,500.00.
      for (const [name, amount, deliver] of [['Annual report', 125_000, true], ['Posters', 50_000, false]] as const) {
        const { id } = await post('/api/projects', { name, customerId: acmeId }, 201);
        projectIds.push(id);
        await post(`/api/projects/${id}/approve`, {});
        await post(`/api/projects/${id}/submit-pi`, { number: `PI-${name}`, amount });
        await post(`/api/projects/${id}/verify-pi`, {});
        if (deliver) for (const action of ['start-printing', 'dispatch', 'deliver']) await post(`/api/projects/${id}/${action}`, {});
      }
      const today = new Date().toISOString().slice(0, 10);
      await post(`/api/projects/${projectIds[0]}/payments`, { amount: 25_000, receivedOn: today }, 201);
      // One of another customer, still awaiting its PI: not in the list the bar leads to.
      await post('/api/projects', { name: 'Unrelated flyers' }, 201);
      page = await t.window({ locale: 'en-IN', timezoneId: 'UTC', problems });
      await t.signIn(page, ADMIN);
    });
    after(() => t?.close());

    test("the dashboard's headline figures lead to Reports; the outstanding chart's table reads the figures", async () => {
      const headline = page.getByTestId('report-headline');
      await headline.getByTestId('headline-outstanding').getByText('₹1,500.00').waitFor();
      await headline.getByTestId('headline-invoiced').getByText('₹0.00').waitFor();
      await screenshot(page, 'dashboard-report-headline-1280');
      await headline.getByRole('link', { name: 'Outstanding' }).click();
      await heading(page, 'Reports').waitFor();
      await page.getByRole('radio', { name: 'This month' }).waitFor();
      assert.equal(await page.getByRole('radio', { name: 'This month' }).isChecked(), true);
      await page.getByTestId('table-outstanding').getByText('Acme Prints').waitFor();
      assert.deepEqual(await tableRows(page, 'table-outstanding'), [['Acme Prints', '₹1,500.00', '0']]);
      await page.getByTestId('table-orders').waitFor();
      const orders = await tableRows(page, 'table-orders');
      assert.deepEqual(orders.at(-1)!.slice(1), ['3', '1'], 'three created this month, one delivered');
      assert.deepEqual(await tableRows(page, 'table-aging'), [['0-30', '₹1,500.00'], ['31-60', '₹0.00'], ['61-90', '₹0.00'], ['90+', '₹0.00']]);
      await assertAccessible(page, 'Reports');
      assert.deepEqual(await tablesOverflowing(page), [], 'every table fits its column at 1280 px');
      await screenshot(page, 'reports-1280');
    });

    test('a payment recorded elsewhere refreshes the figures live', async () => {
      const res = await admin.post(`/api/projects/${projectIds[1]}/payments`, { amount: 10_000, receivedOn: new Date().toISOString().slice(0, 10) });
      assert.equal(res.status, 201, res.text);
      await page.getByTestId('table-outstanding').getByText('₹1,400.00').waitFor();
    });

    test("following the customer's bar opens the project list with its filters", async () => {
      const canvas = page.getByTestId('chart-outstanding').locator('canvas');
      await canvas.scrollIntoViewIfNeeded();
      const box = (await canvas.boundingBox())!;
      // One horizontal bar, as long as the axis: its middle is the middle of the plot.
      await page.mouse.click(box.x + box.width * 0.5, box.y + box.height * 0.45);
      await page.waitForURL((url) => url.pathname === '/projects' && url.searchParams.get('customerId') === acmeId && url.searchParams.get('piStatus') === 'VERIFIED');
      await page.getByRole('link', { name: 'Posters' }).waitFor();
      await page.getByRole('link', { name: 'Annual report' }).waitFor();
      assert.equal(await page.getByRole('link', { name: 'Unrelated flyers' }).count(), 0);
    });

    test('readable on a 390 px phone: charts above their tables, nothing scrolls sideways', async () => {
      const phone = await t.window({ locale: 'en-IN', viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true, problems });
      await t.signIn(phone, ADMIN);
      await phone.goto(`${t.svc.url}/reports?range=this-month`);
      await phone.getByTestId('table-outstanding').getByText('Acme Prints').waitFor();
      assert.equal(await sidewaysOverflow(phone), 0);
      assert.deepEqual(await tablesOverflowing(phone), [], 'every table fits the phone’s width');
      await screenshot(phone, 'reports-390');
      await phone.getByRole('radio', { name: 'Custom' }).check();
      await phone.getByLabel('From').waitFor();
      assert.deepEqual(problems, []);
    });
  });
