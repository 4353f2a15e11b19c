import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Browser, BrowserContext, Locator, Page, Route } from 'playwright-core';
import {
  ADMIN,
  type BrowserTest,
  type ExpectedLoad,
  SESSION_CHECK,
  assertAccessible as assertAccessibleTo,
  descriptionOf,
  heading,
  screenshot,
  settles,
  sidewaysOverflow,
  signInAt,
  startBrowserTest,
  watch as watchFor,
} from '../helpers/browser.js';
import { type TestService, Client, testConfig } from '../helpers/service.js';
import { newId } from '../../src/ids.js';
import { type RunningService, startService } from '../../src/service.js';
import { browserTestsSkipped } from './build.js';

/**
 * The web app in a real browser (Debian's Chromium through playwright-core), against a real
 * service: an admin and a POC, each in their own browser context, through sign-in, the team, a
 * project's lifecycle, an upload with its progress bar, live refreshes and a refused upload.
 * Screenshots of each page land in docs/screenshots.
 */

const skip = browserTestsSkipped('test/e2e/web.e2e.test.ts');

const POC = { name: 'Priya Sharma', email: 'priya@example.com', password: 'priya-pass-42' };
const CLIENT = { name: 'Carl Client', email: 'carl@example.com', password: 'carl-pass-1' };
const PROJECT = 'Spring catalogue 2027';
const UPLOAD_BYTES = 6 * 1024 * 1024;

/** Console errors and uncaught exceptions, from every page of the run. */
const problems: string[] = [];
/**
 * The browser logs every 4xx answer as a console error ("Failed to load resource"). These are the
 * ones the scenarios cause on purpose: the session check before signing in, the wrong password and
 * the throttled logins, the team forms' refusals, and the refused upload. Any other is a problem.
 */
const EXPECTED_FAILED_LOADS: ExpectedLoad[] = [
  SESSION_CHECK,
  { path: /^\/api\/auth\/login$/, status: [401, 429] },
  { path: /^\/api\/team(\/[\w-]+)?$/, status: [400, 409] },
  { path: /^\/api\/upload$/, status: [400] },
  // A document without a preview answers 404 by design; its thumbnail then shows the type and size.
  { path: /^\/api\/projects\/[\w-]+\/files\/[\w-]+\/preview$/, status: [404] },
  // A window whose session was ended elsewhere learns it from its next request.
  { path: /^\/api\//, status: [401] },
];

const watch = (page: Page, who: string): Page => watchFor(page, problems, { who, expected: EXPECTED_FAILED_LOADS });

/** axe-core with its best practices too. */
const assertAccessible = (page: Page, label: string) => assertAccessibleTo(page, label, { bestPractice: true });

/** Waits until the locator's whole text is `text` (Playwright's auto-waiting, with an exact filter). */
async function hasText(locator: Locator, text: string | RegExp): Promise<void> {
  const exact = typeof text === 'string' ? new RegExp(`^\\s*${text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}\\s*$`) : text;
  await locator.filter({ hasText: exact }).first().waitFor();
}

const signIn = (page: Page, who: { email: string; password: string }) => signInAt(page, svc.url, who);

let t: BrowserTest;
let svc: TestService;
let browser: Browser;
let adminContext: BrowserContext;
let pocContext: BrowserContext;
let admin: Page;
let poc: Page;
let projectId: string;
let dispatchedId: string;
const teamAnswersToPoc: { url: string; status: number }[] = [];

// Skipped, it still counts: one skipped test in the summary, besides the notice above.
if (skip) test('the web app in a browser', { skip }, () => {});
else describeBrowserTests();

function describeBrowserTests() {
  describe('the web app in a browser', { timeout: 600_000 }, () => {
    before(async () => {
      t = await startBrowserTest({
        admin: ADMIN,
        // A session ended straight in the database (no signal) is this file's 401 case: no cache may answer for it meanwhile.
        env: { LOGIN_MAX_FAILURES_PER_EMAIL: '3', SESSION_CACHE_MS: '0' },
        chromiumArgs: ['--disable-background-networking', '--disable-component-update', '--disable-sync', '--disable-quic'],
      });
      ({ svc, browser } = t);
      adminContext = await browser.newContext({ viewport: { width: 1280, height: 860 }, locale: 'en-GB' });
      // The POC's browser speaks German: dates must follow it.
      pocContext = await browser.newContext({ viewport: { width: 1280, height: 860 }, locale: 'de-DE' });
      for (const context of [adminContext, pocContext]) context.setDefaultTimeout(30_000);
      pocContext.on('response', (res) => {
        if (new URL(res.url()).pathname.startsWith('/api/team')) teamAnswersToPoc.push({ url: res.url(), status: res.status() });
      });
      admin = watch(await adminContext.newPage(), 'admin');
    });

    after(() => t?.close());

    test('a wrong password gets a clear message; then the admin signs in with the keyboard alone', async () => {
      await admin.goto(svc.url);
      await heading(admin, 'Sign in').waitFor();
      await screenshot(admin, 'sign-in');

      for (let i = 0; i < 5 && (await admin.evaluate(() => document.activeElement?.id)) !== 'email'; i++) await admin.keyboard.press('Tab');
      assert.equal(await admin.evaluate(() => document.activeElement?.id), 'email', 'Tab reaches the email field');
      await admin.keyboard.type(ADMIN.email);
      await admin.keyboard.press('Tab');
      await admin.keyboard.type('not the password');
      await admin.keyboard.press('Enter');
      await hasText(admin.getByRole('alert'), 'Wrong email or password. Check both and try again.');
      assert.equal(await descriptionOf(admin.getByLabel('Password')), 'Wrong email or password. Check both and try again.');

      // Focus stays in the password field: select it, type the right one, Enter.
      await settles(() => admin.evaluate(() => document.activeElement?.id), 'password');
      await admin.keyboard.press('Control+A');
      await admin.keyboard.type(ADMIN.password);
      await admin.keyboard.press('Enter');
      await heading(admin, 'Dashboard').waitFor();
      await hasText(admin.getByTestId('live'), 'Live');

      // On to the projects with Tab and Enter: the focus moves to the new page's heading.
      for (let i = 0; i < 40 && (await admin.evaluate(() => document.activeElement?.textContent)) !== 'Projects'; i++) await admin.keyboard.press('Shift+Tab');
      await admin.keyboard.press('Enter');
      await heading(admin, 'Projects').waitFor();
      await settles(() => admin.evaluate(() => document.activeElement?.tagName), 'H1', 'the new page’s heading has the focus');
    });

    test('too many failed sign-ins get a clear message about waiting', async () => {
      const context = await browser.newContext();
      try {
        const page = watch(await context.newPage(), 'throttled');
        await page.goto(svc.url);
        await page.getByLabel('Email').fill('nobody@example.com');
        await page.getByLabel('Password').fill('guess');
        for (let attempt = 1; attempt <= 3; attempt++) {
          const answer = page.waitForResponse((r) => r.url().endsWith('/api/auth/login'));
          await page.getByRole('button', { name: 'Sign in' }).click();
          assert.equal((await answer).status(), 401);
        }
        const throttled = page.waitForResponse((r) => r.url().endsWith('/api/auth/login'));
        await page.getByRole('button', { name: 'Sign in' }).click();
        assert.equal((await throttled).status(), 429);
        await hasText(page.getByRole('alert'), 'Too many failed attempts. For your security, signing in is paused: try again in 15 minutes.');
      } finally {
        await context.close();
      }
    });

    test('the admin adds members on the Team page, with the API’s errors next to the fields', async () => {
      await admin.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Team' }).click();
      await heading(admin, 'Team').waitFor();
      const form = admin.locator('form', { has: admin.getByRole('button', { name: 'Add member' }) });

      // Nothing filled in: the specification's message, by each field it names.
      await form.getByRole('button', { name: 'Add member' }).click();
      await hasText(form.locator('.field-error').first(), 'Name, email and password are required');
      for (const label of ['Name', 'Email', 'Password']) {
        assert.match(await descriptionOf(form.getByLabel(label, { exact: true })), /^Name, email and password are required/, label);
      }

      for (const member of [
        { ...POC, role: 'POC (point of contact)', branch: 'Pune' },
        { ...CLIENT, role: 'Client', branch: 'Mumbai' },
      ]) {
        await form.getByLabel('Name', { exact: true }).fill(member.name);
        await form.getByLabel('Email', { exact: true }).fill(member.email);
        await form.getByLabel('Password', { exact: true }).fill(member.password);
        await form.getByLabel('Role').selectOption({ label: member.role });
        await form.getByLabel('Branch (optional)').fill(member.branch);
        await form.getByRole('button', { name: 'Add member' }).click();
        await admin.getByTestId(`member-${member.email}`).waitFor();
        await settles(() => form.getByLabel('Name', { exact: true }).inputValue(), '', 'the form is emptied after adding');
      }
      await hasText(admin.getByTestId(`member-${POC.email}`).locator('td').nth(1), 'POC');
      await screenshot(admin, 'team');

      // The same email again: 409, next to the email field.
      await form.getByLabel('Name', { exact: true }).fill('Priya again');
      await form.getByLabel('Email', { exact: true }).fill(POC.email.toUpperCase());
      await form.getByLabel('Password', { exact: true }).fill('whatever-1');
      await form.getByRole('button', { name: 'Add member' }).click();
      await hasText(form.locator('.field-error'), 'Email already exists');
      assert.equal(await descriptionOf(form.getByLabel('Email', { exact: true })), 'Email already exists');
    });

    test('the admin edits, deactivates, reactivates and resets the password of a member; the last admin keeps the role', async () => {
      const row = admin.getByTestId(`member-${CLIENT.email}`);
      await row.getByRole('button', { name: `Edit ${CLIENT.name}` }).click();
      const edit = admin.getByRole('form', { name: `Edit ${CLIENT.name}` });
      await edit.getByLabel('Location').fill('Andheri');
      await edit.getByRole('button', { name: 'Save' }).click();
      await hasText(admin.getByRole('status').filter({ hasText: 'saved' }), `${CLIENT.name} is saved.`);
      await hasText(row.locator('td').nth(2), 'Mumbai · Andheri');

      await row.getByRole('button', { name: `Deactivate ${CLIENT.name}` }).click();
      // Deactivation asks first: it signs the member out at once.
      await admin.getByRole('button', { name: 'Keep active' }).click();
      await hasText(row.locator('.badge'), 'Active');
      await row.getByRole('button', { name: `Deactivate ${CLIENT.name}` }).click();
      await admin.getByRole('button', { name: `Yes, deactivate ${CLIENT.name}` }).click();
      await hasText(row.locator('.badge'), 'Inactive');
      await row.getByRole('button', { name: `Reactivate ${CLIENT.name}` }).click();
      await hasText(row.locator('.badge'), 'Active');

      await row.getByRole('button', { name: `Reset password of ${CLIENT.name}` }).click();
      const reset = admin.getByRole('form', { name: `New password for ${CLIENT.name}` });
      await reset.getByRole('button', { name: 'Set password' }).click();
      await reset.locator('.field-error').waitFor();
      assert.match(await descriptionOf(reset.getByLabel(`New password for ${CLIENT.name}`)), /^Password must be at least 8 characters/, 'an empty password is refused by the field');
      await reset.getByLabel(`New password for ${CLIENT.name}`).fill('carl-new-pass-2');
      await reset.getByRole('button', { name: 'Set password' }).click();
      await hasText(admin.getByRole('status').filter({ hasText: 'password' }), `${CLIENT.name}’s password is changed; their sessions have ended.`);
      const login = await fetch(new URL('/api/auth/login', svc.url), { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email: CLIENT.email, password: 'carl-new-pass-2' }) });
      assert.equal(login.status, 200, 'the new password signs in');

      // The only admin cannot make themselves a POC: the API's reason, by the Role field.
      const me = admin.getByTestId(`member-${ADMIN.email}`);
      await me.getByRole('button', { name: `Edit ${ADMIN.name}` }).click();
      const editMe = admin.getByRole('form', { name: `Edit ${ADMIN.name}` });
      await editMe.getByLabel('Role').selectOption({ label: 'POC (point of contact)' });
      await editMe.getByRole('button', { name: 'Save' }).click();
      await hasText(editMe.locator('.field-error'), 'The last active admin cannot be demoted or deactivated');
      assert.equal(await descriptionOf(editMe.getByLabel('Role')), 'The last active admin cannot be demoted or deactivated');
      await editMe.getByRole('button', { name: 'Cancel' }).click();
    // The focus goes back to the button that opened the form.
    await admin.waitForFunction((name) => document.activeElement?.textContent === `Edit ${name}`, ADMIN.name);
    });

    test('the admin creates a project for the POC, approves it, and the PI is submitted and verified', async () => {
      await admin.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Projects' }).click();
      await heading(admin, 'Projects').waitFor();
      await admin.getByRole('link', { name: 'New project' }).click();
      await heading(admin, 'New project').waitFor();
      await admin.getByLabel('Name', { exact: true }).fill(PROJECT);
      await admin.getByLabel('Description (optional)').fill('A5, 48 pages, 2,000 copies');
      await admin.getByLabel('Point of contact').selectOption({ label: `${POC.name} (${POC.email}, POC)` });
      await admin.getByRole('button', { name: 'Create project' }).click();
      await heading(admin, PROJECT).waitFor();
      projectId = new URL(admin.url()).pathname.split('/').pop()!;

      const status = admin.getByTestId('project-status');
      const pi = admin.getByTestId('project-pi');
      await hasText(status, 'Awaiting approval');
      // Only what the admin may do now is offered.
      await admin.getByRole('button', { name: 'Approve', exact: true }).waitFor();
      assert.equal(await admin.getByRole('button', { name: 'Verify PI' }).count(), 0);
      assert.equal(await admin.getByTestId('reason-PO').textContent(), 'A PO can be added once the project is approved.');

      await admin.getByRole('button', { name: 'Approve', exact: true }).click();
      await hasText(status, 'Approved');
      await hasText(admin.getByTestId('project-approval'), /^Approved by You, /);
      await admin.getByRole('button', { name: 'Submit PI' }).click();
      // The PI's figures: the amount in rupees, sent in paise.
      await admin.getByLabel('PI number').fill('PI-2026-014');
      await admin.getByLabel('Amount').fill('125000.50');
      await admin.getByRole('button', { name: 'Submit the PI' }).click();
      await hasText(pi, 'Submitted, awaiting verification');
      await hasText(admin.getByTestId('project-pi-figures'), 'PI-2026-014: ₹1,25,000.50');
      await admin.getByRole('button', { name: 'Verify PI' }).click();
      await hasText(pi, 'Verified');
      assert.equal(await admin.getByRole('button', { name: 'Approve', exact: true }).count(), 0);
      await admin.getByRole('button', { name: 'Start printing' }).waitFor();
      // The activity lists each step, newest first.
      await hasText(admin.locator('.activity li').first(), /You verified the PI/);
      assert.equal(await admin.locator('.activity li').count(), 4);
    });

    test('the project list filters by status and searches by name', async () => {
      // Two more projects, straight in the database, so the list has something to filter.
      const users = await svc.deps.store.users.list();
      const pocId = users.find((u) => u.email === POC.email)!.id;
      dispatchedId = (await svc.createProject(pocId, { name: 'Autumn leaflets', status: 'DISPATCHED', piStatus: 'VERIFIED' })).id;
      await svc.createProject(users.find((u) => u.email === ADMIN.email)!.id, { name: 'Trade fair banners' });

      await admin.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Projects' }).click();
      await heading(admin, 'Projects').waitFor();
      const rows = admin.locator('tbody tr');
      await hasText(admin.getByRole('status').filter({ hasText: 'Showing' }), 'Showing 3 projects (all)');
      await screenshot(admin, 'projects');

      await admin.getByLabel('Job number, name, reference or POC').fill('catalogue');
      await admin.getByLabel('Job number, name, reference or POC').press('Enter');
      await hasText(admin.getByRole('status').filter({ hasText: 'Showing' }), 'Showing 1 project (all)');
      assert.match((await rows.first().getByRole('link').textContent()) ?? '', new RegExp(`^#\\d+ ${PROJECT}$`), 'the job number, then the name');
      assert.match(admin.url(), /\?q=catalogue$/);

      await admin.getByRole('button', { name: 'Clear filters' }).click();
      await admin.getByLabel('Status', { exact: true }).selectOption({ label: 'Dispatched' });
      await hasText(admin.getByRole('status').filter({ hasText: 'Showing' }), 'Showing 1 project (all)');
      assert.match((await rows.first().getByRole('link').textContent()) ?? '', /^#\d+ Autumn leaflets$/);
      await admin.getByLabel('Status', { exact: true }).selectOption({ label: 'Delivered' });
      await hasText(admin.locator('.empty'), 'No project matches these filters.');
      await admin.getByRole('button', { name: 'Clear filters' }).click();
      await hasText(admin.getByRole('status').filter({ hasText: 'Showing' }), 'Showing 3 projects (all)');
    });

    test('the POC signs in elsewhere, uploads a PO with a progress bar, and the admin’s dashboard counts it without a reload', async () => {
      // The admin watches the dashboard.
      await admin.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Dashboard' }).click();
      await heading(admin, 'Dashboard').waitFor();
      await hasText(admin.getByTestId('documents-PO').locator('dd'), '0');
      await hasText(admin.getByTestId('live'), 'Live');
      await admin.evaluate(() => ((window as unknown as { notReloaded: boolean }).notReloaded = true));

      poc = watch(await pocContext.newPage(), 'poc');
      await signIn(poc, POC);
      assert.equal(await poc.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Team' }).count(), 0, 'no Team link for a POC');
      await poc.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Projects' }).click();
      await heading(poc, 'Projects').waitFor();
      // Their own two projects, not the admin's.
      await hasText(poc.getByRole('status').filter({ hasText: 'Showing' }), 'Showing 2 projects (all)');
      await poc.getByRole('link', { name: PROJECT }).click();
      await heading(poc, PROJECT).waitFor();
      await hasText(poc.getByTestId('live'), 'Live');

      // The POC may not read the team, yet sees who did what: the names come with the project and its activity.
      await hasText(poc.getByTestId('project-approval'), new RegExp(`^Approved by ${ADMIN.name}, `));
      await hasText(poc.getByTestId('project-poc'), 'You');
      await hasText(poc.locator('.activity li').first(), new RegExp(`^${ADMIN.name} verified the PI`));
      assert.equal(await poc.getByText('Someone else').count(), 0);

      // Dates follow the browser's locale (de-DE: 21.11.2026, 14:05).
      assert.match((await poc.locator('.facts time').first().textContent()) ?? '', /^\d{2}\.\d{2}\.\d{4}, \d{2}:\d{2}$/);

      // Only PO may be uploaded now; the others say why not, in the API's words.
      await settles(() => poc.getByLabel('Purchase order (PO)').isChecked(), true);
      await settles(() => poc.getByLabel('Delivery note (challan)').isDisabled(), true);
      assert.equal(await poc.getByTestId('reason-CHALLAN').textContent(), 'A challan can be added once the project is dispatched (now: approved).');
      assert.equal(await poc.getByTestId('reason-INVOICE').textContent(), 'An invoice can be added once the project is dispatched (now: approved).');
      assert.equal(await descriptionOf(poc.getByLabel('Invoice', { exact: true })), 'An invoice can be added once the project is dispatched (now: approved).');

      await poc.getByLabel('Drop a file here, or choose one').setInputFiles({ name: 'order.pdf', mimeType: 'application/pdf', buffer: Buffer.alloc(UPLOAD_BYTES, 0x25) });
      await hasText(poc.getByTestId('chosen-file'), /^order\.pdf · /);
      const uploaded = poc.waitForResponse((r) => r.url().endsWith('/api/upload'));
      await poc.getByRole('button', { name: 'Upload', exact: true }).click();
      await poc.locator('progress').waitFor();
      assert.equal((await uploaded).status(), 201);
      await hasText(poc.getByRole('status').filter({ hasText: 'order.pdf' }), /^order\.pdf \(.+\) is uploaded as a purchase order \(PO\)\.$/);
      const bar = await poc.locator('progress').evaluate((p: HTMLProgressElement) => ({ value: p.value, max: p.max }));
      assert.ok(bar.max > UPLOAD_BYTES, `the bar counts the bytes sent (${bar.max})`);
      assert.equal(bar.value, bar.max, 'the progress bar reaches its end');
      const link = poc.getByTestId('files-PO').getByRole('link', { name: 'order.pdf', exact: true });
      await hasText(poc.getByTestId('files-PO').locator('li'), / · You · /);
      assert.match((await link.getAttribute('href')) ?? '', new RegExp(`^${svc.url}/files/print-orders/${projectId}/po/po_\\d+\\.pdf$`));
      const file = await fetch((await link.getAttribute('href'))!);
      assert.equal(file.status, 200);
      assert.equal((await file.arrayBuffer()).byteLength, UPLOAD_BYTES);

      // The admin's dashboard, untouched, now counts it.
      await hasText(admin.getByTestId('documents-PO').locator('dd'), '1');
      await hasText(admin.locator('.activity li').first(), new RegExp(`${POC.name} uploaded a PO to #\\d+ ${PROJECT}`));
      assert.equal(await admin.evaluate(() => (window as unknown as { notReloaded?: boolean }).notReloaded), true, 'the dashboard was not reloaded');
      await screenshot(admin, 'dashboard');
    });

    test('an upload the rules refuse shows the API’s message as is', async () => {
      // The rules change between the POC's page load and their upload: the admin cancels the
      // project while the POC's page has not caught up yet (its refresh of the project is held back).
      const held: Route[] = [];
      const projectPattern = `**/api/projects/${projectId}`;
      let holding = true;
      await poc.route(projectPattern, (route) => (holding && route.request().method() === 'GET' ? held.push(route) : route.continue()));

      const admin2 = watch(await adminContext.newPage(), 'admin (second tab)');
      await admin2.goto(`${svc.url}/projects/${projectId}`);
      await heading(admin2, PROJECT).waitFor();
      await admin2.getByTestId('files-PO').getByRole('link', { name: 'order.pdf', exact: true }).waitFor();
      await hasText(admin2.getByTestId('files-PO').locator('li'), new RegExp(` · ${POC.name} · `));
      await screenshot(admin2, 'project');
      await admin2.getByRole('button', { name: 'Cancel project' }).click();
      await admin2.getByRole('button', { name: 'Yes, cancel the project' }).click();
      await hasText(admin2.getByTestId('project-status'), 'Cancelled');

      // The POC's page still offers PO.
      assert.equal(await poc.getByLabel('Purchase order (PO)').isChecked(), true);
      await poc.getByLabel('Drop a file here, or choose one').setInputFiles({ name: 'late-order.pdf', mimeType: 'application/pdf', buffer: Buffer.from('%PDF-1.4 late') });
      const answer = poc.waitForResponse((r) => r.url().endsWith('/api/upload'));
      await poc.getByRole('button', { name: 'Upload', exact: true }).click();
      const refusal = await answer;
      assert.equal(refusal.status(), 400);
      const { error } = (await refusal.json()) as { error: string };
      assert.equal(error, 'PO can only be uploaded after project approval');

      // The page catches up before it answers: the API's message, and what changed, instead of a contradiction.
      holding = false;
      for (const route of held) await route.continue();
      await poc.unroute(projectPattern);
      await poc.getByTestId('upload-error').waitFor();
      assert.equal(await poc.getByTestId('upload-error').textContent(), `${error}. The project changed meanwhile: it is now cancelled.`);
      await hasText(poc.getByTestId('project-status'), 'Cancelled');
      // The reason names the real blocker: the cancellation, not the approval.
      await hasText(poc.getByTestId('reason-PO'), 'The project is cancelled: no documents can be added.');
      await settles(() => poc.getByLabel('Purchase order (PO)').isDisabled(), true);
      assert.equal(await poc.getByTestId('files-PO').getByRole('link').count(), 1, 'nothing was added');
      await admin2.close();
    });

    test('a POC has no Team page: no team data on screen, and no request to /api/team succeeds', async () => {
      await poc.goto(`${svc.url}/team`);
      await heading(poc, 'Team').waitFor();
      await poc.getByTestId('team-forbidden').waitFor();
      assert.equal(await poc.getByRole('table').count(), 0);
      const text = (await poc.locator('main').textContent()) ?? '';
      for (const other of [ADMIN.email, CLIENT.email, CLIENT.name]) assert.ok(!text.includes(other), `${other} is not shown`);
      // Every page the POC opened, this one included.
      assert.deepEqual(teamAnswersToPoc.filter((r) => r.status >= 200 && r.status < 300), []);
      assert.deepEqual(teamAnswersToPoc, [], 'the app does not even ask');
    });

    test('on a phone-sized screen the pages fit the width', async () => {
      const phone = watch(await pocContext.newPage(), 'poc (phone)');
      await phone.setViewportSize({ width: 390, height: 844 });
      for (const [url, title] of [
        ['/', 'Dashboard'],
        ['/projects', 'Projects'],
        [`/projects/${projectId}`, PROJECT],
        [`/projects/${dispatchedId}`, 'Autumn leaflets'],
      ] as const) {
        await phone.goto(`${svc.url}${url}`);
        await heading(phone, title).waitFor();
        const overflow = await phone.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
        assert.ok(overflow <= 0, `${url} scrolls sideways by ${overflow}px`);
      }
      // A dispatched project: the POC may mark it delivered and upload the challan and the invoice.
      await phone.getByRole('button', { name: 'Mark delivered' }).waitFor();
      assert.equal(await phone.getByLabel('Delivery note (challan)').isDisabled(), false);
      await screenshot(phone, 'phone');
      await phone.close();
    });

    test('a rejected request: the POC sees “Rejected”, corrects it and asks again; the confirmation goes when the admin decides', async () => {
      const users = await svc.deps.store.users.list();
      const pocId = users.find((u) => u.email === POC.email)!.id;
      const request = await svc.createProject(pocId, { name: 'Visiting cards' });

      await admin.goto(`${svc.url}/projects/${request.id}`);
      await heading(admin, 'Visiting cards').waitFor();
      await admin.getByLabel('Note (optional, kept with the decision)').fill('Which size? Say A7 or A8.');
      await admin.getByRole('button', { name: 'Reject', exact: true }).click();
      await hasText(admin.getByTestId('project-status'), 'Rejected');

      // The POC's list, filter and dashboard say Rejected, not Requested.
      await poc.goto(`${svc.url}/projects?status=REJECTED`);
      await heading(poc, 'Projects').waitFor();
      assert.equal(await poc.getByLabel('Status', { exact: true }).locator('option:checked').textContent(), 'Rejected');
      const row = poc.locator('tbody tr', { hasText: 'Visiting cards' });
      await hasText(row.locator('.badge'), 'Rejected');
      await poc.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Dashboard' }).click();
      await hasText(poc.getByTestId('projects-REJECTED').locator('dd'), '1');
      await poc.getByTestId('waiting').getByRole('link', { name: 'Visiting cards' }).click();
      await heading(poc, 'Visiting cards').waitFor();
      await hasText(poc.getByTestId('project-approval'), /^Rejected by Ada Admin, .*Note: Which size\? Say A7 or A8\.$/);

      // Correct the request, then ask again.
      await poc.getByRole('button', { name: 'Edit details' }).click();
      const edit = poc.getByRole('form', { name: 'Edit details' });
      await edit.getByLabel('Name', { exact: true }).fill('Visiting cards, A7');
      await edit.getByLabel('Description (optional)').fill('A7, 400 gsm, 500 copies');
      await edit.getByRole('button', { name: 'Save' }).click();
      await heading(poc, 'Visiting cards, A7').waitFor();
      await poc.getByLabel('Note (optional, kept with the decision)').fill('Now A7');
      await poc.getByRole('button', { name: 'Ask for approval again' }).click();
      await hasText(poc.getByRole('status').filter({ hasText: 'again' }), 'The project is sent to the admins for approval again.');
      await hasText(poc.getByTestId('project-status'), 'Awaiting approval');
      await screenshot(poc, 'resubmitted');

      // The admin's open page follows by itself: a decision is possible again, and the request is in the admins' queue.
      await hasText(admin.getByTestId('project-status'), 'Awaiting approval');
      await heading(admin, 'Visiting cards, A7').waitFor();
      await hasText(admin.locator('.activity li').first(), new RegExp(`^${POC.name} asked for approval again.*note: “Now A7”`));
      const queue = watch(await adminContext.newPage(), 'admin (queue)');
      await queue.goto(svc.url);
      await queue.getByTestId('waiting').getByRole('link', { name: 'Visiting cards, A7' }).waitFor();
      await queue.close();
      await admin.getByRole('button', { name: 'Approve', exact: true }).click();
      await hasText(admin.getByTestId('project-status'), 'Approved');

      // The POC's confirmation was about the request awaiting a decision: it goes, and the page shows the approval.
      await hasText(poc.getByTestId('project-status'), 'Approved');
      await poc.getByRole('status').filter({ hasText: 'sent to the admins' }).waitFor({ state: 'detached' });
      // The owner keeps editing the details until printing starts (interface.md, the job itself).
      await poc.getByRole('button', { name: 'Edit details' }).waitFor();
    });

    test('long names wrap or scroll inside their box, at 1280×800 and on a 390 px phone', async () => {
      const users = await svc.deps.store.users.list();
      const pocId = users.find((u) => u.email === POC.email)!.id;
      const long = `Catalogue_${'X'.repeat(180)}_end`;
      const p = await svc.createProject(pocId, { name: long });
      // An activity entry naming it, for the dashboard's list.
      await svc.deps.store.activity.insert({ id: newId(), userId: pocId, action: 'PROJECT_CREATED', entityType: 'project', entityId: p.id, details: { name: long }, createdAt: new Date().toISOString() });
      for (const [context, who] of [
        [adminContext, 'admin'],
        [pocContext, 'poc'],
      ] as const) {
        const page = watch(await context.newPage(), `${who} (long names)`);
        for (const size of [
          { width: 1280, height: 800 },
          { width: 390, height: 844 },
        ]) {
          await page.setViewportSize(size);
          for (const [url, title] of [
            ['/', 'Dashboard'],
            ['/projects', 'Projects'],
            [`/projects/${p.id}`, long],
          ] as const) {
            await page.goto(`${svc.url}${url}`);
            await heading(page, title).waitFor();
            assert.ok((await sidewaysOverflow(page)) <= 0, `${who} ${url} at ${size.width}px scrolls sideways by ${await sidewaysOverflow(page)}px`);
          }
          // Every column of the list can be reached: on the desktop they lie within the table's own box (which may scroll).
          await page.goto(`${svc.url}/projects`);
          const row = page.locator('tbody tr', { hasText: 'Catalogue_' });
          await row.waitFor();
          const box = (await page.locator('.table-scroll').boundingBox())!;
          for (const cell of await row.locator('td').all()) {
            const b = (await cell.boundingBox())!;
            assert.ok(b.x >= box.x - 1 && b.x + b.width <= box.x + box.width + 1, `${who} at ${size.width}px: a cell lies outside the list's box`);
          }
          assert.match((await row.getByRole('link').getAttribute('title')) ?? '', new RegExp(`^#\\d+ ${long}$`), 'the full name is there, after the job number');
          if (who === 'admin') await screenshot(page, size.width < 500 ? 'long-names-phone' : 'long-names');
        }
        await page.close();
      }
    });

    test('the sign-in page says why a session ended; a 401 in one window signs out every window of the browser', async () => {
      const dana = await svc.createUser({ role: 'POC', email: 'dana@example.com', name: 'Dana Das', password: 'dana-pass-99' });
      const context = await browser.newContext({ viewport: { width: 1280, height: 860 } });
      try {
        const one = watch(await context.newPage(), 'dana (window 1)');
        await signIn(one, { email: dana.email, password: dana.password });
        const two = watch(await context.newPage(), 'dana (window 2)');
        await two.goto(`${svc.url}/projects`);
        await heading(two, 'Projects').waitFor();

        // The session ends outside the browser: window 1 learns it from its next request, window 2 from window 1.
        await svc.deps.store.sessions.deleteForUser(dana.user.id);
        // The click's request meets the 401, unless the live stream's session check got there first (then the page has moved on by itself).
        await one
          .getByRole('navigation', { name: 'Main' })
          .getByRole('link', { name: 'Projects' })
          .click({ timeout: 3000 })
          .catch(() => undefined);
        for (const page of [one, two]) {
          await heading(page, 'Sign in').waitFor();
          await hasText(page.getByTestId('ended-reason'), 'Your session has ended. Sign in again.');
        }
        assert.equal(new URL(two.url()).pathname, '/projects', 'signing in again returns to the same page');
        await assertAccessible(one, 'sign-in page with a reason');
        await screenshot(one, 'session-ended');

        // Signing in again in one window brings the other back too.
        await one.getByLabel('Email').fill(dana.email);
        await one.getByLabel('Password').fill(dana.password);
        await one.getByRole('button', { name: 'Sign in' }).click();
        await heading(one, 'Projects').waitFor();
        await heading(two, 'Projects').waitFor();
      } finally {
        await context.close();
      }
    });

    test(
      'deactivated elsewhere: every open window shows the sign-in page with the reason, without a click',
      async () => {
        const erin = await svc.createUser({ role: 'POC', email: 'erin@example.com', name: 'Erin Eze', password: 'erin-pass-99' });
        const context = await browser.newContext({ viewport: { width: 1280, height: 860 } });
        try {
          const one = watch(await context.newPage(), 'erin (window 1)');
          await signIn(one, { email: erin.email, password: erin.password });
          const two = watch(await context.newPage(), 'erin (window 2)');
          await two.goto(`${svc.url}/projects`);
          await heading(two, 'Projects').waitFor();
          for (const page of [one, two]) await hasText(page.getByTestId('live'), 'Live');

          const adminApi = new Client(svc.url);
          assert.equal((await adminApi.post('/api/auth/login', { email: ADMIN.email, password: ADMIN.password })).status, 200);
          assert.equal((await adminApi.patch(`/api/team/${erin.user.id}`, { active: false })).status, 200);
          for (const page of [one, two]) {
            await heading(page, 'Sign in').waitFor({ timeout: 5000 });
            await hasText(page.getByTestId('ended-reason'), 'Your account was deactivated by an administrator.');
          }
          // Signing in then gets the one answer for every failure (interface.md): the reason was given above.
          await one.getByLabel('Email').fill(erin.email);
          await one.getByLabel('Password').fill(erin.password);
          await one.getByRole('button', { name: 'Sign in' }).click();
          await hasText(one.getByRole('alert'), 'Wrong email or password. Check both and try again.');
        } finally {
          await context.close();
        }
      },
    );

    test('a service stopped and started again under an open page: the page stays, says so, and recovers; an oversized file is refused before sending', async () => {
      // PUBLIC_URL left at its default (http://localhost:PORT) while the page is opened at 127.0.0.1, the address the start-up log shows first.
      const { config, cleanup } = await testConfig({ env: { PUBLIC_URL: '', ADMIN_EMAIL: 'olga@example.com', ADMIN_PASSWORD: 'olga-admin-pass', ADMIN_NAME: 'Olga Admin', MAX_UPLOAD_BYTES: '1048576' } });
      assert.equal(config.publicUrl, `http://localhost:${config.port}`);
      let running: RunningService | null = await startService(config);
      const url = `http://127.0.0.1:${config.port}`;
      const context = await browser.newContext({ viewport: { width: 1280, height: 860 } });
      try {
        // Not watch(): while the service is down the browser logs each failed request, on purpose here; anything else is a problem.
        const page = await context.newPage();
        const outage: string[] = [];
        page.on('console', (msg) => {
          if (msg.type() !== 'error') return;
          if (/ERR_CONNECTION_REFUSED|ERR_EMPTY_RESPONSE|status of 503/.test(msg.text())) outage.push(msg.text());
          else if (/status of 401/.test(msg.text()) && msg.location().url.endsWith('/api/auth/session')) return; // the check before signing in
          else problems.push(`olga: console error: ${msg.text()} (${msg.location().url})`);
        });
        page.on('pageerror', (err) => problems.push(`olga: uncaught ${err.name}: ${err.message}`));
        await page.goto(url);
        await page.getByLabel('Email').fill('olga@example.com');
        await page.getByLabel('Password').fill('olga-admin-pass');
        await page.getByRole('button', { name: 'Sign in' }).click();
        await heading(page, 'Dashboard').waitFor();
        const owner = (await running.deps.store.users.list())[0]!;
        const now = new Date().toISOString();
        const project = { id: newId(), name: 'Flyers', description: null, pocId: owner.id, status: 'APPROVED' as const, piStatus: 'VERIFIED' as const, approval: { status: 'APPROVED' as const, note: null, decidedById: owner.id, decidedAt: now }, createdAt: now, updatedAt: now };
        await running.deps.store.projects.insert(project);
        await page.goto(`${url}/projects/${project.id}`);
        await heading(page, 'Flyers').waitFor();
        await hasText(page.getByTestId('live'), 'Live');

        // Larger than MAX_UPLOAD_BYTES: refused on the spot, no request sent.
        const uploads: string[] = [];
        page.on('request', (r) => {
          if (new URL(r.url()).pathname === '/api/upload') uploads.push(r.url());
        });
        await page.getByLabel('Drop a file here, or choose one').setInputFiles({ name: 'big.pdf', mimeType: 'application/pdf', buffer: Buffer.alloc(1_200_000, 0x25) });
        await hasText(page.getByTestId('upload-error'), 'big.pdf is 1.1 MB, larger than the upload limit of 1 MB. Choose a smaller file.');
        await settles(() => page.getByRole('button', { name: 'Upload', exact: true }).isDisabled(), true);
        assert.deepEqual(uploads, [], 'nothing was sent');
        await hasText(page.locator('#upload-limit'), 'Up to 1 MB.');

        // The service goes away: the page keeps the project and says the connection is lost.
        await running.close();
        running = null;
        await page.getByTestId('connection-notice').waitFor();
        await heading(page, 'Flyers').waitFor();
        await screenshot(page, 'connection-lost');
        // An action taken meanwhile shows its own error where it was taken; the page stays.
        await page.getByRole('button', { name: 'Start printing' }).click();
        await hasText(page.locator('section[aria-labelledby="actions-title"] .error'), 'The service cannot be reached. Check your connection and try again.');
        await heading(page, 'Flyers').waitFor();
        // Going back to a page seen before shows it as it was, not an error page.
        await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Dashboard' }).click();
        await heading(page, 'Dashboard').waitFor();
        await page.goBack();
        await heading(page, 'Flyers').waitFor();

        // Back again: the notice goes by itself and the action works.
        running = await startService(config);
        await page.getByTestId('connection-notice').waitFor({ state: 'detached', timeout: 20_000 });
        await hasText(page.getByTestId('live'), 'Live');
        await page.getByRole('button', { name: 'Start printing' }).click();
        await hasText(page.getByTestId('project-status'), 'Printing');
        assert.ok(outage.length > 0, 'the outage was real');

        // Signing in at localhost works as well as at 127.0.0.1.
        const other = await browser.newContext();
        try {
          const there = watch(await other.newPage(), 'olga at localhost');
          await there.goto(`http://localhost:${config.port}/`);
          await heading(there, 'Sign in').waitFor();
          await there.getByLabel('Email').fill('olga@example.com');
          await there.getByLabel('Password').fill('olga-admin-pass');
          await there.getByRole('button', { name: 'Sign in' }).click();
          await heading(there, 'Dashboard').waitFor();
        } finally {
          await other.close();
        }
      } finally {
        await context.close();
        await running?.close();
        await cleanup();
      }
    });

    test('axe-core finds no serious or critical violation on any page, at desktop and phone sizes', async () => {
      const clientContext = await browser.newContext({ viewport: { width: 1280, height: 860 } });
      try {
        const client = watch(await clientContext.newPage(), 'client (axe)');
        await client.goto(svc.url);
        await heading(client, 'Sign in').waitFor();
        await assertAccessible(client, 'sign-in');
        await signIn(client, { email: CLIENT.email, password: 'carl-new-pass-2' });
        const pages: [BrowserContext | null, string, string, string][] = [
          [adminContext, 'admin', '/', 'Dashboard'],
          [adminContext, 'admin', '/projects', 'Projects'],
          [adminContext, 'admin', `/projects/${projectId}`, PROJECT],
          [adminContext, 'admin', '/projects/new', 'New project'],
          [adminContext, 'admin', '/team', 'Team'],
          [pocContext, 'poc', '/', 'Dashboard'],
          [pocContext, 'poc', '/projects', 'Projects'],
          [pocContext, 'poc', `/projects/${dispatchedId}`, 'Autumn leaflets'],
          [pocContext, 'poc', '/team', 'Team'],
          [null, 'client', '/', 'Dashboard'],
          [null, 'client', '/projects', 'Projects'],
          [null, 'client', '/no-such-page', 'Page not found'],
        ];
        for (const size of [
          { width: 1280, height: 800 },
          { width: 390, height: 844 },
        ]) {
          const opened = new Map<string, Page>();
          for (const [context, who, url, title] of pages) {
            let page = context ? opened.get(who) : client;
            if (!page) opened.set(who, (page = watch(await context!.newPage(), `${who} (axe)`)));
            await page.setViewportSize(size);
            await page.goto(`${svc.url}${url}`);
            await heading(page, title).waitFor();
            await page.waitForLoadState('networkidle').catch(() => {});
            await assertAccessible(page, `${who} ${url} at ${size.width}px`);
          }
          for (const page of opened.values()) await page.close();
        }
      } finally {
        await clientContext.close();
      }
    });

    test('signing out returns to the sign-in page, and the session is gone', async () => {
      for (const page of [poc, admin]) {
        await page.getByRole('button', { name: 'Sign out' }).click();
        await heading(page, 'Sign in').waitFor();
        assert.equal(new URL(page.url()).pathname, '/');
        const session = await page.evaluate(async () => (await fetch('/api/auth/session')).status);
        assert.equal(session, 401);
      }
    });

    test('no page logged a console error or threw', () => {
      assert.deepEqual(problems, []);
    });
  });
}
