/**
 * Money documents in a real browser (issue 37): an ADMIN prices a job's lines on the lines editor (the
 * totals follow as the prices are typed), downloads its PI (the PDF's text read back: both GSTINs,
 * the place of supply, the totals, the amount in words), marks it dispatched, issues its tax invoice
 * and finds it in the Invoices register. A CLIENT editing their own job is not asked for prices. The
 * Shop settings page's Save is the primary button and its fields name their help text; the invoice's
 * form is not printed. Axe clean, nothing scrolls sideways, at 1280 px and 390 px; screenshots in
 * docs/screenshots.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Locator, Page } from 'playwright-core';
import { gstinCheckCharacter } from '../../src/domain/gstin.js';
import { ADMIN, type BrowserTest, SESSION_CHECK, assertAccessible, descriptionOf, heading, screenshot, settles, sidewaysOverflow, startBrowserTest, watch } from '../helpers/browser.js';
import { pdfText } from '../helpers/pdf-text.js';
import type { Client, TestService } from '../helpers/service.js';
import { browserTestsSkipped } from './build.js';

const skip = browserTestsSkipped('test/e2e/money.e2e.test.ts');

const gstin = (first14: string) => first14 + gstinCheckCharacter(first14)!;
const SHOP_GSTIN = gstin('29ABCDE1234F1Z'); // Karnataka
const CUSTOMER_GSTIN = gstin('27AAPFU0939F1Z'); // Maharashtra: IGST
const PROJECT = 'Wedding cards for Sharma';
/** An element's text without its spaces (the currency's sign may be followed by one, or a narrow one). */
const textOf = async (l: Locator) => ((await l.textContent()) ?? '').replace(/\s/g, '');
const CLIENT = { name: 'Chitra Client', email: 'chitra@example.com', password: 'chitra-pass-123' };

if (skip) test('money documents in a browser', { skip }, () => {});
else
  describe('money documents in a browser', { timeout: 600_000 }, () => {
    let t: BrowserTest;
    let svc: TestService;
    let admin: Page;
    let adminApi: Client;
    let projectId: string;
    const problems: string[] = [];

    const windowFor = async (who: string, width = 1280) => {
      const page = await t.window({ viewport: { width, height: 900 }, locale: 'en-GB' });
      watch(page, problems, { who, expected: [SESSION_CHECK] });
      return page;
    };
    const atBothWidths = async (page: Page, name: string) => {
      for (const width of [1280, 390]) {
        await page.setViewportSize({ width, height: 900 });
        assert.equal(await sidewaysOverflow(page), 0, `${name} at ${width} px scrolls sideways`);
        await assertAccessible(page, `${name} at ${width} px`);
        await screenshot(page, `${name}-${width}`);
      }
      await page.setViewportSize({ width: 1280, height: 900 });
    };

    before(async () => {
      t = await startBrowserTest({ admin: ADMIN });
      svc = t.svc;
      adminApi = await svc.login(ADMIN.email, ADMIN.password);
      assert.equal((await adminApi.patch('/api/settings/shop', { name: 'Sharma Printers', address: '12 MG Road, Bengaluru 560001', gstin: SHOP_GSTIN, bankDetails: 'HDFC Bank, A/c 50200012345678, IFSC HDFC0001234' })).status, 200);
      const customer = await adminApi.post('/api/customers', { name: 'Pune Weddings LLP', gstin: CUSTOMER_GSTIN, billingAddress: 'Plot 4, MIDC, Pune 411019' });
      assert.equal(customer.status, 201, customer.text);
      const { user: poc } = await svc.createUser({ role: 'POC' });
      projectId = (await svc.createProject(poc.id, { name: PROJECT, status: 'PRINTING', piStatus: 'VERIFIED', customerId: customer.body.id })).id;
      const lines = [
        { description: 'Wedding cards, 350 gsm, gold foil', quantity: 500, unit: 'pcs' },
        { description: 'Envelopes, 9 × 4', quantity: 500, unit: 'pcs' },
      ];
      assert.equal((await adminApi.patch(`/api/projects/${projectId}`, { items: lines })).status, 200);
      admin = await windowFor('admin');
      await t.signIn(admin, ADMIN);
    });
    after(() => t?.close());

    test('an ADMIN prices the lines: the totals follow the prices as they are typed', async () => {
      await admin.goto(`${svc.url}/projects/${projectId}`);
      await heading(admin, PROJECT).waitFor();
      await admin.getByRole('button', { name: 'Edit details' }).click();
      const form = admin.getByRole('form', { name: 'Edit details' });
      const totals = form.getByTestId('live-totals');
      await settles(() => totals.textContent(), 'Totals appear when every line has a unit price and a GST rate.');
      const line = (n: number) => form.getByRole('group', { name: `Line ${n}` });
      await line(1).getByLabel('Unit price, INR (optional)').fill('12.50');
      await line(1).getByLabel('HSN/SAC (optional)').fill('4911');
      await line(1).getByLabel('GST rate (optional)').selectOption('12');
      await line(2).getByLabel('Unit price, INR (optional)').fill('2');
      await line(2).getByLabel('HSN/SAC (optional)').fill('4817');
      await line(2).getByLabel('GST rate (optional)').selectOption('18');
      // 500 × 12.50 = 6,250.00 at 12 % IGST (750.00); 500 × 2 = 1,000.00 at 18 % (180.00): 8,180.00.
      const total = form.getByTestId('live-total');
      await settles(() => textOf(total), '₹8,180.00');
      // 500 × 2.50 = 1,250.00 at 18 % (225.00): 7,500.00 + 975.00 = 8,475.00.
      await line(2).getByLabel('Unit price, INR (optional)').fill('2.5');
      await settles(() => textOf(total), '₹8,475.00', 'the total follows the price as it is typed');
      await form.getByRole('button', { name: 'Save' }).click();
      await settles(() => textOf(admin.getByTestId('project-total')), '₹8,475.00');
      await atBothWidths(admin, 'money-project-priced');
    });

    test('the PI, downloaded from the project page, says who, where and how much', async () => {
      const href = await admin.getByTestId('pi-pdf').getAttribute('href');
      const res = await admin.request.get(new URL(href!, svc.url).href);
      assert.equal(res.status(), 200);
      assert.equal(res.headers()['content-type'], 'application/pdf');
      const text = await pdfText(await res.body());
      for (const words of [
        'PROFORMA INVOICE',
        `GSTIN: ${SHOP_GSTIN}`,
        `GSTIN: ${CUSTOMER_GSTIN}`,
        'Place of supply: Maharashtra (27)',
        'Wedding cards, 350 gsm, gold foil',
        '7,500.00',
        '975.00',
        '8,475.00',
        'Eight Thousand Four Hundred Seventy-Five Rupees Only',
        'HDFC0001234',
      ]) {
        assert.ok(text.includes(words), `${words} in ${text}`);
      }
    });

    test('dispatched, its tax invoice issued, it is in the Invoices register', async () => {
      await admin.getByRole('button', { name: 'Mark dispatched' }).click();
      const issue = admin.getByRole('button', { name: 'Issue tax invoice' });
      await issue.waitFor();
      await atBothWidths(admin, 'money-ready-to-invoice');
      // On paper the invoice's form is left out (print.css).
      await admin.emulateMedia({ media: 'print' });
      assert.equal(await admin.locator('.invoice-form').isVisible(), false, 'the invoice form is not printed');
      await admin.emulateMedia({ media: 'screen' });
      await issue.click();
      const invoice = admin.getByTestId('invoice');
      await invoice.waitFor();
      const number = /INV\/\d{4}-\d{2}\/0001/.exec((await invoice.textContent()) ?? '')?.[0];
      assert.ok(number, (await invoice.textContent()) ?? '');
      await admin.getByRole('link', { name: 'Invoices', exact: true }).click();
      await heading(admin, 'Invoices').waitFor();
      const row = admin.getByTestId('invoices').getByRole('row').filter({ hasText: number });
      await row.waitFor();
      const cells = (await row.textContent()) ?? '';
      for (const words of ['Pune Weddings LLP', CUSTOMER_GSTIN, '7,500.00', '975.00', '8,475.00']) assert.ok(cells.includes(words), `${words} in ${cells}`);
      // The invoice's date as every other date on screen, not as the API writes it.
      assert.doesNotMatch(cells, /\d{4}-\d{2}-\d{2}/);
      assert.match((await row.locator('time').getAttribute('datetime')) ?? '', /^\d{4}-\d{2}-\d{2}$/);
      await atBothWidths(admin, 'money-invoices');
    });

    test('Shop settings: Save is the primary button, each field names its help text', async () => {
      await admin.goto(`${svc.url}/settings/shop`);
      await heading(admin, 'Shop settings').waitFor();
      const save = admin.getByRole('button', { name: 'Save' });
      assert.match((await save.getAttribute('class')) ?? '', /\bprimary\b/);
      assert.match(await descriptionOf(admin.getByLabel('GSTIN')), /first two digits are the shop’s state/);
      assert.match(await descriptionOf(admin.getByLabel('Invoice prefix')), /1 to 10 letters/);
      assert.equal(await admin.getByLabel('Phone').getAttribute('aria-describedby'), null, 'no help text, nothing named');
      await admin.getByLabel('Phone').fill('+91 80 1234 5678');
      await save.click();
      await admin.getByRole('status').filter({ hasText: 'Saved.' }).waitFor();
      await atBothWidths(admin, 'money-shop-settings');
    });

    test('a CLIENT editing their job is not asked to price it', async () => {
      const { user } = await svc.createUser({ role: 'CLIENT', ...CLIENT });
      const own = await svc.createProject(user.id, { name: 'Visiting cards for Chitra', status: 'REQUESTED' });
      assert.equal((await adminApi.patch(`/api/projects/${own.id}`, { items: [{ description: 'Visiting cards', quantity: 200, unit: 'pcs' }] })).status, 200);
      const client = await windowFor('client', 390);
      await t.signIn(client, CLIENT);
      await client.goto(`${svc.url}/projects/${own.id}`);
      await heading(client, 'Visiting cards for Chitra').waitFor();
      await client.getByTestId('money').getByText('The shop has not priced this job yet.').waitFor();
      await client.getByRole('button', { name: 'Edit details' }).click();
      const form = client.getByRole('form', { name: 'Edit details' });
      await settles(() => form.getByTestId('live-totals').textContent(), 'The shop has not priced this job yet.');
      assert.equal(await form.getByLabel('Unit price, INR (optional)').count(), 0);
      assert.equal(await form.getByLabel('GST rate (optional)').count(), 0);
      assert.equal(await sidewaysOverflow(client), 0);
      await assertAccessible(client, 'the CLIENT’s lines editor at 390 px');
      await screenshot(client, 'money-client-lines-390');
      // Saving sends the lines back without prices and changes nothing else.
      await form.getByRole('button', { name: 'Save' }).click();
      await form.waitFor({ state: 'detached' });
      const after = (await adminApi.get(`/api/projects/${own.id}`)).body as { items: { unitPrice: number | null; description: string }[] };
      assert.deepEqual(after.items.map((l) => [l.description, l.unitPrice]), [['Visiting cards', null]]);
    });

    test('no console errors or failed loads', () => {
      assert.deepEqual(problems, []);
    });
  });
