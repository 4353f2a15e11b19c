/**
 * Issue 36 in a real browser, the board: an ADMIN moves a card by keyboard and another by dragging;
 * a move the server refuses (printing waits for the proof) shows the server's words on the card; a
 * held card offers only cancelling and a drop elsewhere is refused on the card; another session's
 * change moves a card within a second. Screenshots at 1280 px and at 390 px (the column picker); axe.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Page } from 'playwright-core';
import { ADMIN, type BrowserTest, SESSION_CHECK, assertAccessible, heading, screenshot, sidewaysOverflow, startBrowserTest } from '../helpers/browser.js';
import { barsPdf } from '../helpers/pdf.js';
import type { Client, TestService } from '../helpers/service.js';
import { browserTestsSkipped } from './build.js';

const skip = browserTestsSkipped('test/e2e/board.e2e.test.ts');
const POC = { name: 'Pia Poc', email: 'pia@example.com', password: 'pia-poc-password' };

if (skip) test('the board in a browser', { skip }, () => {});
else
  describe('the board in a browser', { timeout: 300_000 }, () => {
    let t: BrowserTest;
    let svc: TestService;
    let admin: Client;
    const ids: Record<string, string> = {};
    const problems: string[] = [];

    before(async () => {
      t = await startBrowserTest({ admin: ADMIN });
      svc = t.svc;
      admin = await svc.login(ADMIN.email, ADMIN.password);
      const customer = (await admin.post('/api/customers', { name: 'Acme Menus' })).body;
      const { user: poc } = await svc.createUser({ role: 'POC', ...POC });
      const make = async (key: string, name: string, opts: Parameters<TestService['createProject']>[1]) => {
        ids[key] = (await svc.createProject(poc.id, { name, customerId: customer.id, ...opts })).id;
      };
      const soon = new Date(Date.now() + 5 * 86_400_000).toISOString().slice(0, 10);
      await make('keyboard', 'Keyboard catalogue', { status: 'APPROVED', piStatus: 'VERIFIED', dueDate: soon });
      await make('dragged', 'Dragged posters', { status: 'PRINTING', piStatus: 'VERIFIED', dueDate: '2020-01-01' });
      await make('proof', 'Proofed menus', { status: 'APPROVED', piStatus: 'VERIFIED' });
      await make('held', 'Held banners', { status: 'APPROVED', piStatus: 'VERIFIED' });
      await make('live', 'Live flyers', { status: 'REQUESTED' });
      const form = new FormData();
      form.append('file', new Blob([new Uint8Array(barsPdf(1))], { type: 'application/pdf' }), 'menu.pdf');
      assert.equal((await admin.request('POST', `/api/projects/${ids.proof}/proofs`, { body: form })).status, 201);
      assert.equal((await admin.post(`/api/projects/${ids.held}/hold`, { reason: 'Waiting for paper' })).status, 200);
      assert.equal((await admin.patch(`/api/projects/${ids.held}/details`, { rush: true })).status, 200);
    });
    after(async () => {
      await t?.close();
      assert.deepEqual(problems, [], 'no uncaught errors or unexpected failed loads');
    });

    const column = (page: Page, status: string) => page.locator(`section[data-column="${status}"]`);
    const card = (page: Page, key: string) => page.locator(`[data-testid="board-card"][data-id="${ids[key]}"]`);
    const inColumn = (page: Page, status: string, key: string) => column(page, status).locator(`[data-testid="board-card"][data-id="${ids[key]}"]`).waitFor();

    /** By keyboard alone: Tab-reachable "Move…" opened with Enter, the move chosen with Enter. */
    async function keyboardMove(page: Page, key: string, move: string) {
      await card(page, key).getByRole('button', { name: 'Move…' }).focus();
      await page.keyboard.press('Enter');
      await card(page, key).getByRole('button', { name: move }).waitFor();
      await card(page, key).getByRole('button', { name: move }).focus();
      await page.keyboard.press('Enter');
    }

    /** A mouse drag of the card's handle onto a column. */
    async function drag(page: Page, key: string, name: string, status: string) {
      const handle = card(page, key).getByRole('button', { name: new RegExp(`^Move #\\d+ ${name}$`) });
      const from = (await handle.boundingBox())!;
      const to = (await column(page, status).boundingBox())!;
      await page.mouse.move(from.x + from.width / 2, from.y + from.height / 2);
      await page.mouse.down();
      await page.mouse.move(from.x + 20, from.y + 10, { steps: 4 });
      await page.mouse.move(to.x + to.width / 2, to.y + 80, { steps: 12 });
      await page.mouse.up();
    }

    test('move by keyboard, by dragging and by the menu; a refusal in the server words; a held card; a live move', async () => {
      const page = await t.window({ viewport: { width: 1280, height: 900 }, problems, who: 'admin', expected: [SESSION_CHECK, { path: /\/start-printing$/, status: [409] }] });
      await t.signIn(page, ADMIN);
      await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Board', exact: true }).click();
      await heading(page, 'Board').waitFor();
      await inColumn(page, 'APPROVED', 'keyboard');
      // Rush first in its column, held last (sort=priority); number, customer, hold reason, proof shown.
      await card(page, 'held').getByTestId('hold-reason').filter({ hasText: 'On hold: Waiting for paper' }).waitFor();
      await card(page, 'proof').getByTestId('proof-badge').filter({ hasText: 'Proof v1' }).waitFor();
      await card(page, 'dragged').getByText('Overdue').waitFor();
      assert.match((await card(page, 'keyboard').textContent()) ?? '', /#\d+.*Keyboard catalogue.*Acme Menus/);
      await assertAccessible(page, 'the board');
      await screenshot(page, 'board-1280');

      // Keyboard: the card's Move… menu, by Enter.
      await keyboardMove(page, 'keyboard', 'Start printing → Printing');
      await inColumn(page, 'PRINTING', 'keyboard');
      assert.equal((await admin.get(`/api/projects/${ids.keyboard}`)).body.status, 'PRINTING');

      // Dragging with the mouse: PRINTING to DISPATCHED.
      await drag(page, 'dragged', 'Dragged posters', 'DISPATCHED');
      await inColumn(page, 'DISPATCHED', 'dragged');

      // The menu: start printing is offered, and the server refuses it while the proof waits.
      await card(page, 'proof').getByRole('button', { name: 'Move…' }).click();
      await card(page, 'proof').getByRole('button', { name: 'Start printing → Printing' }).click();
      await card(page, 'proof').getByTestId('card-refusal').filter({ hasText: "Printing waits for the customer's approval of proof v1" }).waitFor();
      await inColumn(page, 'APPROVED', 'proof');

      // Held: only cancel in the menu; dropped on PRINTING it stays, told why.
      await card(page, 'held').getByRole('button', { name: 'Move…' }).click();
      const offered = await card(page, 'held').locator('.move-menu button').allTextContents();
      assert.deepEqual(offered, ['Cancel project']);
      await card(page, 'held').getByRole('button', { name: 'Move…' }).click();
      await drag(page, 'held', 'Held banners', 'PRINTING');
      await card(page, 'held').getByTestId('card-refusal').filter({ hasText: 'only cancelling is possible' }).waitFor();
      await inColumn(page, 'APPROVED', 'held');
      await screenshot(page, 'board-refusals-1280');

      // Live: another session approves a request; the card moves within a second.
      await inColumn(page, 'REQUESTED', 'live');
      const started = Date.now();
      assert.equal((await admin.post(`/api/projects/${ids.live}/approve`, {})).status, 200);
      await column(page, 'APPROVED').locator(`[data-id="${ids.live}"]`).waitFor({ timeout: 5000 });
      const took = Date.now() - started;
      assert.ok(took < 1000, `the card moved in ${took} ms`);
    });

    test('at 390 px the board is a column picker', async () => {
      const phone = await t.window({ viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true, problems, who: 'phone', expected: [SESSION_CHECK] });
      await t.signIn(phone, ADMIN);
      await phone.goto(`${svc.url}/board`);
      await heading(phone, 'Board').waitFor();
      await column(phone, 'REQUESTED').waitFor();
      assert.equal(await column(phone, 'APPROVED').isVisible(), false);
      await phone.getByLabel('Column').selectOption('APPROVED');
      await inColumn(phone, 'APPROVED', 'proof');
      assert.equal(await column(phone, 'REQUESTED').isVisible(), false);
      assert.equal(await sidewaysOverflow(phone), 0);
      await assertAccessible(phone, 'the board on a phone');
      await screenshot(phone, 'board-390');
    });
  });
