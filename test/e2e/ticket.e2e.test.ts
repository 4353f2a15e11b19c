/**
 * The job ticket in a real browser (issue 35, item 5): the project page's "Print job ticket"
 * downloads the ticket's PDF (read back: the job's number and its lines), a CLIENT is not offered
 * it, and the project page printed from the browser (page.pdf, the print stylesheet) carries the job
 * with every line's every column and none of the app's chrome. Screenshots at 1280 and 390 px.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { after, before, describe, test } from 'node:test';
import type { Page } from 'playwright-core';
import { ADMIN, type BrowserTest, SESSION_CHECK, screenshot, sidewaysOverflow, startBrowserTest } from '../helpers/browser.js';
import { hasWordLetters, pdfPages } from '../helpers/pdf-text.js';
import type { Client, TestService } from '../helpers/service.js';
import { browserTestsSkipped } from './build.js';

const skip = browserTestsSkipped('test/e2e/ticket.e2e.test.ts');

const CLIENT = { name: 'Carl Client', email: 'carl@example.com', password: 'carl-pass-123' };
const CUSTOMER = 'शर्मा Traders';

const line = (i: number) => ({
  description: `Brochure ${i} tri-fold`,
  quantity: 500 * i,
  unit: 'pcs',
  size: `A4-${i} folded`,
  stock: `Gloss ${130 + i} gsm`,
  colours: `CMYK-${i} both sides`,
  finishing: `Crease fold ${i}`,
  notes: `Pack in tens ${i}`,
});
const LINES = Array.from({ length: 12 }, (_, i) => line(i + 1));
const squeeze = (s: string) => s.replace(/\s+/g, '');

if (skip) test('the job ticket in a browser', { skip }, () => {});
else
  describe('the job ticket in a browser', { timeout: 600_000 }, () => {
    let t: BrowserTest;
    let svc: TestService;
    let admin: Page;
    let adminApi: Client;
    let project: { id: string; number: number; name: string };
    const problems: string[] = [];

    before(async () => {
      t = await startBrowserTest({ admin: ADMIN });
      svc = t.svc;
      adminApi = await svc.login(ADMIN.email, ADMIN.password);
      const customer = await adminApi.post('/api/customers', { name: CUSTOMER });
      assert.equal(customer.status, 201, customer.text);
      const client = await svc.createUser({ role: 'CLIENT', ...CLIENT });
      assert.equal((await adminApi.patch(`/api/team/${client.user.id}`, { customerId: customer.body.id })).status, 200);
      const created = await adminApi.post('/api/projects', { name: 'Festival brochures', customerId: customer.body.id, items: LINES, dueDate: '2026-12-03', reference: 'PO-55' });
      assert.equal(created.status, 201, created.text);
      project = created.body;
      admin = await t.window({ viewport: { width: 1280, height: 800 }, acceptDownloads: true, problems, who: 'admin', expected: [SESSION_CHECK] });
      await t.signIn(admin, ADMIN);
    });
    after(() => t?.close());

    test('"Print job ticket" downloads the ticket: a PDF with the job\'s number, customer and every line', async () => {
      await admin.goto(`${svc.url}/projects/${project.id}`);
      const button = admin.getByRole('link', { name: 'Print job ticket' });
      await button.waitFor();
      const [download] = await Promise.all([admin.waitForEvent('download'), button.click()]);
      assert.equal(download.suggestedFilename(), `ticket-${project.id}.pdf`);
      const bytes = fs.readFileSync((await download.path())!);
      assert.equal(bytes.subarray(0, 5).toString('latin1'), '%PDF-');
      const text = (await pdfPages(bytes)).join('\n');
      for (const word of [`#${project.number}`, project.name, 'PO-55', '3 Dec 2026', 'Traders']) assert.ok(text.includes(word), `${word} in ${text}`);
      assert.ok(hasWordLetters(text, 'शर्मा'));
      for (const l of LINES) for (const cell of [l.description, l.size, l.stock, l.colours, l.finishing, l.notes]) assert.ok(text.includes(cell), cell);
      await screenshot(admin, 'project-ticket-1280', false);
      assert.deepEqual(problems, []);
    });

    test('at 390 px the button wraps under the heading; nothing scrolls sideways; a CLIENT is not offered the ticket', async () => {
      await admin.setViewportSize({ width: 390, height: 844 });
      await admin.reload();
      await admin.getByRole('link', { name: 'Print job ticket' }).waitFor();
      assert.equal(await sidewaysOverflow(admin), 0);
      await admin.getByTestId('job').screenshot({ path: 'docs/screenshots/project-ticket-390.png' });
      await admin.setViewportSize({ width: 1280, height: 800 });
      const carl = await t.window({ problems, who: 'client', expected: [SESSION_CHECK] });
      await t.signIn(carl, CLIENT);
      await carl.goto(`${svc.url}/projects/${project.id}`);
      await carl.getByTestId('job-lines').waitFor();
      assert.equal(await carl.getByRole('link', { name: 'Print job ticket' }).count(), 0);
      assert.deepEqual(problems, []);
    });

    test('the project page printed from the browser shows the job, every line\'s every column, and not the app\'s chrome', async () => {
      await admin.goto(`${svc.url}/projects/${project.id}`);
      await admin.getByTestId('job-lines').waitFor();
      const pdf = await admin.pdf({ format: 'A4', printBackground: true });
      const pages = await pdfPages(pdf);
      const text = squeeze(pages.join('\n'));
      for (const header of ['Description', 'Quantity', 'Size', 'Stock', 'Colours', 'Finishing', 'Notes']) assert.ok(text.toLowerCase().includes(header.toLowerCase()), `${header} in ${text}`);
      for (const l of LINES) {
        for (const cell of [l.description, `${l.quantity.toLocaleString('en-IN')} pcs`, l.size, l.stock, l.colours, l.finishing, l.notes]) {
          assert.ok(text.includes(squeeze(cell)), `${cell} printed`);
        }
      }
      for (const chrome of ['Signout', 'Postcomment', 'Addacomment', 'Printjobticket']) assert.ok(!text.includes(chrome), `${chrome} not printed`);
      assert.deepEqual(problems, []);
    });
  });
