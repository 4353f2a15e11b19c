import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { after, describe, it } from 'node:test';
import { hasWordLetters, pdfPages, pdfText } from '../../test/helpers/pdf-text.js';
import { PdfRenderer } from './index.js';
import { RENDER_NICE } from './priority.js';

describe('PDF rendering (worker threads)', () => {
  const renderer = new PdfRenderer({ concurrency: 2, timeoutMs: 120_000, maxWaiting: 3 });
  after(() => renderer.close());

  it('writes Latin and Devanagari as real text that extraction finds, and a QR code', async () => {
    const pdf = await renderer.render('sample', { title: 'Job ticket ₹ 1,25,000.50', lines: ['Visiting cards, 350 gsm art card', 'शादी का निमंत्रण कार्ड हिन्दी किताब'], qr: 'http://shop.example/projects/abc' });
    assert.equal(pdf.subarray(0, 5).toString('latin1'), '%PDF-');
    const text = await pdfText(pdf);
    for (const word of ['Job', 'ticket', '₹', '1,25,000.50', 'Visiting', 'cards,', '350', 'gsm', 'Page 1 of 1']) assert.ok(text.includes(word), `${word} in ${text}`);
    for (const word of ['शादी', 'निमंत्रण', 'कार्ड', 'हिन्दी', 'किताब']) assert.ok(hasWordLetters(text, word), `${word} in ${text}`);
    assert.ok(!hasWordLetters(text, 'तमिल'));
  });

  it('flows a long table onto further pages', async () => {
    const lines = Array.from({ length: 120 }, (_, i) => `Line number ${i + 1}`);
    const pages = await pdfPages(await renderer.render('sample', { title: 'Long', lines }));
    assert.ok(pages.length >= 3, `${pages.length} pages`);
    assert.ok(pages[pages.length - 1]!.includes('Line number 120'));
    assert.ok(pages[1]!.includes('Line'), 'the header again on page 2');
    assert.ok(pages[1]!.includes(`Page 2 of ${pages.length}`));
  });

  it('draws a line with a 5,000-character word in bounded time, and its text reads back', async () => {
    // pdfkit alone cut such a word in quadratic time (17.7 s for one PI); long-words.ts cuts it once.
    // Letters no other text of the document has: the two cells' pieces, read back page after page, are picked out by them.
    const word = 'qzxjwv'.repeat(834).slice(0, 5_000);
    const hsn = word.toUpperCase();
    const line = { description: word, hsnSac: hsn, quantity: '1 pc', rate: '₹ 10.00\n18% GST', taxable: '₹ 10.00', cgst: '₹ 0.90', sgst: '₹ 0.90', igst: '₹ 0.00' };
    const data = {
      title: 'PROFORMA INVOICE', shop: { name: 'Shop', lines: [] }, meta: [], customer: { name: 'Customer', lines: [] }, intra: true,
      lines: [line, { ...line, description: 'A short line below it', hsnSac: '4911' }],
      totals: [['Total (INR)', '₹ 21.80']] as [string, string][], words: 'Twenty-one rupees and eighty paise only', bankDetails: null, footer: 'Footer',
    };
    const started = performance.now();
    const pdf = await renderer.render('money', data);
    const ms = performance.now() - started;
    // About half a second on a busy shared machine; seconds, growing with the square of the word, before.
    assert.ok(ms < 6_000, `${ms.toFixed(0)} ms`);
    const pages = await pdfPages(pdf);
    const tokens = pages.join(' ').split(/\s+/);
    assert.equal(tokens.filter((t) => /^[qzxjwv]+$/.test(t)).join(''), word, 'the whole description, its pieces in order');
    assert.equal(tokens.filter((t) => /^[QZXJWV]+$/.test(t)).join(''), hsn, 'the whole HSN');
    const text = pages.join(' ');
    for (const words of ['A short line below it', 'Twenty-one rupees and eighty paise only', `Page ${pages.length} of ${pages.length}`]) assert.ok(text.includes(words), words);
    // The row is split across pages, each with the table's header again; none is left with the header alone.
    for (const page of pages.slice(1, -1)) assert.match(page, /^# Description HSN\/SAC Qty Rate Taxable value CGST SGST (1 )?([qzxjwv]+|[QZXJWV]+) /);
  });

  it('draws off the event loop: the loop stays responsive while documents are drawn', async () => {
    await Promise.all([1, 2].map(() => renderer.render('sample', { title: 'Warm', lines: ['a'] })));
    const h = monitorEventLoopDelay({ resolution: 5 });
    h.enable();
    await Promise.all([1, 2, 3, 4].map(() => renderer.render('sample', { title: 'Busy', lines: ['a'], spinMs: 2_000 })));
    h.disable();
    // One 2 s drawing on the loop would delay it by 2 s at least; off it, only by the CPU the threads take (a shared, busy machine).
    assert.ok(h.max / 1e6 < 1_500, `event loop delay max ${h.max / 1e6} ms`);
  });

  it('draws at a lower priority than the event loop (Linux: the rendering threads are niced, the main thread is not)', { skip: process.platform !== 'linux' }, async () => {
    await renderer.render('sample', { title: 'Nice', lines: ['a'] });
    // Field 19 of /proc/<pid>/task/<tid>/stat is the thread's nice value (after the name in parentheses: index 16).
    const niceOf = (tid: string) => Number(fs.readFileSync(`/proc/${process.pid}/task/${tid}/stat`, 'utf8').split(') ')[1]!.split(' ')[16]);
    const threads = fs.readdirSync(`/proc/${process.pid}/task`);
    assert.equal(niceOf(String(process.pid)), os.getPriority(), 'the main thread keeps the process\'s priority');
    assert.ok(threads.filter((tid) => niceOf(tid) >= RENDER_NICE).length >= 1, 'a rendering thread at nice 10');
  });

  it('ends a document past its time with 503 and keeps rendering afterwards', async () => {
    const quick = new PdfRenderer({ concurrency: 1, timeoutMs: 10_000, maxWaiting: 5 });
    try {
      await assert.rejects(quick.render('sample', { title: 'Slow', lines: [], spinMs: 60_000 }), (err: Error & { status?: number }) => err.status === 503);
      const pdf = await quick.render('sample', { title: 'After', lines: ['fine'] });
      assert.ok((await pdfText(pdf)).includes('After'));
    } finally {
      quick.close();
    }
  });

  it('refuses past its waiting bound with 503 and Retry-After', async () => {
    const small = new PdfRenderer({ concurrency: 1, timeoutMs: 120_000, maxWaiting: 1 });
    try {
      const first = small.render('sample', { title: 'a', lines: [], spinMs: 200 });
      await new Promise((r) => setImmediate(r));
      const second = small.render('sample', { title: 'b', lines: [] });
      await assert.rejects(small.render('sample', { title: 'c', lines: [] }), (err: Error & { status?: number; headers?: Record<string, string> }) => err.status === 503 && err.headers?.['retry-after'] === '1');
      await Promise.all([first, second]);
    } finally {
      small.close();
    }
  });
});
