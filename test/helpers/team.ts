import assert from 'node:assert/strict';
import type { RealtimeMessage } from '../../src/realtime/types.js';
import type { Client, Response, TestService } from './service.js';

/** ISO 8601 in UTC, as every timestamp of the API is written. */
export const ISO_UTC = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,6})?Z$/;

export function assertIsoUtc(value: unknown, what = 'timestamp'): void {
  assert.equal(typeof value, 'string', `${what} is not a string`);
  assert.match(value as string, ISO_UTC, `${what} is not ISO 8601 UTC`);
  assert.ok(!Number.isNaN(Date.parse(value as string)), `${what} does not parse`);
}

/** Asserts the status and the exact JSON body of a response. */
export function assertAnswer(res: Response, status: number, body: unknown, what = ''): void {
  assert.equal(res.status, status, `${what} status ${res.status}: ${res.text}`);
  assert.deepEqual(res.body, body, `${what} body: ${res.text}`);
}

/** A request with a raw (possibly malformed) JSON body. */
export const rawJson = (client: Client, method: string, path: string, text: string, headers: Record<string, string> = {}) =>
  client.request(method, path, { body: text, headers: { 'content-type': 'application/json', ...headers } });

/**
 * Records what a block of work leaves behind that the team endpoints must never leave:
 * activity-log rows and realtime notifications.
 */
export async function sideEffectsOf(svc: TestService, work: () => Promise<unknown>): Promise<{ activityRows: number; notifications: RealtimeMessage[] }> {
  const count = async () => {
    const row = await svc.deps.database.db
      .selectFrom('activity_log')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .executeTakeFirstOrThrow();
    return Number(row.n);
  };
  const notifications: RealtimeMessage[] = [];
  // The specification's notifications; session signals (realtime/streams.ts) concern open streams only and reach no browser as such.
  const unsubscribe = svc.deps.realtime.subscribe((n) => n.channel !== 'sessions' && notifications.push(n));
  const before = await count();
  try {
    await work();
  } finally {
    unsubscribe();
  }
  return { activityRows: (await count()) - before, notifications };
}

/** The stored bcrypt hash of a user. */
export async function storedHash(svc: TestService, userId: string): Promise<string> {
  const row = await svc.deps.database.db.selectFrom('users').select('password_hash').where('id', '=', userId).executeTakeFirstOrThrow();
  return row.password_hash;
}

/** A unique email for a test. */
let seq = 0;
export const uniqueEmail = (label = 'member') => `${label}-${Date.now().toString(36)}-${++seq}@example.com`;
