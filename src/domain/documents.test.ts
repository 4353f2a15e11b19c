import assert from 'node:assert/strict';
import { test } from 'node:test';
import { type DocumentAccess, cleanContentType, cleanFilename, documentAddress } from './documents.js';

test('cleanFilename takes control characters out of an uploaded name', () => {
  const cases: [string, string][] = [
    ['order.pdf', 'order.pdf'],
    ['ord\u0000er.pdf', 'order.pdf'],
    ['a\tb\r\nc\u007f.txt', 'abc.txt'],
    ['  spaced name.pdf ', 'spaced name.pdf'],
    ['\u0000\u0001', 'file'],
    ['résumé ✓.pdf', 'résumé ✓.pdf'],
  ];
  for (const [given, kept] of cases) assert.equal(cleanFilename(given), kept, JSON.stringify(given));
});

test('cleanContentType keeps a declared type only when it is a valid media type', () => {
  const cases: [string | undefined, string][] = [
    ['application/pdf', 'application/pdf'],
    ['text/plain; charset=utf-8', 'text/plain; charset=utf-8'],
    ['  image/png ', 'image/png'],
    ['application/p\u0000df', 'application/octet-stream'],
    ['text/plain\u0100', 'application/octet-stream'],
    ['text/plain; name="résumé"', 'application/octet-stream'],
    ['pdf', 'application/octet-stream'],
    ['', 'application/octet-stream'],
    [undefined, 'application/octet-stream'],
  ];
  for (const [given, kept] of cases) assert.equal(cleanContentType(given), kept, JSON.stringify(given));
});

test('cleanFilename keeps at most 255 characters of a name, its extension kept', () => {
  const long = `${'a'.repeat(5000)}.pdf`;
  assert.equal(cleanFilename(long), `${'a'.repeat(251)}.pdf`);
  assert.equal([...cleanFilename('😀'.repeat(2000))].length, 255, 'counted in characters, never half of one');
  assert.equal(cleanFilename(`${'b'.repeat(255)}`), 'b'.repeat(255), 'a name of 255 is kept whole');
});

test('documentAddress: the store\'s url in public mode, ours in private mode on every driver', () => {
  const base = 'https://orders.example';
  const cases: [DocumentAccess['mode'], { url: string; storageKey: string }, string][] = [
    ['public', { url: `${base}/files/print-orders/p1/po/po_1.pdf`, storageKey: 'print-orders/p1/po/po_1.pdf' }, `${base}/files/print-orders/p1/po/po_1.pdf`],
    ['public', { url: 'https://bucket.s3.amazonaws.com/print-orders/p1/po/po_1.pdf', storageKey: 'print-orders/p1/po/po_1.pdf' }, 'https://bucket.s3.amazonaws.com/print-orders/p1/po/po_1.pdf'],
    ['private', { url: 'https://bucket.s3.amazonaws.com/print-orders/p1/po/po_1.pdf', storageKey: 'print-orders/p1/po/po_1.pdf' }, `${base}/files/print-orders/p1/po/po_1.pdf`],
    ['private', { url: 'https://res.cloudinary.com/c/image/private/s--x--/v1/print-orders/p1/po/po_1.pdf', storageKey: 'print-orders/p1/po/po_1.pdf' }, `${base}/files/print-orders/p1/po/po_1.pdf`],
    ['private', { url: `${base}/files/print-orders/p1/po/po_1.pdf`, storageKey: 'print-orders/p1/po/po_1.pdf' }, `${base}/files/print-orders/p1/po/po_1.pdf`],
    ['private', { url: 'x', storageKey: 'print-orders/p 1/po/po_1#.txt' }, `${base}/files/print-orders/p%201/po/po_1%23.txt`],
  ];
  for (const [mode, file, expected] of cases) assert.equal(documentAddress({ mode, publicUrl: base }, file), expected, `${mode} ${file.url}`);
});
