/**
 * The job in a real browser (Debian's Chromium through playwright-core), issue 22: customers (with
 * the GSTIN's error beside its field, a CLIENT attached on the Team page), a project with its lines,
 * customer and due date, overdue once the date has passed, the PI's figures and a payment with the
 * balance, the dashboard's due counts and outstanding total, the list's filters kept in the address
 * (and the CSV link carrying them), and the customer's CLIENT following the project on a phone.
 * Nothing scrolls sideways at 1280 px or 390 px. Screenshots land in docs/screenshots.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Page } from 'playwright-core';
import {
  ADMIN,
  type BrowserTest,
  type ExpectedLoad,
  SESSION_CHECK,
  assertAccessible,
  descriptionOf,
  heading,
  screenshot,
  settles,
  sidewaysOverflow,
  startBrowserTest,
  watch,
} from '../helpers/browser.js';
import type { Client, TestService } from '../helpers/service.js';
import { todayIso } from '../../web/src/money.js';
import { browserTestsSkipped } from './build.js';

const skip = browserTestsSkipped('test/e2e/job.e2e.test.ts');

const CLIENT = { name: 'Carl Client', email: 'carl@example.com', password: 'carl-pass-123' };
const CUSTOMER = 'Acme Prints';
const PROJECT = 'Diwali catalogue';

/** The 4xx answers the scenarios cause on purpose (the browser logs each as a console error). */
const EXPECTED_FAILED_LOADS: ExpectedLoad[] = [SESSION_CHECK, { path: /^\/api\/customers$/, status: [400, 409] }];

const addDays = (day: string, n: number) => {
  const d = new Date(`${day}T12:00:00`);
  d.setDate(d.getDate() + n);
  return todayIso(d);
};

if (skip) test('the job in a browser', { skip }, () => {});
else
  describe('the job in a browser', { timeout: 600_000 }, () => {
    let t: BrowserTest;
    let svc: TestService;
    let admin: Page;
    let adminApi: Client;
    let projectId: string;
    const problems: string[] = [];
    const paymentPosts: string[] = [];
    const today = todayIso();

    /** A watched window (1280 × 800 unless said otherwise), its payment POSTs recorded. */
    const windowFor = async (who: string, options: Parameters<BrowserTest['window']>[0] = {}) => {
      const page = await t.window({ viewport: { width: 1280, height: 800 }, locale: 'en-GB', ...options });
      watch(page, problems, { who, expected: EXPECTED_FAILED_LOADS });
      page.on('request', (r) => {
        if (r.method() === 'POST' && /\/payments$/.test(new URL(r.url()).pathname)) paymentPosts.push(r.postData() ?? '');
      });
      return page;
    };

    before(async () => {
      t = await startBrowserTest({ admin: ADMIN });
      svc = t.svc;
      admin = await windowFor('admin');
      await svc.createUser({ role: 'CLIENT', ...CLIENT });
      adminApi = await svc.login(ADMIN.email, ADMIN.password);
      await t.signIn(admin, ADMIN);
    });
    after(() => t?.close());

    test('customers: a wrong GSTIN and a duplicate name are refused beside their fields; a CLIENT is attached on the Team page', async () => {
      await admin.getByRole('link', { name: 'Customers' }).click();
      await heading(admin, 'Customers').waitFor();
      const form = admin.getByRole('region', { name: 'Add a customer' });
      await form.getByLabel('Name', { exact: true }).fill(CUSTOMER);
      const gstin = form.getByLabel('GSTIN (optional)');
      await gstin.fill('27AAPFU0939F1ZW');
      await form.getByLabel('Email (optional)').fill('accounts@acme.example');
      await form.getByRole('button', { name: 'Add customer' }).click();
      await form.locator('.field-error').waitFor();
      await settles(() => gstin.getAttribute('aria-invalid'), 'true');
      assert.match(await descriptionOf(gstin), /GSTIN check character does not match/);
      assert.equal((await adminApi.get('/api/customers?active=all')).body.items.length, 0, 'nothing was created');

      await gstin.fill('27aapfu0939f1zv');
      await form.getByRole('button', { name: 'Add customer' }).click();
      await admin.getByTestId(`customer-${CUSTOMER}`).waitFor();
      assert.match((await admin.getByTestId(`customer-${CUSTOMER}`).textContent()) ?? '', /GSTIN 27AAPFU0939F1ZV/);

      // The same name again, in other case: the API's 409 stands by the name.
      const name = form.getByLabel('Name', { exact: true });
      await name.fill('acme prints');
      await form.getByRole('button', { name: 'Add customer' }).click();
      await form.locator('.field-error').waitFor();
      assert.match(await descriptionOf(name), /A customer with this name already exists/);

      // The Team page: the CLIENT's customer, by a select in their edit panel.
      await admin.getByRole('link', { name: 'Team' }).click();
      await admin.getByTestId(`member-${CLIENT.email}`).getByRole('button', { name: /^Edit/ }).click();
      const select = admin.getByLabel(`Customer of ${CLIENT.name}`);
      await admin.locator('select:not([disabled])', { has: admin.locator(`option:text("${CUSTOMER}")`) }).waitFor();
      await select.selectOption({ label: CUSTOMER });
      await admin.getByText(`${CLIENT.name} now sees ${CUSTOMER}’s projects.`).waitFor();
      const carl = (await adminApi.get('/api/team')).body.find((m: { email: string }) => m.email === CLIENT.email);
      assert.ok(carl);
      const customers = (await adminApi.get('/api/customers')).body.items;
      assert.equal((await adminApi.get(`/api/team/${carl.id}`)).body.customerId, customers[0].id);

      // The customer's card lists the CLIENT users.
      await admin.getByRole('link', { name: 'Customers' }).click();
      await admin.getByTestId(`customer-${CUSTOMER}`).getByRole('button', { name: /^Edit/ }).click();
      await admin.getByTestId('customer-clients').getByText(CLIENT.name).waitFor();
      assert.equal(await admin.getByRole('checkbox', { name: /^Active/ }).count(), 1, 'an ADMIN may change active');
      await assertAccessible(admin, 'customers');
      await screenshot(admin, 'customers');
    });

    test('a new project with its customer, lines and due date; line errors beside their fields; overdue once the date has passed', async () => {
      await admin.goto(`${svc.url}/projects/new`);
      await heading(admin, 'New project').waitFor();
      await admin.getByLabel('Name', { exact: true }).fill(PROJECT);
      await admin.getByLabel('Find a customer').fill('acme');
      await admin.getByLabel('Customer (optional)').selectOption({ label: CUSTOMER });
      await admin.getByLabel('Reference (optional)').fill('PO-4471');
      await admin.getByLabel('Due date (optional)').fill(addDays(today, 20));
      await admin.getByLabel('Delivery address (optional)').fill('Plot 12, MIDC\nPune 411019');
      await admin.getByRole('button', { name: 'Add a line' }).click();
      await admin.getByRole('button', { name: 'Add a line' }).click();
      const line1 = admin.getByTestId('line-1');
      const line2 = admin.getByTestId('line-2');
      await line1.getByLabel('Description').fill('Catalogue A4, 32 pages');
      await line1.getByLabel('Quantity').fill('2000');
      await line1.getByLabel('Stock (optional)').fill('130 gsm gloss art');
      await line1.getByLabel('Colours (optional)').fill('4/4');
      await line1.getByLabel('Finishing (optional)').fill('saddle stitch');
      await line2.getByLabel('Quantity').fill('0');
      await admin.getByRole('button', { name: 'Create project' }).click();
      await settles(() => line2.getByLabel('Description').getAttribute('aria-invalid'), 'true');
      assert.match(await descriptionOf(line2.getByLabel('Description')), /Line 2 description is required/);
      assert.match(await descriptionOf(line2.getByLabel('Quantity')), /Line 2 quantity must be from 1 to 10,000,000/);
      assert.equal((await adminApi.get('/api/projects')).body.items.length, 0, 'nothing was created');

      await line2.getByLabel('Description').fill('Envelopes C4');
      await line2.getByLabel('Quantity').fill('2000');
      await line2.getByLabel('Unit', { exact: true }).fill('boxes');
      await admin.getByRole('button', { name: 'Create project' }).click();
      await heading(admin, PROJECT).waitFor();
      projectId = new URL(admin.url()).pathname.split('/').pop()!;
      const job = admin.getByTestId('job');
      assert.equal(await job.getByTestId('job-customer').textContent(), CUSTOMER);
      assert.equal(await job.getByTestId('job-reference').textContent(), 'PO-4471');
      const rows = job.getByTestId('job-lines').locator('tbody tr');
      assert.equal(await rows.count(), 2);
      assert.match((await rows.nth(0).textContent()) ?? '', /Catalogue A4, 32 pages2,000 pcs/);
      assert.match((await rows.nth(1).textContent()) ?? '', /Envelopes C42,000 boxes/);
      assert.equal(await job.locator('.badge-overdue').count(), 0, 'not overdue yet');
      const stored = (await adminApi.get(`/api/projects/${projectId}`)).body;
      assert.equal(stored.customerName, CUSTOMER);
      assert.equal(stored.items[1].unit, 'boxes');
      assert.equal(stored.items[0].unit, 'pcs');

      // The due date passes (set through the API): the project is overdue.
      assert.equal((await adminApi.patch(`/api/projects/${projectId}/details`, { dueDate: addDays(today, -3) })).status, 200);
      await admin.reload();
      await job.locator('.badge-overdue', { hasText: 'Overdue' }).waitFor();
    });

    test('the PI with its amount, a payment and the balance; a payment dated in the future is refused before sending', async () => {
      await admin.goto(`${svc.url}/projects/${projectId}`);
      await heading(admin, PROJECT).waitFor();
      await admin.getByRole('button', { name: 'Submit PI' }).click();
      await admin.getByLabel('PI number').fill('PI-2026-014');
      await admin.getByLabel('Amount').fill('125000.50');
      await admin.getByLabel('Valid until (optional)').fill(addDays(today, 30));
      await admin.getByRole('button', { name: 'Submit the PI' }).click();
      await admin.getByTestId('project-pi-figures').filter({ hasText: 'PI-2026-014: ₹1,25,000.50' }).waitFor();
      assert.equal((await adminApi.get(`/api/projects/${projectId}`)).body.pi.amount, 12500050, 'sent in paise, exactly');

      const payments = admin.getByTestId('payments');
      await payments.getByRole('button', { name: 'Record a payment' }).click();
      const form = admin.getByRole('form', { name: 'Record a payment' });
      await form.getByLabel('Amount').fill('50000');
      await form.getByLabel('Received on').fill(addDays(today, 1));
      await form.getByRole('button', { name: 'Record the payment' }).click();
      assert.match(await descriptionOf(form.getByLabel('Received on')), /must not be in the future/);
      assert.deepEqual(paymentPosts, [], 'nothing was sent');

      await form.getByLabel('Received on').fill(today);
      await form.getByLabel('Method (optional)').fill('NEFT');
      await form.getByLabel('Payment reference (optional)').fill('UTR 1234');
      await form.getByRole('button', { name: 'Record the payment' }).click();
      await payments.getByTestId('payments-balance').filter({ hasText: '₹75,000.50' }).waitFor();
      assert.equal(await payments.getByTestId('payments-paid').textContent(), '₹50,000.00');
      assert.equal(await payments.getByTestId('payments-pi').textContent(), '₹1,25,000.50');
      assert.match((await payments.getByTestId('payments-list').textContent()) ?? '', /₹50,000\.00 on .*NEFT · UTR 1234/);
      assert.equal(paymentPosts.length, 1);
      assert.equal(JSON.parse(paymentPosts[0]!).amount, 5000000);
      assert.equal(await sidewaysOverflow(admin), 0);
      await assertAccessible(admin, 'project with the job');
      await screenshot(admin, 'job-project');
    });

    test('the dashboard’s due counts, PIs awaiting verification and outstanding total; the list’s filters in the address and the CSV link', async () => {
      // Another project, due today, without a customer or PI.
      const adminUser = (await adminApi.get('/api/auth/session')).body.user;
      await svc.createProject(adminUser.id, { name: 'Visiting cards', dueDate: today });
      await admin.goto(svc.url);
      await heading(admin, 'Dashboard').waitFor();
      const due = admin.getByTestId('due');
      await due.getByTestId('due-overdue').locator('dd', { hasText: '1' }).waitFor();
      assert.match((await due.getByTestId('due-overdue').getAttribute('class')) ?? '', /tile-alert/, 'overdue highlighted');
      assert.equal(await due.getByTestId('due-today').locator('dd').textContent(), '1');
      assert.equal(await due.getByTestId('due-week').locator('dd').textContent(), '1');
      assert.equal(await due.getByTestId('pi-awaiting').locator('dd').textContent(), '1');
      assert.match((await due.getByTestId('outstanding').textContent()) ?? '', /₹75,000\.50 on 1 project/);
      await assertAccessible(admin, 'dashboard');
      await screenshot(admin, 'job-dashboard');

      await due.getByRole('link', { name: 'Overdue' }).click();
      await heading(admin, 'Projects').waitFor();
      assert.equal(new URL(admin.url()).search, '?due=overdue&sort=due');
      const rows = admin.locator('table tbody tr');
      await rows.filter({ hasText: PROJECT }).waitFor();
      assert.equal(await rows.count(), 1);
      assert.match((await rows.first().getByTestId('due-cell').textContent()) ?? '', /Overdue/);
      await settles(() => admin.getByLabel('Due', { exact: true }).inputValue(), 'overdue');

      // Other filters: the address keeps them, the CSV link carries the same query.
      await admin.getByLabel('Due', { exact: true }).selectOption('');
      await admin.getByLabel('PI', { exact: true }).selectOption('SUBMITTED');
      await admin.waitForURL(/piStatus=SUBMITTED/);
      await admin.getByLabel('Customer', { exact: true }).selectOption({ label: CUSTOMER });
      await admin.waitForURL(/customerId=/);
      await rows.filter({ hasText: PROJECT }).waitFor();
      assert.equal(await rows.count(), 1);
      const search = new URL(admin.url()).searchParams;
      assert.equal(search.get('piStatus'), 'SUBMITTED');
      assert.equal(search.get('sort'), 'due');
      const csv = new URL((await admin.getByTestId('download-csv').getAttribute('href'))!, svc.url);
      assert.equal(csv.pathname, '/api/projects.csv');
      assert.deepEqual(Object.fromEntries(csv.searchParams), Object.fromEntries(search));

      await admin.getByLabel('PI', { exact: true }).selectOption('');
      await admin.getByLabel('Customer', { exact: true }).selectOption('');
      await admin.getByLabel('Due', { exact: true }).selectOption('today');
      await rows.filter({ hasText: 'Visiting cards' }).waitFor();
      assert.equal(await rows.count(), 1);
      // A reload keeps the filters: they live in the address.
      await admin.reload();
      await rows.filter({ hasText: 'Visiting cards' }).waitFor();
      await settles(() => admin.getByLabel('Due', { exact: true }).inputValue(), 'today');
      await settles(() => admin.getByLabel('Sort').inputValue(), 'due');
      assert.equal(await sidewaysOverflow(admin), 0);
      await admin.getByRole('button', { name: 'Clear filters' }).click();
      await rows.nth(1).waitFor();
      await screenshot(admin, 'job-projects');
    });

    test('a POC keeps customers but may not change whether one is active', async () => {
      const poc = await svc.createUser({ role: 'POC', name: 'Priya Sharma', email: 'priya@example.com', password: 'priya-pass-42' });
      const page = await windowFor('poc');
      try {
        await t.signIn(page, poc);
        await page.getByRole('link', { name: 'Customers' }).click();
        const card = page.getByTestId(`customer-${CUSTOMER}`);
        await card.getByRole('button', { name: /^Edit/ }).click();
        await card.getByLabel('Phone (optional)').fill('+91 20 1234 5678');
        assert.equal(await card.getByRole('checkbox').count(), 0, 'no Active box for a POC');
        await card.getByRole('button', { name: 'Save' }).click();
        await card.getByText('+91 20 1234 5678').waitFor();
        assert.equal((await adminApi.get('/api/customers')).body.items[0].phone, '+91 20 1234 5678');
      } finally {
        await page.context().close();
      }
    });

    test('the customer’s CLIENT follows the project on a 390 px phone, without actions they may not take; nothing scrolls sideways', async () => {
      const client = await windowFor('client', { viewport: { width: 390, height: 844 }, locale: 'en-IN', isMobile: true, hasTouch: true });
      try {
        await t.signIn(client, CLIENT);
        assert.equal(await client.getByRole('link', { name: 'Customers' }).count(), 0, 'no customer list for a CLIENT');
        await client.getByTestId('due').getByTestId('due-overdue').locator('dd', { hasText: '1' }).waitFor();
        assert.equal(await client.getByTestId('outstanding').count(), 0, 'the outstanding total is the admins’');
        assert.equal(await sidewaysOverflow(client), 0, 'dashboard at 390 px');

        await client.goto(`${svc.url}/projects`);
        await heading(client, 'Projects').waitFor();
        const rows = client.locator('table tbody tr');
        await rows.filter({ hasText: PROJECT }).waitFor();
        assert.equal(await rows.count(), 1, 'only their company’s project');
        assert.equal(await sidewaysOverflow(client), 0, 'list at 390 px');

        await client.getByRole('link', { name: PROJECT }).click();
        await heading(client, PROJECT).waitFor();
        await client.getByTestId('payments-balance').filter({ hasText: '₹75,000.50' }).waitFor();
        assert.equal(await client.getByRole('button', { name: 'Record a payment' }).count(), 0);
        assert.equal(await client.getByRole('button', { name: 'Edit details' }).count(), 0);
        await client.getByText('Nothing is waiting for you on this project.').waitFor();
        assert.equal(await client.getByTestId('job-lines').locator('tbody tr').count(), 2);
        const wide = await client.evaluate(() => [...document.querySelectorAll('body *')].filter((e) => e.getBoundingClientRect().right > 391).slice(0, 8).map((e) => `${e.tagName}.${e.className} ${Math.round(e.getBoundingClientRect().right)}`));
        assert.equal(await sidewaysOverflow(client), 0, `project at 390 px: ${wide.join('; ')}`);
        // The lines' table scrolls inside its own box, never beyond the page.
        const box = await client.locator('.lines-box').evaluate((el) => el.getBoundingClientRect().right);
        assert.ok(box <= 390, `the lines' box ends at ${box} px`);
        await assertAccessible(client, 'project, client, phone');
        await screenshot(client, 'job-project-phone');
      } finally {
        await client.context().close();
      }
      // The admin's pages at the phone's width too.
      await admin.setViewportSize({ width: 390, height: 844 });
      for (const at of ['/customers', '/projects/new', `/projects/${projectId}`, '/projects?due=overdue&sort=due', '/']) {
        await admin.goto(`${svc.url}${at}`);
        await admin.locator('h1').waitFor();
        await admin.waitForLoadState('networkidle');
        assert.equal(await sidewaysOverflow(admin), 0, `${at} at 390 px`);
      }
      await admin.setViewportSize({ width: 1280, height: 800 });
      assert.deepEqual(problems, []);
    });
  });
