import assert from 'node:assert/strict';
import { test } from 'node:test';
import { base62Of, expiryOf, lastUseDue, looksLikeToken, newTokenRefusal, scopeAllows, tokenRefusal } from './api-tokens.js';

test('scopeAllows: a read token only GET and HEAD, a write token everything', () => {
  const cases: [Parameters<typeof scopeAllows>[0], string, boolean][] = [
    ['read', 'GET', true],
    ['read', 'HEAD', true],
    ['read', 'get', true],
    ['read', 'POST', false],
    ['read', 'PATCH', false],
    ['read', 'PUT', false],
    ['read', 'DELETE', false],
    ['read', 'OPTIONS', false],
    ['write', 'GET', true],
    ['write', 'POST', true],
    ['write', 'DELETE', true],
  ];
  for (const [scope, method, want] of cases) assert.equal(scopeAllows(scope, method), want, `${scope} ${method}`);
});

test('newTokenRefusal: name, scope and expiry bounds', () => {
  const cases: [Parameters<typeof newTokenRefusal>[0], string | null][] = [
    [{ name: 'CI', scope: 'read' }, null],
    [{ name: '  ERP sync  ', scope: 'write', expiresInDays: 1 }, null],
    [{ name: 'x'.repeat(100), scope: 'write', expiresInDays: 3650 }, null],
    [{ name: 'CI', scope: 'read', expiresInDays: null }, null],
    [{ name: '', scope: 'read' }, 'Name is required'],
    [{ name: '   ', scope: 'read' }, 'Name is required'],
    [{ name: 'x'.repeat(101), scope: 'read' }, 'Name must be at most 100 characters'],
    [{ name: 'CI', scope: 'admin' }, 'Scope must be read or write'],
    [{ name: 'CI', scope: 'read', expiresInDays: 0 }, 'Expires in days must be a whole number from 1 to 3650'],
    [{ name: 'CI', scope: 'read', expiresInDays: 3651 }, 'Expires in days must be a whole number from 1 to 3650'],
    [{ name: 'CI', scope: 'read', expiresInDays: 1.5 }, 'Expires in days must be a whole number from 1 to 3650'],
    [{ name: 'CI', scope: 'read', expiresInDays: -3 }, 'Expires in days must be a whole number from 1 to 3650'],
  ];
  for (const [body, want] of cases) assert.equal(newTokenRefusal(body)?.message ?? null, want, JSON.stringify(body));
});

test('tokenRefusal: revoked, then deactivated, then expired; the instant of expiry is expired', () => {
  const now = Date.parse('2026-11-24T12:00:00.000Z');
  const cases: [Parameters<typeof tokenRefusal>[0], ReturnType<typeof tokenRefusal>][] = [
    [{ expiresAt: null, revokedAt: null, userActive: true }, null],
    [{ expiresAt: '2026-11-24T12:00:00.001Z', revokedAt: null, userActive: true }, null],
    [{ expiresAt: '2026-11-24T12:00:00.000Z', revokedAt: null, userActive: true }, 'expired'],
    [{ expiresAt: null, revokedAt: null, userActive: false }, 'deactivated'],
    [{ expiresAt: '2020-01-01T00:00:00.000Z', revokedAt: '2020-01-01T00:00:00.000Z', userActive: false }, 'revoked'],
  ];
  for (const [token, want] of cases) assert.equal(tokenRefusal(token, now), want, JSON.stringify(token));
});

test('lastUseDue: at most once a minute', () => {
  const cases: [number | null, number, boolean][] = [
    [null, 0, true],
    [1_000, 1_000, false],
    [1_000, 60_999, false],
    [1_000, 61_000, true],
    [1_000, 500, false],
  ];
  for (const [last, now, want] of cases) assert.equal(lastUseDue(last, now), want, `${last} → ${now}`);
});

test('expiryOf: whole days from now, or never', () => {
  assert.equal(expiryOf(Date.parse('2026-11-24T12:00:00.000Z'), 30), '2026-12-24T12:00:00.000Z');
  assert.equal(expiryOf(0, null), null);
});

test('base62Of and looksLikeToken: only base62 characters, unbiased, and what a token looks like', () => {
  const bytes = Uint8Array.from({ length: 256 }, (_, i) => i);
  const text = base62Of(bytes, 300);
  assert.equal(text.length, 248, 'bytes 248–255 are skipped');
  assert.match(text, /^[0-9A-Za-z]+$/);
  const counts = new Map<string, number>();
  for (const c of text) counts.set(c, (counts.get(c) ?? 0) + 1);
  assert.deepEqual(new Set(counts.values()), new Set([4]), 'every character exactly 4 times');
  const cases: [string, boolean][] = [
    [`pos_${'a'.repeat(40)}`, true],
    [`pos_${'A1'.repeat(16)}`, true],
    [`pos_${'a'.repeat(31)}`, false],
    [`pos_${'a'.repeat(39)}-`, false],
    [`pat_${'a'.repeat(40)}`, false],
    ['', false],
  ];
  for (const [token, want] of cases) assert.equal(looksLikeToken(token), want, token);
});
