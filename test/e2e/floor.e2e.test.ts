/**
 * Issue 35 in a real browser: the floor on the project page (hold with a reason and release, the
 * held banner, the Rush toggle, Reorder in one click) and #N, Held and Rush wherever a project is
 * named; the first run (the sign-in page's hint, the setup page of the logged link). Screenshots at
 * 1280 and 390 px; axe on each screen.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Page } from 'playwright-core';
import { ADMIN, type BrowserTest, SESSION_CHECK, assertAccessible, heading, jobTitle, screenshot, sidewaysOverflow, startBrowserTest } from '../helpers/browser.js';
import { captureLogs } from '../helpers/logs.js';
import type { Client } from '../helpers/service.js';
import { browserTestsSkipped } from './build.js';

const skip = browserTestsSkipped('test/e2e/floor.e2e.test.ts');

if (skip) test('the floor in a browser', { skip }, () => {});
else {
  describe('the floor in a browser', { timeout: 300_000 }, () => {
    let t: BrowserTest;
    let admin: Client;
    let id = '';
    let number = 0;
    const CLIENT = { name: 'Chitra Client', email: 'chitra@example.com', password: 'chitra-client-pass' };
    const problems: string[] = [];

    before(async () => {
      t = await startBrowserTest({ admin: ADMIN });
      admin = await t.svc.login(ADMIN.email, ADMIN.password);
      const customer = (await admin.post('/api/customers', { name: 'Acme Weddings' })).body;
      const { user: poc } = await t.svc.createUser({ role: 'POC', name: 'Pia Poc' });
      const project = await t.svc.createProject(poc.id, { name: 'Wedding cards', status: 'APPROVED', piStatus: 'VERIFIED', customerId: customer.id, reference: 'PO-77' });
      ({ id, number } = project);
      const { user: client } = await t.svc.createUser({ role: 'CLIENT', ...CLIENT });
      assert.equal((await admin.patch(`/api/team/${client.id}`, { customerId: customer.id })).status, 200);
      const lines = [
        { description: 'Invitation, folded', quantity: 300, unit: 'pcs', size: 'A5', stock: '300 gsm', colours: '4/0', finishing: 'Gold foil' },
        { description: 'RSVP card', quantity: 300, unit: 'pcs', size: 'A6' },
      ];
      assert.equal((await admin.patch(`/api/projects/${id}/details`, { items: lines, deliveryAddress: '12 MG Road, Bengaluru' })).status, 200);
    });
    after(async () => {
      await t?.close();
      assert.deepEqual(problems, [], 'no uncaught errors or unexpected failed loads');
    });

    const floor = (page: Page) => page.getByTestId('floor-controls');

    test('hold with a reason, the banner and badges, rush, release; #N in the list and the title', async () => {
      const page = await t.window({ problems, who: 'admin', expected: [SESSION_CHECK] });
      await t.signIn(page, ADMIN);
      await page.goto(`${t.svc.url}/projects/${id}`);
      await jobTitle(page, number, 'Wedding cards').waitFor();
      assert.equal(await page.getByTestId('hold-banner').count(), 0);

      // A hold needs its reason: said beside the field, nothing sent.
      await floor(page).getByRole('button', { name: 'Put on hold' }).click();
      await floor(page).getByText('Say why the job is held').waitFor();
      await floor(page).getByLabel('Reason for the hold').fill('Waiting for the logo in vector');
      await floor(page).getByRole('button', { name: 'Put on hold' }).click();
      await page.getByTestId('hold-banner').filter({ hasText: 'On hold: Waiting for the logo in vector' }).waitFor();
      await page.getByTestId('title-badges').getByTestId('held-badge').waitFor();
      assert.match((await page.getByTestId('hold-banner').textContent()) ?? '', /by You/);
      // The server's permission now offers the release.
      await floor(page).getByRole('button', { name: 'Release the hold' }).waitFor();
      // Rush, as one of the job's details.
      await floor(page).getByLabel('Rush job').check();
      await page.getByTestId('title-badges').getByTestId('rush-badge').waitFor();
      await assertAccessible(page, 'a held rush project');
      await screenshot(page, 'floor-held-1280');

      // The list: #N, Held and Rush in the row; the search hint names job numbers.
      await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Projects', exact: true }).click();
      await heading(page, 'Projects').waitFor();
      const row = page.getByRole('row').filter({ hasText: 'Wedding cards' });
      assert.match((await row.getByRole('link').first().textContent()) ?? '', new RegExp(`^#${number}\\s*Wedding cards$`));
      await row.getByTestId('held-badge').waitFor();
      await row.getByTestId('rush-badge').waitFor();
      assert.equal(await page.getByLabel('Job number, name, reference or POC').getAttribute('placeholder'), 'e.g. #1042 or catalogue');
      // Searching by the number finds the job.
      await page.getByLabel('Job number, name, reference or POC').fill(`#${number}`);
      await page.getByRole('button', { name: 'Search' }).click();
      await page.getByRole('row').filter({ hasText: 'Wedding cards' }).waitFor();
      await assertAccessible(page, 'the project list with a held rush job');
      await screenshot(page, 'floor-projects-1280');

      // The dashboard counts it on hold and rush; each tile opens the list of just those jobs.
      const other = await t.svc.createProject((await admin.get(`/api/projects/${id}`)).body.pocId, { name: 'Plain leaflets', status: 'APPROVED' });
      await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Dashboard', exact: true }).click();
      for (const [tile, label] of [['floor-held', 'On hold'], ['floor-rush', 'Rush']] as const) {
        await page.getByTestId(tile).locator('dd').filter({ hasText: /^1$/ }).waitFor();
        await page.getByTestId(tile).getByRole('link', { name: label, exact: true }).click();
        await heading(page, 'Projects').waitFor();
        await page.getByRole('row').filter({ hasText: 'Wedding cards' }).waitFor();
        assert.equal(await page.getByRole('row').filter({ hasText: other.name }).count(), 0, `${label}: only those jobs`);
        assert.equal(await page.getByLabel('Hold and rush').inputValue(), tile === 'floor-held' ? 'held' : 'rush');
        await page.goBack();
      }

      // Release, with a note: the banner goes, the hold form comes back; the activity says both.
      await page.goto(`${t.svc.url}/projects/${id}`);
      await floor(page).getByLabel('Note (optional)').fill('Logo received');
      await floor(page).getByRole('button', { name: 'Release the hold' }).click();
      await floor(page).getByRole('button', { name: 'Put on hold' }).waitFor();
      assert.equal(await page.getByTestId('hold-banner').count(), 0);
      await page.getByText('released the project from hold').waitFor();
      await page.getByText('note: “Logo received”').waitFor();
      await page.close();
    });

    test('at 390 px, the customer’s client: the held banner, no hold or rush controls (canHold, canEditDetails), Reorder (canReorder)', async () => {
      assert.equal((await admin.post(`/api/projects/${id}/hold`, { reason: 'Paper stock late: 300 gsm ivory arrives Monday' })).status, 200);
      const page = await t.window({ viewport: { width: 390, height: 844 }, problems, who: 'phone', expected: [SESSION_CHECK] });
      await t.signIn(page, CLIENT);
      await page.goto(`${t.svc.url}/projects/${id}`);
      await page.getByTestId('hold-banner').filter({ hasText: 'Paper stock late' }).waitFor();
      await floor(page).getByRole('button', { name: 'Reorder' }).waitFor();
      assert.deepEqual(
        [await floor(page).getByRole('button', { name: /hold/ }).count(), await floor(page).getByLabel('Rush job').count()],
        [0, 0],
        'a CLIENT may neither hold nor change the job',
      );
      assert.equal(await sidewaysOverflow(page), 0, 'the project page fits 390 px');
      await assertAccessible(page, 'the held project at 390 px');
      await screenshot(page, 'floor-held-390');
      await page.goto(`${t.svc.url}/projects`);
      await page.getByRole('link', { name: new RegExp(`#${number}\\s*Wedding cards`) }).waitFor();
      assert.equal(await sidewaysOverflow(page), 0, 'the list fits 390 px');
      await screenshot(page, 'floor-projects-390');
      await page.close();
      assert.equal((await admin.post(`/api/projects/${id}/release`, {})).status, 200);
    });

    test('Reorder: one click makes the new request and opens it; the dashboard names it #N', async () => {
      const page = await t.window({ problems, who: 'reorder', expected: [SESSION_CHECK] });
      await t.signIn(page, ADMIN);
      await page.goto(`${t.svc.url}/projects/${id}`);
      await jobTitle(page, number, 'Wedding cards').waitFor();
      await floor(page).getByRole('button', { name: 'Reorder' }).click();
      await page.waitForURL((url) => url.pathname.startsWith('/projects/') && !url.pathname.endsWith(id));
      const newId = new URL(page.url()).pathname.split('/').pop()!;
      const created = (await admin.get(`/api/projects/${newId}`)).body;
      assert.equal(created.repeatOf.id, id);
      assert.ok(created.number > number);
      await jobTitle(page, created.number, 'Wedding cards').waitFor();
      // The original named as everywhere else: its job number, then its name.
      await page.getByTestId('repeat-of').getByRole('link', { name: `#${number} Wedding cards`, exact: true }).waitFor();
      assert.equal((await page.getByTestId('repeat-of').textContent())?.replace(/\s+/g, ' ').trim(), `Reorder of #${number} Wedding cards`);
      await page.getByTestId('job-lines').getByText('Invitation, folded').waitFor();
      await page.getByTestId('job-lines').getByText('RSVP card').waitFor();
      assert.equal(await page.getByTestId('job-reference').textContent(), '—', 'the reference is the new order’s, none sent');
      await assertAccessible(page, 'the reordered project');
      await screenshot(page, 'floor-reorder-1280');
      // On a phone the line under the title fits, with the number.
      const phone = await t.window({ viewport: { width: 390, height: 844 }, problems, who: 'reorder-phone', expected: [SESSION_CHECK] });
      await t.signIn(phone, ADMIN);
      await phone.goto(`${t.svc.url}/projects/${newId}`);
      await phone.getByTestId('repeat-of').getByRole('link', { name: `#${number} Wedding cards`, exact: true }).waitFor();
      assert.equal(await sidewaysOverflow(phone), 0, 'the reordered project fits 390 px');
      await screenshot(phone, 'floor-reorder-390');
      await phone.close();
      // The dashboard's "Awaiting your decision" and its activity lines name it #N.
      await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Dashboard', exact: true }).click();
      await page.getByTestId('waiting').getByRole('link', { name: `#${created.number} Wedding cards` }).waitFor();
      await page.getByRole('link', { name: `#${created.number} Wedding cards` }).nth(1).waitFor();
      await page.close();
    });
  });

  describe('the first run in a browser', { timeout: 300_000 }, () => {
    let t: BrowserTest;
    const logs = captureLogs('warn');
    const problems: string[] = [];
    let token = '';

    before(async () => {
      t = await startBrowserTest({ logger: logs.logger });
      const line = logs.lines.find((l) => l.msg.endsWith(' to create the first admin'));
      assert.ok(line, 'the setup link is logged');
      token = /\/setup#([0-9A-Za-z]+) /.exec(line.msg)![1]!;
    });
    after(async () => {
      await t?.close();
      assert.deepEqual(problems, [], 'no uncaught errors or unexpected failed loads');
    });

    test('the sign-in page says where to look; the setup page without the link says so; the link makes the admin and signs in', async () => {
      const phone = await t.window({ viewport: { width: 390, height: 844 }, problems, who: 'phone', expected: [SESSION_CHECK] });
      await phone.goto(t.svc.url);
      await heading(phone, 'Sign in').waitFor();
      await phone.getByTestId('setup-hint').filter({ hasText: 'to create the first admin' }).waitFor();
      assert.equal(await sidewaysOverflow(phone), 0);
      await assertAccessible(phone, 'the sign-in page of a new install');
      await screenshot(phone, 'setup-sign-in-390');
      await phone.goto(`${t.svc.url}/setup`);
      await phone.getByTestId('setup-no-token').waitFor();
      await phone.goto(`${t.svc.url}/setup#${token}`);
      await phone.getByLabel('Your name').waitFor();
      assert.equal(new URL(phone.url()).hash, '', 'the token is taken out of the address bar');
      assert.equal(await sidewaysOverflow(phone), 0);
      await assertAccessible(phone, 'the setup page at 390 px');
      await screenshot(phone, 'setup-390');
      await phone.close();

      const page = await t.window({ problems, who: 'setup', expected: [SESSION_CHECK, { path: /^\/api\/setup$/, status: [403] }] });
      await page.goto(`${t.svc.url}/setup#${token.slice(0, -2)}xx`);
      await heading(page, 'Set up the first admin').waitFor();
      // Checked before sending: a short password said beside its field.
      await page.getByLabel('Your name').fill('Ada First');
      await page.getByLabel('Email').fill('ada.first@example.com');
      await page.getByLabel('Password').fill('short');
      await page.getByRole('button', { name: 'Create the admin and sign in' }).click();
      await page.getByText('Password must be at least 8 characters').waitFor();
      // A wrong link: the server's refusal, in words that say what to do.
      await page.getByLabel('Password').fill('first-admin-pass');
      await page.getByRole('button', { name: 'Create the admin and sign in' }).click();
      await page.getByRole('alert').filter({ hasText: 'not the one in the service’s log' }).waitFor();
      await assertAccessible(page, 'the setup page');
      await screenshot(page, 'setup-1280');

      await page.goto(`${t.svc.url}/setup#${token}`);
      await page.getByLabel('Your name').fill('Ada First');
      await page.getByLabel('Email').fill('ada.first@example.com');
      await page.getByLabel('Password').fill('first-admin-pass');
      await page.getByRole('button', { name: 'Create the admin and sign in' }).click();
      await heading(page, 'Dashboard').waitFor();
      assert.match((await page.locator('.who').textContent()) ?? '', /Ada First.*Admin/);
      await page.close();

      // Used once: the link again says setup is done; the sign-in page no longer points at the log.
      const later = await t.window({ problems, who: 'later', expected: [SESSION_CHECK] });
      await later.goto(`${t.svc.url}/setup#${token}`);
      await later.getByTestId('setup-done').waitFor();
      const asked = later.waitForResponse((r) => new URL(r.url()).pathname === '/api/setup');
      await later.goto(t.svc.url);
      await heading(later, 'Sign in').waitFor();
      assert.deepEqual(await (await asked).json(), { needed: false });
      assert.equal(await later.getByTestId('setup-hint').count(), 0);
      await later.close();
    });
  });
}
