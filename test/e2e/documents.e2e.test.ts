import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { BrowserContext, Page } from 'playwright-core';
import { type BrowserTest, seedPocProject, startBrowserTest } from '../helpers/browser.js';
import type { TestService } from '../helpers/service.js';
import { browserTestsSkipped } from './build.js';

/**
 * Documents in a real browser (Debian's Chromium through playwright-core): the checksum one click away for
 * an upload, the question before the same bytes go up again and the duplicate's note, the ZIP
 * link, and a large upload (resumable, tus-js-client) that resumes after the network is stopped
 * halfway, and after the page is reloaded and the same file chosen again. A stale dist/web is rebuilt first (test/e2e/build.ts).
 */

const skip = browserTestsSkipped('test/e2e/documents.e2e.test.ts');

const POC = { name: 'Priya Shah', email: 'priya.docs@example.com', password: 'priya-docs-42' };

if (skip) test('documents in a browser', { skip }, () => {});
else
  describe('documents in a browser', { timeout: 300_000 }, () => {
    let t: BrowserTest;
    let svc: TestService;
    let context: BrowserContext;
    let page: Page;
    let projectId: string;
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'documents-e2e-'));

    before(async () => {
      t = await startBrowserTest();
      svc = t.svc;
      projectId = await seedPocProject(svc, POC, { name: 'Docs project', status: 'DISPATCHED', piStatus: 'VERIFIED' });
      page = await t.window({ locale: 'en-GB', timeout: 60_000 });
      context = page.context();
      await t.signIn(page, POC);
    });
    after(async () => {
      await t?.close();
      fs.rmSync(dir, { recursive: true, force: true });
    });

    const upload = async (file: string, type: 'PO' | 'INVOICE' = 'PO') => {
      await page.locator(`#type-${type}`).check();
      await page.locator('#upload-file').setInputFiles(file);
      await page.getByRole('button', { name: 'Upload', exact: true }).click();
    };

    test('the checksum is one click away; the same bytes again are asked about, then flagged; the ZIP link downloads them', async () => {
      const file = path.join(dir, 'po-4711.pdf');
      const bytes = Buffer.concat([Buffer.from('%PDF-1.4\n'), randomBytes(200_000)]);
      fs.writeFileSync(file, bytes);
      const sha256 = createHash('sha256').update(bytes).digest('hex');
      await page.goto(`${svc.url}/projects/${projectId}`);
      await upload(file);
      // One click away ("Checksum"), not on every row.
      const checksum = page.getByText(`SHA-256 ${sha256.slice(0, 12)}…`);
      await page.getByTestId('files-PO').getByText('Checksum', { exact: true }).waitFor();
      assert.equal(await checksum.isVisible(), false);
      await page.getByTestId('files-PO').getByText('Checksum', { exact: true }).click();
      await checksum.waitFor({ state: 'visible' });

      await upload(file, 'INVOICE');
      const question = page.getByTestId('duplicate-question');
      await question.waitFor();
      assert.match(await question.innerText(), /po-4711\.pdf is the same file as po-4711\.pdf, uploaded on .* by Priya Shah\. Upload it again\?/);
      assert.equal((await svc.deps.store.files.listForProject(projectId)).length, 1, 'nothing sent before the answer');
      await question.getByRole('button', { name: 'Upload again' }).click();
      await page.getByTestId('duplicate-note').waitFor();
      assert.match(await page.getByTestId('duplicate-note').innerText(), /^Same file as po-4711\.pdf uploaded on .* by Priya Shah$/);
      assert.equal((await svc.deps.store.files.listForProject(projectId)).length, 2);

      const link = page.getByTestId('download-all');
      assert.equal(await link.getAttribute('href'), `/api/projects/${projectId}/documents.zip`);
      const [download] = await Promise.all([page.waitForEvent('download'), link.click()]);
      const saved = path.join(dir, 'all.zip');
      await download.saveAs(saved);
      assert.equal(fs.readFileSync(saved).subarray(0, 4).toString('hex'), '504b0304', 'a ZIP');
    });

    test('a large upload goes up resumably and resumes after the network is stopped halfway', async () => {
      const file = path.join(dir, 'big-invoice.pdf');
      const bytes = Buffer.concat([Buffer.from('%PDF-1.4\n'), randomBytes(24 * 1024 * 1024)]);
      fs.writeFileSync(file, bytes);
      const heads: string[] = [];
      page.on('request', (req) => {
        if (req.method() === 'HEAD' && req.url().includes('/api/resumable-uploads/')) heads.push(req.url());
      });
      await page.goto(`${svc.url}/projects/${projectId}`);
      await page.locator('#type-INVOICE').check();
      await page.locator('#upload-file').setInputFiles(file);
      await page.getByRole('button', { name: 'Upload', exact: true }).click();
      const progress = page.locator('#upload-progress');
      await page.waitForFunction(() => {
        const p = document.querySelector<HTMLProgressElement>('#upload-progress');
        return p !== null && p.value / p.max > 0.3;
      });
      await context.setOffline(true);
      await new Promise((r) => setTimeout(r, 1500));
      const stoppedAt = Number(await progress.getAttribute('value'));
      await context.setOffline(false);
      await page.getByText(/big-invoice\.pdf \([\d.]+ MB\) is uploaded as an invoice\./).waitFor({ timeout: 120_000 });
      assert.ok(stoppedAt > 0 && stoppedAt < bytes.length, `stopped at ${stoppedAt}`);
      assert.ok(heads.length >= 1, 'the client asked the service where to resume');
      const files = (await svc.deps.store.files.listForProject(projectId)).filter((f) => f.filename === 'big-invoice.pdf');
      assert.equal(files.length, 1);
      assert.equal(files[0]!.sha256, createHash('sha256').update(bytes).digest('hex'));
    });

    test('a large upload resumes where it stopped after the page is reloaded and the same file chosen again', async () => {
      const file = path.join(dir, 'reloaded-po.pdf');
      const bytes = Buffer.concat([Buffer.from('%PDF-1.4\n'), randomBytes(24 * 1024 * 1024)]);
      fs.writeFileSync(file, bytes);
      await page.goto(`${svc.url}/projects/${projectId}`);
      await page.locator('#type-INVOICE').check();
      await page.locator('#upload-file').setInputFiles(file);
      await page.getByRole('button', { name: 'Upload', exact: true }).click();
      await page.waitForFunction(() => {
        const p = document.querySelector<HTMLProgressElement>('#upload-progress');
        return p !== null && p.value / p.max > 0.3;
      });
      await page.reload();

      // After the reload: the client asks where the upload stands, and its first PATCH starts there, not at 0.
      const heads: string[] = [];
      const patchOffsets: number[] = [];
      const watch = (req: import('playwright-core').Request) => {
        if (!req.url().includes('/api/resumable-uploads/')) return;
        if (req.method() === 'HEAD') heads.push(req.url());
        if (req.method() === 'PATCH') patchOffsets.push(Number(req.headers()['upload-offset']));
      };
      page.on('request', watch);
      try {
        await page.locator('#type-INVOICE').check();
        await page.locator('#upload-file').setInputFiles(file);
        await page.getByRole('button', { name: 'Upload', exact: true }).click();
        await page.getByText(/reloaded-po\.pdf \([\d.]+ MB\) is uploaded as an invoice\./).waitFor({ timeout: 120_000 });
      } finally {
        page.off('request', watch);
      }
      assert.ok(heads.length >= 1, 'the client asked the service where to resume');
      assert.ok(patchOffsets.length >= 1 && patchOffsets[0]! > 0, `the first PATCH after the reload started at ${patchOffsets[0]}`);
      const files = (await svc.deps.store.files.listForProject(projectId)).filter((f) => f.filename === 'reloaded-po.pdf');
      assert.equal(files.length, 1, 'one document');
      assert.equal(files[0]!.sha256, createHash('sha256').update(bytes).digest('hex'));
    });

    test('an upload whose answer was lost is retried with the same Idempotency-Key and stored once; another file gets its own key', async () => {
      const file = path.join(dir, 'po-answer-lost.pdf');
      fs.writeFileSync(file, Buffer.concat([Buffer.from('%PDF-1.4\n'), randomBytes(50_000)]));
      const other = path.join(dir, 'po-other.pdf');
      fs.writeFileSync(other, Buffer.concat([Buffer.from('%PDF-1.4\n'), randomBytes(50_000)]));
      const keys: string[] = [];
      let answers = 0;
      // The first upload reaches the service (sent here with the browser's session and key, as the
      // browser's body cannot be replayed), and its answer is lost on the way back.
      const cookie = (await context.cookies(svc.url)).map((c) => `${c.name}=${c.value}`).join('; ');
      await page.route('**/api/upload', async (route) => {
        const key = route.request().headers()['idempotency-key'] ?? '';
        keys.push(key);
        if (answers++ > 0) return route.continue();
        const form = new FormData();
        form.append('projectId', projectId);
        form.append('fileType', 'PO');
        form.append('file', new Blob([fs.readFileSync(file)], { type: 'application/pdf' }), path.basename(file));
        const res = await fetch(`${svc.url}/api/upload`, { method: 'POST', body: form, headers: { cookie, 'idempotency-key': key } });
        assert.equal(res.status, 201, `the first request was stored: ${await res.text()}`);
        await route.abort('connectionreset');
      });
      try {
        await page.goto(`${svc.url}/projects/${projectId}`);
        await upload(file);
        await page.getByTestId('upload-error').waitFor();
        await page.getByRole('button', { name: 'Upload', exact: true }).click();
        // The page may have heard of the stored document by now (live refresh) and ask about the same bytes: yes, again.
        const uploaded = page.getByText(/po-answer-lost\.pdf \([\d.]+ kB\) is uploaded as a purchase order \(PO\)\./);
        const question = page.getByTestId('duplicate-question');
        await uploaded.or(question).waitFor();
        if (await question.isVisible()) await question.getByRole('button', { name: 'Upload again' }).click();
        await uploaded.waitFor();
        await upload(other);
        await page.getByText(/po-other\.pdf \([\d.]+ kB\) is uploaded as a purchase order \(PO\)\./).waitFor();
      } finally {
        await page.unroute('**/api/upload');
      }
      assert.equal(keys.length, 3);
      assert.ok(keys[0]!.length > 0, 'the upload carries a key');
      assert.equal(keys[1], keys[0], 'the retry carries the same key');
      assert.notEqual(keys[2], keys[0], 'another file, another key');
      const stored = (await svc.deps.store.files.listForProject(projectId)).filter((f) => f.filename === 'po-answer-lost.pdf');
      assert.equal(stored.length, 1, 'stored once');
    });
  });
