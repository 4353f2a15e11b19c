/**
 * Issue 33's screen items in a real browser (Debian's Chromium through playwright-core): what a
 * shop's staff and customers meet on screen. The customer's person is shown no upload card and no
 * wrong reason (1); the Webhooks form is styled (2); the job's lines fit a phone and a desk (3);
 * the header keeps one row at 1280 px (4); numbers typed with Indian or international grouping are
 * taken, misplaced commas explained (5); printing a project leaves the navigation and forms out and
 * keeps every column (6); the words on screen (7). Screenshots at 390 and 1280 px land in
 * docs/screenshots (edges-*.png).
 */
import assert from 'node:assert/strict';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { Page } from 'playwright-core';
import { type BrowserTest, type ExpectedLoad, SESSION_CHECK, descriptionOf, heading, screenshot, sidewaysOverflow, startBrowserTest, watch } from '../helpers/browser.js';
import { eventuallyPasses } from '../helpers/eventually.js';
import type { Client, TestService } from '../helpers/service.js';
import { todayIso } from '../../web/src/money.js';
import { SCREENSHOTS, browserTestsSkipped } from './build.js';

const skip = browserTestsSkipped('test/e2e/edges.e2e.test.ts');

/** An admin with an ordinary two-word name of 13 letters and spaces (item 4). */
const ADMIN = { name: 'Vikram Sharma', email: 'vikram@example.com', password: 'vikram-admin-42' };
const POC = { name: 'Priya Nair', email: 'priya@example.com', password: 'priya-pass-42' };
const CLIENT = { name: 'Carl Client', email: 'carl@example.com', password: 'carl-pass-123' };
const PROJECT = 'Annual report 2026';
const SIZE = '120 × 80 × 45 mm';

const EXPECTED: ExpectedLoad[] = [SESSION_CHECK];
const PHONE = { viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true };

const addDays = (day: string, n: number) => {
  const d = new Date(`${day}T12:00:00`);
  d.setDate(d.getDate() + n);
  return todayIso(d);
};

if (skip) test('issue 33 on screen', { skip }, () => {});
else
  describe('issue 33 on screen', { timeout: 600_000 }, () => {
    let t: BrowserTest;
    let svc: TestService;
    let adminApi: Client;
    let pocApi: Client;
    let projectId: string;
    let requestedId: string;
    const problems: string[] = [];
    const today = todayIso();

    const windowFor = async (who: string, options: Parameters<BrowserTest['window']>[0] = {}) => {
      const page = await t.window({ viewport: { width: 1280, height: 900 }, locale: 'en-IN', ...options });
      watch(page, problems, { who, expected: EXPECTED });
      return page;
    };
    /** Signed in as `person` in a fresh window; closed by the caller. */
    const as = async (person: typeof ADMIN, who: string, options: Parameters<BrowserTest['window']>[0] = {}) => {
      const page = await windowFor(who, options);
      await t.signIn(page, person);
      return page;
    };
    const openProject = async (page: Page, id = projectId, name = PROJECT) => {
      await page.goto(`${svc.url}/projects/${id}`);
      await heading(page, name).waitFor();
      await page.getByTestId('job-lines').waitFor();
    };

    before(async () => {
      t = await startBrowserTest({ admin: ADMIN });
      svc = t.svc;
      adminApi = await svc.login(ADMIN.email, ADMIN.password);
      const customer = (await adminApi.post('/api/customers', { name: 'Acme Prints' })).body;
      const poc = (await svc.createUser({ role: 'POC', ...POC })).user;
      const client = (await svc.createUser({ role: 'CLIENT', ...CLIENT })).user;
      assert.equal((await adminApi.patch(`/api/team/${client.id}`, { customerId: customer.id })).status, 200);
      pocApi = await svc.login(POC.email, POC.password);
      projectId = (await svc.createProject(poc.id, { name: PROJECT, status: 'DISPATCHED', piStatus: 'VERIFIED', customerId: customer.id, reference: 'PO-4471', dueDate: addDays(today, 5) })).id;
      const items = [
        { description: 'Annual report, A4, 48 pages, perfect bound', quantity: 2500, size: SIZE, stock: '170 gsm matt art', colours: '4/4 + spot UV cover', finishing: 'perfect binding, matt lamination', notes: 'Deliver in cartons of 50' },
        { description: 'Presentation boxes', quantity: 250, unit: 'boxes', size: SIZE, stock: '2 mm greyboard', colours: '1/0 black', finishing: 'wrapped, foil logo', notes: 'Logo in gold foil' },
      ];
      assert.equal((await adminApi.patch(`/api/projects/${projectId}/details`, { items })).status, 200);
      assert.equal((await pocApi.post(`/api/projects/${projectId}/comments`, { body: 'Cartons labelled, please.' })).status, 201);
      // A request awaiting the admin's decision, with its due date (item 7).
      requestedId = (await pocApi.post('/api/projects', { name: 'Wedding cards', dueDate: addDays(today, 9) })).body.id;
      assert.ok(requestedId);
    });
    after(() => t?.close());

    test('item 1: the customer’s person sees no upload card and no wrong reason; the owner still uploads', async () => {
      for (const [width, options] of [
        [1280, {}],
        [390, PHONE],
      ] as const) {
        const client = await as(CLIENT, `client ${width}`, options);
        try {
          await openProject(client);
          await client.getByRole('region', { name: 'Documents' }).waitFor();
          assert.equal(await client.getByRole('region', { name: 'Upload a document' }).count(), 0, 'no upload card for someone who may not upload');
          assert.equal(await client.getByText(/can be added once the project is dispatched/).count(), 0, 'no wrong reason');
          assert.equal(await sidewaysOverflow(client), 0);
          await screenshot(client, `edges-client-project-${width}`);
        } finally {
          await client.context().close();
        }
      }
      const poc = await as(POC, 'poc');
      try {
        await openProject(poc);
        const upload = poc.getByRole('region', { name: 'Upload a document' });
        await upload.waitFor();
        await poc.locator('#type-CHALLAN:not([disabled])').waitFor();
      } finally {
        await poc.context().close();
      }
    });

    test('item 2: the Webhooks form: small checkboxes beside their labels, no default border, the primary button', async () => {
      for (const [width, options] of [
        [1280, {}],
        [390, PHONE],
      ] as const) {
        const admin = await as(ADMIN, `admin ${width}`, options);
        try {
          await admin.goto(`${svc.url}/webhooks`);
          await heading(admin, 'Webhooks').waitFor();
          const form = admin.getByRole('region', { name: 'Add a webhook' });
          const all = form.getByRole('checkbox', { name: 'All events' });
          await all.waitFor();
          const boxes = await form.getByRole('checkbox').evaluateAll((els) =>
            els.map((el) => {
              const box = el.getBoundingClientRect();
              const label = el.closest('label')!.getBoundingClientRect();
              const text = document.createRange();
              text.selectNodeContents(el.closest('label')!);
              return { width: box.width, height: box.height, left: box.left, labelLeft: label.left, labelHeight: label.height };
            }),
          );
          assert.ok(boxes.length > 5);
          for (const b of boxes) {
            assert.ok(b.width <= 24 && b.height <= 24, `a checkbox is ${b.width} × ${b.height} px`);
            assert.ok(b.left - b.labelLeft < 8, 'the checkbox starts its label’s row');
            assert.ok(b.labelHeight < 40, `the label and its checkbox share one line (${b.labelHeight} px high)`);
          }
          const fieldset = await form.locator('fieldset').evaluate((el) => getComputedStyle(el).borderTopStyle);
          assert.notEqual(fieldset, 'groove', 'no default fieldset border');
          assert.match((await form.getByRole('button', { name: 'Add webhook' }).getAttribute('class')) ?? '', /\bprimary\b/);
          assert.equal(await sidewaysOverflow(admin), 0);
          await screenshot(admin, `edges-webhooks-${width}`);
        } finally {
          await admin.context().close();
        }
      }
    });

    test('item 3: the job’s lines: a narrow #, the description whole on a phone, the size on one line at 1280 px', async () => {
      const admin = await as(ADMIN, 'admin lines');
      try {
        await openProject(admin);
        const table = admin.getByTestId('job-lines');
        const m = await table.evaluate((el) => {
          const th = [...el.querySelectorAll('thead th')].map((c) => c.getBoundingClientRect().width);
          const size = el.querySelector('tbody tr td:nth-child(4)')!;
          const qty = el.querySelector('tbody tr td:nth-child(3)')!;
          return { table: el.getBoundingClientRect().width, hash: th[0]!, sizeHeight: size.getBoundingClientRect().height, lineHeight: parseFloat(getComputedStyle(size).lineHeight) || 24, qtyHeight: qty.getBoundingClientRect().height };
        });
        assert.ok(m.hash / m.table < 0.05, `# takes ${Math.round((100 * m.hash) / m.table)} % of the table`);
        assert.ok(m.sizeHeight <= m.qtyHeight + 1, `"${SIZE}" on one line (${m.sizeHeight} px against ${m.qtyHeight} px)`);
        await screenshot(admin, 'edges-lines-1280');

        await admin.setViewportSize({ width: 390, height: 844 });
        await openProject(admin);
        const phone = await table.evaluate((el) => {
          const box = el.closest('.lines-box')!.getBoundingClientRect();
          const hash = el.querySelector('thead th')!.getBoundingClientRect();
          const desc = el.querySelector('tbody tr td:nth-child(2)')!;
          const d = desc.getBoundingClientRect();
          return { box: box.width, boxRight: box.right, hash: hash.width, descRight: d.right, descCut: desc.scrollWidth > desc.clientWidth };
        });
        assert.ok(phone.hash <= 40, `# is ${phone.hash} px wide on a phone`);
        assert.ok(phone.descRight <= phone.boxRight + 1, `the description ends at ${phone.descRight} px, the box at ${phone.boxRight} px`);
        assert.equal(phone.descCut, false);
        assert.equal(await sidewaysOverflow(admin), 0);
        await admin.getByTestId('job').screenshot({ path: path.join(SCREENSHOTS, 'edges-lines-390.png') });
      } finally {
        await admin.context().close();
      }
    });

    test('item 4: the header keeps one row at 1280 px with a two-word name and the role', async () => {
      const admin = await as(ADMIN, 'admin header');
      try {
        const who = admin.locator('.who');
        await who.filter({ hasText: `${ADMIN.name} · Admin` }).waitFor();
        const rows = await admin.locator('.header-inner').evaluate((el) => {
          const tops = [...el.children].map((c) => Math.round(c.getBoundingClientRect().top));
          return { tops, height: el.getBoundingClientRect().height };
        });
        assert.ok(Math.max(...rows.tops) - Math.min(...rows.tops) < 12, `the header's parts start at ${rows.tops.join(', ')} px`);
        assert.ok(rows.height < 70, `the header is ${rows.height} px high`);
        await admin.locator('.app-header').screenshot({ path: path.join(SCREENSHOTS, 'edges-header-1280.png') });
        await admin.setViewportSize({ width: 390, height: 844 });
        await who.waitFor();
        assert.equal(await sidewaysOverflow(admin), 0);
        await admin.locator('.app-header').screenshot({ path: path.join(SCREENSHOTS, 'edges-header-390.png') });
      } finally {
        await admin.context().close();
      }
    });

    test('item 5: "20,000" pieces, a PI of "1,75,230" and a payment of "1,75,230.50" are taken; misplaced commas are explained', async () => {
      const admin = await as(ADMIN, 'admin numbers');
      try {
        await admin.goto(`${svc.url}/projects/new`);
        await heading(admin, 'New project').waitFor();
        await admin.getByLabel('Name', { exact: true }).fill('Calendars 2027');
        await admin.getByRole('button', { name: 'Add a line' }).click();
        const line = admin.getByTestId('line-1');
        await line.getByLabel('Description').fill('Wall calendar');
        await line.getByLabel('Quantity').fill('2,0000');
        await admin.getByRole('button', { name: 'Create project' }).click();
        await line.locator('.field-error').waitFor();
        assert.match(await descriptionOf(line.getByLabel('Quantity')), /Line 1 quantity has its commas in the wrong places: write 20,000 or 20000/);
        await line.getByLabel('Quantity').fill('20,000');
        await admin.getByRole('button', { name: 'Create project' }).click();
        await heading(admin, 'Calendars 2027').waitFor();
        const id = new URL(admin.url()).pathname.split('/').pop()!;
        assert.equal((await adminApi.get(`/api/projects/${id}`)).body.items[0].quantity, 20000);
        await admin.getByTestId('job-lines').getByText('20,000 pcs').waitFor();

        await admin.getByRole('button', { name: 'Approve' }).click();
        await admin.getByRole('button', { name: 'Submit PI' }).click();
        const pi = admin.getByRole('form', { name: 'Submit the PI' });
        await pi.getByLabel('PI number').fill('PI-77');
        await pi.getByLabel('Amount').fill('1,7,5230');
        await pi.getByRole('button', { name: 'Submit the PI' }).click();
        await pi.locator('.field-error').waitFor();
        assert.match(await descriptionOf(pi.getByLabel('Amount')), /Amount has its commas in the wrong places: write 1,75,230 or 175,230 or 175230/);
        await admin.getByRole('region', { name: 'What you can do now' }).screenshot({ path: path.join(SCREENSHOTS, 'edges-amount-refused-1280.png') });
        await pi.getByLabel('Amount').fill('1,75,230');
        await pi.getByRole('button', { name: 'Submit the PI' }).click();
        await admin.getByTestId('project-pi-figures').filter({ hasText: 'PI-77: ₹1,75,230.00' }).waitFor();
        assert.equal((await adminApi.get(`/api/projects/${id}`)).body.pi.amount, 17523000);

        await admin.getByRole('button', { name: 'Record a payment' }).click();
        const pay = admin.getByRole('form', { name: 'Record a payment' });
        await pay.getByLabel('Amount').fill('1,75,230.50');
        await pay.getByRole('button', { name: 'Record the payment' }).click();
        await admin.getByTestId('payments-paid').filter({ hasText: '₹1,75,230.50' }).waitFor();
        assert.equal((await adminApi.get(`/api/projects/${id}`)).body.payments[0].amount, 17523050);

        await admin.setViewportSize({ width: 390, height: 844 });
        await admin.getByRole('button', { name: 'Record a payment' }).click();
        await pay.getByLabel('Amount').fill('17,52,30');
        await pay.getByRole('button', { name: 'Record the payment' }).click();
        await pay.locator('.field-error').waitFor();
        assert.match(await descriptionOf(pay.getByLabel('Amount')), /commas in the wrong places/);
        await admin.getByTestId('payments').screenshot({ path: path.join(SCREENSHOTS, 'edges-amount-refused-390.png') });
      } finally {
        await admin.context().close();
      }
    });

    test('item 6: printing a project leaves out the navigation and the forms and keeps every column of the lines', async () => {
      for (const [width, options] of [
        [1280, {}],
        [390, PHONE],
      ] as const) {
        const admin = await as(ADMIN, `admin print ${width}`, options);
        try {
          await openProject(admin);
          await admin.getByRole('region', { name: 'Upload a document' }).waitFor();
          await admin.emulateMedia({ media: 'print' });
          await admin.waitForFunction(() => matchMedia('print').matches);
          for (const hidden of ['.app-header', '.edit-details', '.comment-form', '[aria-labelledby="upload-title"]', '[aria-labelledby="actions-title"]']) {
            assert.equal(await admin.locator(hidden).first().isVisible(), false, `${hidden} is not printed`);
          }
          await admin.getByRole('region', { name: 'Comments' }).getByText('Cartons labelled, please.').waitFor();
          const cut = await admin.getByTestId('job-lines').evaluate((el) => {
            const page = document.documentElement.clientWidth;
            return [...el.querySelectorAll('th, td')].filter((c) => c.getBoundingClientRect().right > page + 1 || c.scrollWidth > c.clientWidth + 1).map((c) => c.textContent);
          });
          assert.deepEqual(cut, [], 'no column is cut');
          assert.equal(await admin.getByTestId('job-lines').getByRole('columnheader', { name: 'Notes' }).isVisible(), true);
          await screenshot(admin, `edges-print-${width}`);
        } finally {
          await admin.context().close();
        }
      }
    });

    test('item 7: the words on screen', async () => {
      // An action through an API token, by the POC's script.
      const token = (await pocApi.post('/api/account/tokens', { name: 'ERP sync', scope: 'write' })).body.token as string;
      const byToken = await fetch(`${svc.url}/api/projects/${projectId}/comments`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: JSON.stringify({ body: 'Posted by the ERP.' }),
      });
      assert.equal(byToken.status, 201);
      const made = await adminApi.post('/api/projects', { name: 'Visiting cards', pocId: (await adminApi.get('/api/auth/session')).body.user.id });
      assert.equal(made.status, 201);

      for (const [width, options] of [
        [1280, {}],
        [390, PHONE],
      ] as const) {
        const admin = await as(ADMIN, `admin words ${width}`, options);
        try {
          // The dashboard: the activity names the project without "the project in"; the requests awaiting a decision show their due dates.
          const recent = admin.getByRole('region', { name: 'Recent activity' });
          await recent.getByRole('link', { name: 'Visiting cards' }).waitFor();
          const activity = await recent.innerText();
          assert.doesNotMatch(activity, /the project in/);
          assert.match(activity, /You created\s+#\d+ Visiting cards/);
          assert.match(activity, /Priya Nair commented on\s+#\d+ Annual report 2026/);
          const waiting = admin.getByTestId('waiting');
          // Named with its job number (#N), as everywhere a project is named.
          const requestedNumber = (await adminApi.get(`/api/projects/${requestedId}`)).body.number as number;
          assert.ok(Number.isInteger(requestedNumber));
          await waiting.getByRole('link', { name: `#${requestedNumber} Wedding cards`, exact: true }).waitFor();
          assert.equal(await waiting.locator('.job-number').filter({ hasText: `#${requestedNumber}` }).count(), 1);
          await waiting.getByText(/^Due /).filter({ hasText: new Intl.DateTimeFormat('en-IN', { dateStyle: 'medium' }).format(new Date(`${addDays(today, 9)}T12:00:00`)) }).waitFor();
          await screenshot(admin, `edges-dashboard-${width}`);

          // The project: the token's comment is the POC's; the limit in the shop's megabytes; the checksum one click away.
          await openProject(admin);
          const comments = admin.getByRole('region', { name: 'Comments' });
          await comments.getByText('Posted by the ERP.').waitFor();
          const byErp = comments.getByTestId('comment').filter({ hasText: 'Posted by the ERP.' });
          assert.match(await byErp.locator('.comment-meta strong').innerText(), /^Priya Nair$/);
          await admin.locator('#upload-limit').filter({ hasText: 'Up to 100 MB.' }).waitFor();
          await screenshot(admin, `edges-project-${width}`);
        } finally {
          await admin.context().close();
        }
      }

      // A document uploaded by the POC's script with the token: its checksum one click away, not on every row; its uploader named.
      const form = new FormData();
      form.append('projectId', projectId);
      form.append('fileType', 'CHALLAN');
      form.append('file', new Blob(['%PDF-1.4\nchallan 17\n'], { type: 'application/pdf' }), 'challan-17.pdf');
      const upload = await fetch(`${svc.url}/api/upload`, { method: 'POST', headers: { authorization: `Bearer ${token}` }, body: form });
      assert.equal(upload.status, 201, await upload.text());
      const admin = await as(ADMIN, 'admin checksum');
      try {
        await openProject(admin);
        const challans = admin.getByTestId('files-CHALLAN');
        await challans.getByRole('link', { name: 'challan-17.pdf' }).waitFor();
        await challans.getByText(/ · Priya Nair · /).waitFor();
        assert.equal(await challans.getByText(/SHA-256/).isVisible(), false, 'the checksum is folded away');
        await challans.getByText('Checksum', { exact: true }).click();
        await challans.getByText(/SHA-256 [0-9a-f]{12}/).waitFor({ state: 'visible' });
        await challans.getByRole('button', { name: /^Copy the SHA-256 checksum/ }).waitFor();
        await admin.getByRole('region', { name: 'Documents' }).screenshot({ path: path.join(SCREENSHOTS, 'edges-checksum-1280.png') });

        // The list's search by the reference says what it matched on.
        await admin.goto(`${svc.url}/projects?q=PO-4471`);
        await heading(admin, 'Projects').waitFor();
        await admin.getByRole('link', { name: PROJECT }).waitFor();
        const caption = await admin.locator('table caption').textContent();
        assert.doesNotMatch(caption ?? '', /name contains/);
        assert.match(caption ?? '', /reference/);
        await eventuallyPasses(async () => assert.deepEqual(problems, []));
      } finally {
        await admin.context().close();
      }
    });
  });
