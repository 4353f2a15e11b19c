/**
 * Issue 34 in a real browser: a POC posts proof v1 on the project page and emails an approval link;
 * the customer, without an account, asks for changes through the link on a 390 px phone; the POC
 * posts v2; a CLIENT of the customer approves it in the app; printing, held until then, starts (an ADMIN's button).
 * Screenshots at 390 and 1280 px; axe finds nothing serious on the card or the link's page.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Page } from 'playwright-core';
import { ADMIN, type BrowserTest, SESSION_CHECK, assertAccessible, heading, screenshot, sidewaysOverflow, startBrowserTest } from '../helpers/browser.js';
import { barsPdf } from '../helpers/pdf.js';
import type { TestService } from '../helpers/service.js';
import { type TestSmtpServer, startSmtpServer } from '../helpers/smtp.js';
import { browserTestsSkipped } from './build.js';

const skip = browserTestsSkipped('test/e2e/proofs.e2e.test.ts');
const POC = { name: 'Pia Poc', email: 'pia@example.com', password: 'pia-poc-password' };
const CLIENT = { name: 'Cleo Client', email: 'cleo@example.com', password: 'cleo-client-pass' };
const BUYER = 'bea@customer.example';

if (skip) test('proofs in a browser', { skip }, () => {});
else
  describe('proofs in a browser: posted, answered through a link on a phone, posted again, approved in the app, printed', { timeout: 300_000 }, () => {
    let smtp: TestSmtpServer;
    let t: BrowserTest;
    let svc: TestService;
    let projectId: string;
    const problems: string[] = [];

    before(async () => {
      smtp = await startSmtpServer();
      t = await startBrowserTest({ admin: ADMIN, env: { SMTP_URL: smtp.url, MAIL_BATCH_SECONDS: '0', MAIL_POLL_MS: '50' } });
      svc = t.svc;
      const admin = await svc.login(ADMIN.email, ADMIN.password);
      const customer = await admin.post('/api/customers', { name: 'Acme Menus' });
      const { user: poc } = await svc.createUser({ role: 'POC', ...POC });
      const { user: client } = await svc.createUser({ role: 'CLIENT', ...CLIENT });
      assert.equal((await admin.patch(`/api/team/${client.id}`, { customerId: customer.body.id })).status, 200);
      projectId = (await svc.createProject(poc.id, { name: 'Autumn menus', customerId: customer.body.id, reference: 'PO-77', status: 'APPROVED', piStatus: 'VERIFIED' })).id;
    });
    after(async () => {
      await t?.close();
      await smtp?.stop();
      assert.deepEqual(problems, [], 'no uncaught errors or unexpected failed loads');
    });

    const card = (page: Page) => page.getByTestId('proofs');
    const statusOf = (page: Page, version: number) => card(page).getByTestId(`proof-v${version}`).getByTestId('proof-status');
    async function postVersion(page: Page, version: number, note: string) {
      await card(page).getByLabel('Proof file (PDF or picture)').setInputFiles({ name: `menu-v${version}.pdf`, mimeType: 'application/pdf', buffer: barsPdf(2) });
      await card(page).getByLabel('Note for the customer (optional)').fill(note);
      await card(page).getByRole('button', { name: `Post v${version}` }).click();
      await statusOf(page, version).filter({ hasText: 'Awaiting the customer' }).waitFor();
    }

    test('the whole loop', async () => {
      // The POC, on a desktop: v1 and an approval link.
      const pocPage = await t.window({ viewport: { width: 1280, height: 900 }, problems, who: 'poc' });
      await t.signIn(pocPage, POC);
      await pocPage.goto(`${svc.url}/projects/${projectId}`);
      await heading(pocPage, 'Autumn menus').waitFor();
      await postVersion(pocPage, 1, 'First layout: please check the prices column');
      await card(pocPage).getByText('Send an approval link').click();
      await card(pocPage).getByLabel('Their email').fill(BUYER);
      await card(pocPage).getByLabel('Their name (optional)').fill('Bea Buyer');
      await card(pocPage).getByRole('button', { name: 'Send link' }).click();
      await card(pocPage).getByRole('status').filter({ hasText: `sent to ${BUYER}` }).waitFor();
      await card(pocPage).getByTestId('proof-v1').locator('img').evaluate((img: HTMLImageElement) => img.decode());
      await assertAccessible(pocPage, 'project page with the proofs card');
      await screenshot(pocPage, 'proofs-card-1280');

      // Printing is held meanwhile.
      const held = await (await svc.login(ADMIN.email, ADMIN.password)).post(`/api/projects/${projectId}/start-printing`, {});
      assert.deepEqual([held.status, held.body], [409, { error: "Printing waits for the customer's approval of proof v1" }]);

      // The customer, on a phone, without an account: changes through the link.
      const mail = await smtp.nextTo(BUYER);
      const link = /(http:\/\/\S+\/proofs\/[0-9A-Za-z]+)/.exec(mail.text)?.[1] ?? '';
      assert.ok(link.startsWith(`${svc.url}/proofs/`), mail.text);
      const phone = await t.window({ viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true, problems, who: 'phone', expected: [SESSION_CHECK] });
      await phone.goto(link);
      await heading(phone, 'Proof for your approval').waitFor();
      await phone.getByTestId('link-project').filter({ hasText: 'Autumn menus' }).waitFor();
      await phone.getByRole('img', { name: 'Page 2 of 2 of the proof' }).waitFor();
      await phone.getByRole('img', { name: 'Page 1 of 2 of the proof' }).evaluate((img: HTMLImageElement) => img.decode());
      assert.equal(await sidewaysOverflow(phone), 0, 'the link page fits a 390 px screen');
      await assertAccessible(phone, 'approval link page');
      await screenshot(phone, 'proof-link-390');
      await phone.getByLabel('Your name').fill('Bea Buyer');
      await phone.getByLabel('What should change? (needed to ask for changes)').fill('The prices column is cut off on page 2');
      await phone.getByRole('button', { name: 'Request changes' }).click();
      await phone.getByTestId('link-answered').filter({ hasText: 'changes requested' }).waitFor();
      await screenshot(phone, 'proof-link-answered-390', false);

      // The POC sees the answer live, and posts v2.
      await statusOf(pocPage, 1).filter({ hasText: 'Changes requested' }).waitFor();
      await card(pocPage).getByTestId('proof-v1').getByTestId('proof-response').filter({ hasText: 'Bea Buyer (approval link)' }).waitFor();
      await postVersion(pocPage, 2, 'Prices column widened');
      await statusOf(pocPage, 1).filter({ hasText: 'Changes requested' }).waitFor();

      // A CLIENT of the customer approves v2 in the app, on a phone.
      const clientPage = await t.window({ viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true, problems, who: 'client' });
      await t.signIn(clientPage, CLIENT);
      await clientPage.goto(`${svc.url}/projects/${projectId}`);
      await heading(clientPage, 'Autumn menus').waitFor();
      await card(clientPage).getByText('Proof v2 waits for your approval.').waitFor();
      assert.equal(await sidewaysOverflow(clientPage), 0, 'the project page fits a 390 px screen');
      await screenshot(clientPage, 'proofs-card-390');
      await card(clientPage).getByRole('button', { name: 'Approve v2' }).click();
      await statusOf(clientPage, 2).filter({ hasText: 'Approved' }).waitFor();
      await assertAccessible(clientPage, 'project page after the approval');

      // The shop starts printing, no longer held.
      await statusOf(pocPage, 2).filter({ hasText: 'Approved' }).waitFor();
      const adminPage = await t.window({ viewport: { width: 1280, height: 900 }, problems, who: 'admin' });
      await t.signIn(adminPage, ADMIN);
      await adminPage.goto(`${svc.url}/projects/${projectId}`);
      await heading(adminPage, 'Autumn menus').waitFor();
      await adminPage.getByRole('button', { name: 'Start printing' }).click();
      await adminPage.getByRole('button', { name: 'Start printing' }).waitFor({ state: 'detached' });
      await eventuallyPrinting(svc, projectId);
      await pocPage.goto(`${svc.url}/projects`);
      await pocPage.getByTestId('proof-badge').filter({ hasText: 'Proof v2: approved' }).waitFor();
      await screenshot(pocPage, 'projects-proof-badge-1280', false);
    });
  });

async function eventuallyPrinting(svc: TestService, projectId: string): Promise<void> {
  for (let i = 0; i < 50; i++) {
    if ((await svc.deps.store.projects.findById(projectId))?.status === 'PRINTING') return;
    await new Promise((r) => setTimeout(r, 100));
  }
  assert.fail('printing started');
}
