import assert from 'node:assert/strict';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { after, describe, it } from 'node:test';
import { hasWordLetters, pdfPages, pdfText } from '../../test/helpers/pdf-text.js';
import { PdfRenderer } from './index.js';

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

  it('draws off the event loop: the loop stays responsive while documents are drawn', async () => {
    await Promise.all([1, 2].map(() => renderer.render('sample', { title: 'Warm', lines: ['a'] })));
    const h = monitorEventLoopDelay({ resolution: 5 });
    h.enable();
    await Promise.all([1, 2, 3, 4].map(() => renderer.render('sample', { title: 'Busy', lines: ['a'], spinMs: 2_000 })));
    h.disable();
    // One 2 s drawing on the loop would delay it by 2 s at least; off it, only by the CPU the threads take (a shared, busy machine).
    assert.ok(h.max / 1e6 < 1_500, `event loop delay max ${h.max / 1e6} ms`);
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
