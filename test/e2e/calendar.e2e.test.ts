/**
 * Issue 36 in a real browser, the calendar: a POC's month (March 2030) with their jobs on their due
 * days, rush, held and overdue marks; a job dragged to another day gets that due date; a day's list
 * moves one by keyboard; a printing job's move is refused in the server's words beside it; the week
 * view; another session's change redraws it. Screenshots at 1280 and 390 px; axe.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Page } from 'playwright-core';
import { ADMIN, type BrowserTest, SESSION_CHECK, assertAccessible, heading, screenshot, sidewaysOverflow, startBrowserTest } from '../helpers/browser.js';
import type { Client, TestService } from '../helpers/service.js';
import { browserTestsSkipped } from './build.js';

const skip = browserTestsSkipped('test/e2e/calendar.e2e.test.ts');
const POC = { name: 'Pia Poc', email: 'pia@example.com', password: 'pia-poc-password' };

if (skip) test('the calendar in a browser', { skip }, () => {});
else
  describe('the calendar in a browser', { timeout: 300_000 }, () => {
    let t: BrowserTest;
    let svc: TestService;
    let admin: Client;
    let poc: Client;
    const ids: Record<string, string> = {};
    const problems: string[] = [];

    before(async () => {
      t = await startBrowserTest({ admin: ADMIN });
      svc = t.svc;
      admin = await svc.login(ADMIN.email, ADMIN.password);
      const { user } = await svc.createUser({ role: 'POC', ...POC });
      poc = await svc.login(POC.email, POC.password);
      const make = async (key: string, name: string, opts: Parameters<TestService['createProject']>[1]) => {
        ids[key] = (await svc.createProject(user.id, { name, ...opts })).id;
      };
      await make('menus', 'Menu cards', { status: 'APPROVED', piStatus: 'VERIFIED', dueDate: '2030-03-12' });
      await make('posters', 'Posters', { status: 'PRINTING', piStatus: 'VERIFIED', dueDate: '2030-03-12' });
      await make('flyers', 'Rush flyers', { status: 'REQUESTED', dueDate: '2030-03-20' });
      await make('banners', 'Held banners', { status: 'APPROVED', piStatus: 'VERIFIED', dueDate: '2030-03-20' });
      assert.equal((await admin.patch(`/api/projects/${ids.flyers}/details`, { rush: true })).status, 200);
      assert.equal((await admin.post(`/api/projects/${ids.banners}/hold`, { reason: 'Waiting for paper' })).status, 200);
    });
    after(async () => {
      await t?.close();
      assert.deepEqual(problems, [], 'no uncaught errors or unexpected failed loads');
    });

    const day = (page: Page, d: string) => page.locator(`[data-day="${d}"]`);
    const jobOn = (page: Page, d: string, key: string) => day(page, d).locator(`[data-testid="calendar-job"][data-id="${ids[key]}"]`);

    test('month and week; a due date moved by dragging and by keyboard; a refusal in place; live', async () => {
      const page = await t.window({ viewport: { width: 1280, height: 900 }, problems, who: 'poc', expected: [SESSION_CHECK, { path: /\/details$/, status: [409] }] });
      await t.signIn(page, POC);
      await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Calendar', exact: true }).click();
      await heading(page, 'Calendar').waitFor();
      await page.goto(`${svc.url}/calendar?view=month&date=2030-03-01`);
      await jobOn(page, '2030-03-12', 'menus').waitFor();
      await jobOn(page, '2030-03-12', 'posters').waitFor();
      await jobOn(page, '2030-03-20', 'flyers').getByText('Rush', { exact: true }).waitFor();
      await jobOn(page, '2030-03-20', 'banners').getByText('Held', { exact: true }).waitFor();
      assert.match((await jobOn(page, '2030-03-12', 'menus').textContent()) ?? '', /#\d+ Menu cards/);
      await assertAccessible(page, 'the calendar, month');
      await screenshot(page, 'calendar-month-1280');

      // Dragging "Menu cards" from the 12th to the 14th changes its due date.
      const handle = jobOn(page, '2030-03-12', 'menus').getByRole('button', { name: /Menu cards to another day/ });
      const from = (await handle.boundingBox())!;
      const to = (await day(page, '2030-03-14').boundingBox())!;
      await page.mouse.move(from.x + from.width / 2, from.y + from.height / 2);
      await page.mouse.down();
      await page.mouse.move(from.x + 15, from.y + 10, { steps: 4 });
      await page.mouse.move(to.x + to.width / 2, to.y + to.height / 2, { steps: 12 });
      await page.mouse.up();
      await jobOn(page, '2030-03-14', 'menus').waitFor();
      assert.equal((await poc.get(`/api/projects/${ids.menus}`)).body.dueDate, '2030-03-14');

      // The 12th's list: the printing job's move is refused (the owner edits only until printing), said beside it.
      await day(page, '2030-03-12').getByRole('button', { name: /1 job$/ }).click();
      const listed = page.locator(`[data-testid="day-job"][data-id="${ids.posters}"]`);
      await listed.getByLabel('Due date').fill('2030-03-21');
      await listed.getByRole('button', { name: 'Move' }).click();
      const refused = await poc.patch(`/api/projects/${ids.posters}/details`, { dueDate: '2030-03-21' });
      assert.equal(refused.status, 409);
      await listed.getByTestId('day-refusal').filter({ hasText: refused.body.error }).waitFor();
      await jobOn(page, '2030-03-12', 'posters').waitFor();

      // By keyboard: the 14th's list moves "Menu cards" to the 15th.
      await day(page, '2030-03-14').getByRole('button', { name: /1 job$/ }).focus();
      await page.keyboard.press('Enter');
      const menus = page.locator(`[data-testid="day-job"][data-id="${ids.menus}"]`);
      await menus.getByLabel('Due date').fill('2030-03-15');
      await menus.getByLabel('Due date').press('Enter');
      await jobOn(page, '2030-03-15', 'menus').waitFor();

      // Live: an admin moves the flyers; the calendar redraws.
      assert.equal((await admin.patch(`/api/projects/${ids.flyers}/details`, { dueDate: '2030-03-22' })).status, 200);
      await jobOn(page, '2030-03-22', 'flyers').waitFor({ timeout: 3000 });
      await screenshot(page, 'calendar-day-1280');

      // The week of the chosen day (the 14th): Monday the 11th to Sunday the 17th.
      await page.getByRole('button', { name: 'Week', exact: true }).click();
      await jobOn(page, '2030-03-15', 'menus').waitFor();
      await jobOn(page, '2030-03-12', 'posters').waitFor();
      assert.deepEqual([await day(page, '2030-03-10').count(), await day(page, '2030-03-18').count()], [0, 0]);
      await assertAccessible(page, 'the calendar, week');
      await screenshot(page, 'calendar-week-1280');
    });

    test('on a phone', async () => {
      const phone = await t.window({ viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true, problems, who: 'phone', expected: [SESSION_CHECK] });
      await t.signIn(phone, POC);
      await phone.goto(`${svc.url}/calendar?view=month&date=2030-03-01`);
      await jobOn(phone, '2030-03-12', 'posters').waitFor();
      assert.equal(await sidewaysOverflow(phone), 0);
      await assertAccessible(phone, 'the calendar on a phone');
      await screenshot(phone, 'calendar-month-390');
      await phone.goto(`${svc.url}/calendar?view=week&date=2030-03-12`);
      await jobOn(phone, '2030-03-12', 'posters').waitFor();
      assert.equal(await sidewaysOverflow(phone), 0);
      await screenshot(phone, 'calendar-week-390');
    });
  });
