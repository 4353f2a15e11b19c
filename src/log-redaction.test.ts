import assert from 'node:assert/strict';
import { test } from 'node:test';
import { redactUrl } from './log-redaction.js';

test('redactUrl keeps what helps and drops what is a credential', () => {
  const cases: Array<[string, string]> = [
    ['/api/projects?q=abc&page=2', '/api/projects?q=abc&page=2'],
    ['/reset-password?token=s3cret', '/reset-password?[redacted]'],
    ['/reset-password/?t=s3cret&x=1', '/reset-password/?[redacted]'],
    ['/%72eset-password?s3cret', '/%72eset-password?[redacted]'],
    ['/reset-password', '/reset-password'],
    ['/proofs/tok123', '/proofs/[redacted]'],
    ['/proofs/tok123/approve?x=1', '/proofs/[redacted]/approve?x=1'],
    ['/api/proof-links/tok123/decision', '/api/proof-links/[redacted]/decision'],
    ['/api/%70roof-links/tok123', '/api/%70roof-links/[redacted]'],
    ['/API/Proof-Links/tok123/file', '/API/Proof-Links/[redacted]/file'],
    ['//api/proof-links/tok123/preview?page=2', '//api/proof-links/[redacted]/preview?page=2'],
    ['/%70roofs/tok123', '/%70roofs/[redacted]'],
    ['/api/projects/p1/proofs/pr1/preview', '/api/projects/p1/proofs/[redacted]/preview'],
    ['/anything?token=abc&keep=1', '/anything?token=[redacted]&keep=1'],
    ['/anything?access_token=abc', '/anything?access_token=[redacted]'],
    ['/anything?TOKEN=abc', '/anything?TOKEN=[redacted]'],
    ['/anything?to%6Ben=abc', '/anything?to%6Ben=[redacted]'],
    ['/anything?a=1&token', '/anything?a=1&token'],
    ['/files/print-orders/p/po/po_1.pdf', '/files/print-orders/p/po/po_1.pdf'],
  ];
  for (const [url, want] of cases) assert.equal(redactUrl(url), want, url);
});
