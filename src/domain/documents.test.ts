import assert from 'node:assert/strict';
import { test } from 'node:test';
import { cleanContentType, cleanFilename } from './documents.js';

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
