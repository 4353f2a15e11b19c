import assert from 'node:assert/strict';
import { test } from 'node:test';
import { etagMatches, pageWithinBounds, previewParams, previewEtag, previewKey, previewKindOf, previewWidth, proportionalHeight } from './previews.js';

test('previewKindOf: by the type the bytes showed, the declared one only when none was detected; voided documents have none', () => {
  const cases: [string, string | null, string | null | undefined, ReturnType<typeof previewKindOf>][] = [
    ['application/pdf', 'application/pdf', undefined, 'pdf'],
    ['application/octet-stream', 'application/pdf', undefined, 'pdf'],
    ['application/pdf', null, undefined, 'pdf'],
    ['Application/PDF; name=x', null, undefined, 'pdf'],
    ['image/png', 'image/png', undefined, 'image'],
    ['image/jpg', null, undefined, 'image'],
    ['image/jpeg', 'image/jpeg', null, 'image'],
    ['image/webp', 'image/webp', undefined, 'image'],
    ['image/gif', 'image/gif', undefined, 'image'],
    ['image/svg+xml', 'image/svg+xml', undefined, null],
    ['application/pdf', 'text/html', undefined, null],
    ['text/plain', null, undefined, null],
    ['application/vnd.openxmlformats-officedocument.wordprocessingml.document', 'application/zip', undefined, null],
    ['application/pdf', 'application/pdf', '2026-11-24T10:00:00.000Z', null],
    ['image/png', 'image/png', '2026-11-24T10:00:00.000Z', null],
  ];
  for (const [contentType, detectedType, voidedAt, kind] of cases) {
    assert.equal(previewKindOf({ contentType, detectedType, voidedAt }), kind, `${contentType} / ${detectedType} / ${voidedAt}`);
  }
});

test('previewWidth: the width asked for, never wider than the picture', () => {
  const cases: [number, number, number][] = [
    [320, 1000, 320],
    [320, 200, 200],
    [1600, 1190.5, 1190],
    [64, 64, 64],
    [64, 0.4, 1],
  ];
  for (const [asked, natural, width] of cases) assert.equal(previewWidth(asked, natural), width, `${asked} of ${natural}`);
});

test('proportionalHeight keeps the proportions, at least 1 pixel', () => {
  assert.equal(proportionalHeight(320, { width: 595, height: 842 }), 453);
  assert.equal(proportionalHeight(200, { width: 400, height: 100 }), 50);
  assert.equal(proportionalHeight(64, { width: 100_000, height: 1 }), 1);
});

test('pageWithinBounds: ordinary pages pass; giant sides, empty pages and hair-thin pages do not', () => {
  const cases: [{ width: number; height: number }, number, boolean][] = [
    [{ width: 595, height: 842 }, 1600, true],
    [{ width: 14_400, height: 14_400 }, 320, true],
    [{ width: 227, height: 5000 }, 320, true],
    [{ width: 2e9, height: 2e9 }, 320, false],
    [{ width: 0, height: 842 }, 320, false],
    [{ width: Number.NaN, height: 842 }, 320, false],
    [{ width: 10, height: 14_400 }, 1600, false],
  ];
  for (const [page, width, ok] of cases) assert.equal(pageWithinBounds(page, width), ok, JSON.stringify([page, width]));
});

test('previewKey: by the bytes, page and width; by the id for a record older than checksums; safe as a file name', () => {
  const sha = 'AB'.repeat(32);
  assert.equal(previewKey({ id: 'x', sha256: sha }, 2, 320), `${'ab'.repeat(32)}-p2-w320-v1`);
  assert.equal(previewKey({ id: '0190-AbC/../x', sha256: null }, 1, 64), 'id-0190-abc-p1-w64-v1');
  assert.notEqual(previewKey({ id: 'x', sha256: sha }, 1, 320), previewKey({ id: 'x', sha256: sha }, 1, 321));
});

test('etagMatches: exact, weak, listed or *', () => {
  const etag = previewEtag('k-p1-w320-v1');
  assert.equal(etag, '"k-p1-w320-v1"');
  const cases: [string | undefined, boolean][] = [
    [undefined, false],
    ['', false],
    [etag, true],
    [`W/${etag}`, true],
    [`"other", ${etag}`, true],
    ['*', true],
    ['"k-p1-w321-v1"', false],
  ];
  for (const [header, match] of cases) assert.equal(etagMatches(header, etag), match, String(header));
});

test('previewParams: whole numbers only, within their ranges, with defaults; the message names the parameter', () => {
  const PAGE = { error: 'page must be a whole number from 1' };
  const WIDTH = { error: 'width must be a whole number from 64 to 1600' };
  const cases: [Record<string, unknown>, ReturnType<typeof previewParams>][] = [
    [{}, { page: 1, width: 320 }],
    [{ page: '3', width: '64' }, { page: 3, width: 64 }],
    [{ page: '007', width: '1600' }, { page: 7, width: 1600 }],
    [{ page: ['2', '5'] }, { page: 2, width: 320 }],
    [{ page: '0' }, PAGE],
    [{ page: '' }, PAGE],
    [{ page: '-1' }, PAGE],
    [{ page: '1.5' }, PAGE],
    [{ page: '1e3' }, PAGE],
    [{ page: ' 2' }, PAGE],
    [{ page: 'two' }, PAGE],
    [{ page: '9999999999' }, PAGE],
    [{ width: '63' }, WIDTH],
    [{ width: '1601' }, WIDTH],
    [{ width: '320px' }, WIDTH],
    [{ width: '100.0' }, WIDTH],
    [{ page: '0', width: '0' }, PAGE],
  ];
  for (const [query, expected] of cases) assert.deepEqual(previewParams(query), expected, JSON.stringify(query));
});
