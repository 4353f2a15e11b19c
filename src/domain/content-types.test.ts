import assert from 'node:assert/strict';
import { test } from 'node:test';
import { MAX_MEDIA_TYPE_CHARS, isMediaType, parseAllowedTypes, refusedType, servedInline, sniffMarkup, typeMismatch } from './content-types.js';

test('sniffMarkup recognises pages, SVG and XML by their first bytes, and nothing else', () => {
  const cases: [string, string | null][] = [
    ['<!DOCTYPE html><html>', 'text/html'],
    ['\ufeff  \n<HTML lang="en">', 'text/html'],
    ['<script>alert(1)</script>', 'text/html'],
    ['<p>hi', 'text/html'],
    ['<!-- x -->', 'text/html'],
    ['<svg xmlns="http://www.w3.org/2000/svg"/>', 'image/svg+xml'],
    ['<?xml version="1.0"?>\n<svg xmlns="http://www.w3.org/2000/svg">', 'image/svg+xml'],
    ['<?xml version="1.0"?><invoice/>', 'application/xml'],
    ['<pre-text is not a tag', null],
    ['%PDF-1.7', null],
    ['id,amount\n1,2', null],
    ['', null],
  ];
  for (const [head, type] of cases) assert.equal(sniffMarkup(Buffer.from(head)), type, JSON.stringify(head));
});

test('typeMismatch: a recognised type that contradicts a specific declared one', () => {
  const cases: [string, string | null, boolean][] = [
    ['application/pdf', 'application/pdf', false],
    ['application/pdf', 'text/html', true],
    ['image/jpg', 'image/jpeg', false],
    ['text/xml; charset=utf-8', 'application/xml', false],
    ['application/octet-stream', 'application/pdf', false],
    ['text/plain', null, false],
    ['IMAGE/PNG', 'image/png', false],
    ['image/png', 'image/jpeg', true],
  ];
  for (const [declared, detected, expected] of cases) assert.equal(typeMismatch(declared, detected), expected, `${declared} / ${detected}`);
});

test('servedInline: only when both the declared and the detected type are passive', () => {
  const cases: [string, string | null, boolean][] = [
    ['application/pdf', 'application/pdf', true],
    ['application/pdf', null, true],
    ['application/pdf', 'text/html', false],
    ['image/png', 'image/svg+xml', false],
    ['text/html', null, false],
    ['image/svg+xml', 'application/xml', false],
    ['video/mp4', 'video/mp4', true],
    ['application/pdf', 'application/zip', false],
  ];
  for (const [declared, detected, expected] of cases) assert.equal(servedInline(declared, detected), expected, `${declared} / ${detected}`);
});

test('refusedType: an empty list allows everything; otherwise declared and detected must both be allowed', () => {
  const pdfAndImages = parseAllowedTypes(' application/pdf, image/* ');
  assert.deepEqual(pdfAndImages, ['application/pdf', 'image/*']);
  assert.deepEqual(parseAllowedTypes(undefined), []);
  assert.deepEqual(parseAllowedTypes('*/*'), []);
  const cases: [string, string | null, string | null][] = [
    ['application/pdf', 'application/pdf', null],
    ['application/pdf', null, null],
    ['image/jpg', 'image/jpeg', null],
    ['application/pdf', 'text/html', 'text/html'],
    ['text/html', null, 'text/html'],
    ['application/octet-stream', 'image/png', null],
    ['application/octet-stream', null, 'application/octet-stream'],
  ];
  for (const [declared, detected, refused] of cases) assert.equal(refusedType(pdfAndImages, declared, detected), refused, `${declared} / ${detected}`);
  assert.equal(refusedType([], 'text/html', 'text/html'), null);
});

test('isMediaType: RFC 9110 type/subtype with optional parameters, ASCII only', () => {
  const cases: [string, boolean][] = [
    ['application/pdf', true],
    ['APPLICATION/PDF', true],
    ['application/vnd.openxmlformats-officedocument.wordprocessingml.document', true],
    ['image/svg+xml', true],
    ['text/plain; charset=utf-8', true],
    ['text/plain;charset=UTF-8;format=flowed', true],
    ['text/plain ; charset="utf-8"', true],
    ['text/plain; name="a \\"quoted\\" name;x"', true],
    ['text/plain;', true],
    ["application/x-!#$%&'*+.^_`|~", true],
    ['text/plain\u0100', false],
    ['text/plain; name="résumé"', false],
    ['text/pl ain', false],
    ['text/plain\r\nX-Injected: 1', false],
    ['text/plain\u0000', false],
    ['text', false],
    ['text/', false],
    ['/plain', false],
    ['text/plain/html', false],
    ['text/plain; charset', false],
    ['text/plain; charset=', false],
    ['text/plain; charset="utf-8', false],
    ['text/plain; a=b c', false],
    ['(text)/plain', false],
    ['', false],
    [`application/${'x'.repeat(MAX_MEDIA_TYPE_CHARS)}`, false],
  ];
  for (const [value, valid] of cases) assert.equal(isMediaType(value), valid, JSON.stringify(value));
});
