import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Role } from './model.js';
import { decideVoid } from './void-policy.js';

/** Written from interface.md's words: "ADMIN; or the uploader within 24 hours of the upload; anyone else 403 … Voiding twice → 409". */
test('who may withdraw a document, and when', () => {
  const UPLOADED = '2026-11-24T10:00:00.000Z';
  const at = (iso: string) => new Date(iso);
  const HOUR_LATER = at('2026-11-24T11:00:00.000Z');
  const EXACTLY_24H = at('2026-11-25T10:00:00.000Z');
  const JUST_AFTER = at('2026-11-25T10:00:00.001Z');
  const WEEK_LATER = at('2026-12-01T10:00:00.000Z');
  type Row = [role: Role, uploader: boolean, voided: boolean, now: Date, expected: [number, string] | null];
  const FORBIDDEN: [number, string] = [403, 'Only an admin or the uploader can withdraw a document'];
  const TOO_LATE: [number, string] = [403, 'The uploader can withdraw a document only within 24 hours of uploading it; ask an admin'];
  const TWICE: [number, string] = [409, 'This document has already been withdrawn'];
  const table: Row[] = [
    ['ADMIN', false, false, HOUR_LATER, null],
    ['ADMIN', false, false, WEEK_LATER, null],
    ['ADMIN', true, false, WEEK_LATER, null],
    ['ADMIN', false, true, HOUR_LATER, TWICE],
    ['POC', true, false, HOUR_LATER, null],
    ['POC', true, false, EXACTLY_24H, null],
    ['POC', true, false, JUST_AFTER, TOO_LATE],
    ['POC', true, false, WEEK_LATER, TOO_LATE],
    ['POC', true, true, HOUR_LATER, TWICE],
    ['POC', true, true, WEEK_LATER, TOO_LATE],
    ['POC', false, false, HOUR_LATER, FORBIDDEN],
    ['POC', false, true, HOUR_LATER, FORBIDDEN],
    ['CLIENT', true, false, HOUR_LATER, null],
    ['CLIENT', true, false, JUST_AFTER, TOO_LATE],
    ['CLIENT', false, false, HOUR_LATER, FORBIDDEN],
  ];
  for (const [role, uploader, voided, now, expected] of table) {
    const actor = { id: 'caller', role };
    const file = { uploadedById: uploader ? 'caller' : 'someone-else', createdAt: UPLOADED, voidedAt: voided ? '2026-11-24T10:30:00.000Z' : null };
    const refusal = decideVoid(actor, file, now);
    assert.deepEqual(refusal && [refusal.status, refusal.message], expected, `${role} uploader=${uploader} voided=${voided} at ${now.toISOString()}`);
  }
});
