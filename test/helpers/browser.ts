import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { type Browser, type BrowserContextOptions, type Locator, type Page, chromium } from 'playwright-core';
import type { PiStatus, ProjectStatus } from '../../src/domain/model.js';
import { CHROMIUM, SCREENSHOTS, ensureFreshBuild } from '../e2e/build.js';
import { eventuallyPasses } from './eventually.js';
import { type TestService, type TestServiceOptions, startTestService } from './service.js';

/**
 * The one way the browser tests (test/e2e) set up: a fresh build of the web app, a test service,
 * Debian's Chromium through playwright-core, windows watched for errors, and signing in through the
 * form. Whether they run at all is test/e2e/build.ts's browserTestsSkipped.
 */

/** Someone who signs in through the form. */
export interface Person {
  name: string;
  email: string;
  password: string;
}

/** The start-up admin (ADMIN_EMAIL, ADMIN_PASSWORD, ADMIN_NAME) of the tests that sign in as an admin. */
export const ADMIN: Person = { name: 'Ada Admin', email: 'ada@example.com', password: 'ada-admin-pass' };

/** A 4xx answer a scenario causes on purpose: the browser logs each failed load as a console error. */
export interface ExpectedLoad {
  path: RegExp;
  status: number[];
}

/** The session check before signing in answers 401 in every test. */
export const SESSION_CHECK: ExpectedLoad = { path: /^\/api\/auth\/session$/, status: [401] };

/** Records the page's uncaught exceptions and console errors in `problems`, except the failed loads `expected`. */
export function watch(page: Page, problems: string[], options: { who?: string; expected?: ExpectedLoad[] } = {}): Page {
  const { who, expected = [SESSION_CHECK] } = options;
  const prefix = who ? `${who}: ` : '';
  page.on('pageerror', (err) => problems.push(`${prefix}uncaught ${err.name}: ${err.message}`));
  page.on('console', (msg) => {
    if (msg.type() !== 'error') return;
    const at = msg.location().url;
    const failed = /^Failed to load resource: the server responded with a status of (\d+)/.exec(msg.text());
    if (failed && at) {
      const { pathname } = new URL(at);
      if (expected.some((e) => e.path.test(pathname) && e.status.includes(Number(failed[1])))) return;
    }
    problems.push(`${prefix}console error: ${msg.text()} (${at})`);
  });
  return page;
}

/** Chromium, headless; `extraArgs` add switches. */
export function launchBrowser(extraArgs: string[] = []): Promise<Browser> {
  return chromium.launch({ executablePath: CHROMIUM, args: ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run', ...extraArgs] });
}

/** Signs in through the form at `url` and waits for the dashboard. */
export async function signInAt(page: Page, url: string, who: { email: string; password: string }): Promise<void> {
  await page.goto(url);
  await heading(page, 'Sign in').waitFor();
  await page.getByLabel('Email').fill(who.email);
  await page.getByLabel('Password').fill(who.password);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await heading(page, 'Dashboard').waitFor();
}

export interface WindowOptions extends BrowserContextOptions {
  /** Playwright's default timeout in the window (default 30 s). */
  timeout?: number;
  /** Where the window's errors are recorded (see watch); unwatched without. */
  problems?: string[];
  who?: string;
  expected?: ExpectedLoad[];
}

export interface BrowserTest {
  svc: TestService;
  browser: Browser;
  /** A page in a context of its own (1280 × 900 unless `viewport` says otherwise). */
  window(options?: WindowOptions): Promise<Page>;
  /** Signs in through the form and waits for the dashboard. */
  signIn(page: Page, who: { email: string; password: string }): Promise<void>;
  /** Closes the browser, then the service. */
  close(): Promise<void>;
}

/** Builds the web app if stale, starts a service (with `admin` as its start-up admin) and Chromium. */
export async function startBrowserTest(options: TestServiceOptions & { admin?: Person; chromiumArgs?: string[] } = {}): Promise<BrowserTest> {
  const { admin, chromiumArgs, ...serviceOptions } = options;
  await ensureFreshBuild();
  const env = admin ? { ADMIN_EMAIL: admin.email, ADMIN_PASSWORD: admin.password, ADMIN_NAME: admin.name, ...serviceOptions.env } : serviceOptions.env;
  const svc = await startTestService({ ...serviceOptions, env });
  let browser: Browser;
  try {
    browser = await launchBrowser(chromiumArgs);
  } catch (err) {
    await svc.close();
    throw err;
  }
  return {
    svc,
    browser,
    async window({ timeout = 30_000, problems, who, expected, ...contextOptions } = {}) {
      const context = await browser.newContext({ viewport: { width: 1280, height: 900 }, ...contextOptions });
      context.setDefaultTimeout(timeout);
      const page = await context.newPage();
      return problems ? watch(page, problems, { who, expected }) : page;
    },
    signIn: (page, who) => signInAt(page, svc.url, who),
    async close() {
      await browser.close();
      await svc.close();
    },
  };
}

/** A POC (who signs in as `poc`) and a project of theirs in the given state; its id. */
export async function seedPocProject(svc: TestService, poc: Person, project: { name: string; status?: ProjectStatus; piStatus?: PiStatus }): Promise<string> {
  const { user } = await svc.createUser({ role: 'POC', ...poc });
  return (await svc.createProject(user.id, project)).id;
}

/**
 * Waits until `read()` equals `expected` (deepEqual), reading again every 50 ms; after timeoutMs the
 * last difference fails the test. The page applies a click's effect when it gets to it (a render, an
 * effect that moves the focus or checks a box), which on a busy machine is after the click returns:
 * a control's state is read through this (or a locator's waitFor), never once right after the click.
 */
export async function settles<T>(read: () => Promise<T>, expected: T, message?: string, timeoutMs = 10_000): Promise<void> {
  await eventuallyPasses(async () => assert.deepEqual(await read(), expected, message), timeoutMs);
}

/**
 * The page's one h1 with exactly this text; a project page's title is its job number and name
 * ("#1042 Wedding cards"), found by the name alone too (jobTitle reads the whole title).
 */
export const heading = (page: Page, name: string) => page.getByRole('heading', { level: 1, name: new RegExp(`^(?:#\\d+ )?${name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}$`) });

/** A project page's h1, job number and name: "#1042 Wedding cards". */
export const jobTitle = (page: Page, number: number, name: string) => page.getByRole('heading', { level: 1, name: `#${number} ${name}`, exact: true });

/** The text of the elements that describe a form control (aria-describedby): where the app puts the API's error. */
export async function descriptionOf(control: Locator): Promise<string> {
  const ids = (await control.getAttribute('aria-describedby')) ?? '';
  const texts = await Promise.all(ids.split(/\s+/).filter(Boolean).map((id) => control.page().locator(`[id="${id}"]`).textContent()));
  return texts.join(' ').trim();
}

/** How far the page scrolls sideways (0 when it fits its width). */
export const sidewaysOverflow = (page: Page) => page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);

/** docs/screenshots/<name>.png, the whole page unless `fullPage` is false. */
export async function screenshot(page: Page, name: string, fullPage = true): Promise<void> {
  fs.mkdirSync(SCREENSHOTS, { recursive: true });
  await page.screenshot({ path: path.join(SCREENSHOTS, `${name}.png`), fullPage });
}

const AXE = path.resolve(import.meta.dirname, '..', '..', 'node_modules', 'axe-core', 'axe.min.js');

/**
 * axe-core on the page as it is: any serious or critical violation of WCAG 2 A/AA (and, with
 * `bestPractice`, axe's best practices) fails, named with the elements it found.
 */
export async function assertAccessible(page: Page, label: string, { bestPractice = false } = {}): Promise<void> {
  // Evaluated through DevTools rather than added as a script tag, which the app's Content-Security-Policy rightly blocks.
  if (!(await page.evaluate(() => 'axe' in window))) await page.evaluate(fs.readFileSync(AXE, 'utf8'));
  const tags = ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', ...(bestPractice ? ['best-practice'] : [])];
  const checked = await page.evaluate(async (values) => {
    const axe = (window as unknown as { axe: { run(ctx: Document, opts: object): Promise<{ passes: unknown[]; violations: { id: string; impact: string; help: string; nodes: { target: string[] }[] }[] }> } }).axe;
    const result = await axe.run(document, { runOnly: { type: 'tag', values } });
    return {
      passes: result.passes.length,
      violations: result.violations.map((v) => ({ id: v.id, impact: v.impact, help: v.help, targets: v.nodes.slice(0, 3).map((n) => n.target.join(' ')) })),
    };
  }, tags);
  assert.ok(checked.passes > 10, `${label}: axe ran its rules (${checked.passes} passed)`);
  const serious = checked.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');
  assert.deepEqual(serious, [], `${label}: ${serious.map((v) => `${v.id} (${v.help}) at ${v.targets.join(', ')}`).join('; ')}`);
}
