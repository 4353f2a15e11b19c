import assert from 'node:assert/strict';
import { eventuallyPasses } from './eventually.js';
import { type TestService, startTestService } from './service.js';
import { type TestSmtpServer, startSmtpServer } from './smtp.js';

/** The service's email settings at a test's pace: polled every 50 ms, retried after 100 ms doubling to 400 ms; no SMTP server: .eml files. */
export const mailEnv = (smtp: TestSmtpServer | null, batchSeconds = 0): Record<string, string> => ({
  ...(smtp ? { SMTP_URL: smtp.url } : {}),
  MAIL_FROM: 'Print shop <orders@shop.example>',
  MAIL_BATCH_SECONDS: String(batchSeconds),
  MAIL_POLL_MS: '50',
  MAIL_RETRY_BASE_MS: '100',
  MAIL_RETRY_MAX_MS: '400',
});

/** A fresh SMTP server and a service sending to it; close() stops both. */
export async function startMailService(batchSeconds: number): Promise<{ smtp: TestSmtpServer; svc: TestService; close(): Promise<void> }> {
  const smtp = await startSmtpServer();
  const svc = await startTestService({ env: mailEnv(smtp, batchSeconds) });
  return {
    smtp,
    svc,
    async close() {
      await svc.close();
      await smtp.stop();
    },
  };
}

/** Outbox rows by status. */
export async function outbox(svc: TestService): Promise<Record<string, number>> {
  const rows = await svc.deps.database.db.selectFrom('outbox').select(['status']).execute();
  const by: Record<string, number> = {};
  for (const r of rows) by[r.status] = (by[r.status] ?? 0) + 1;
  return by;
}

/** Waits until every outbox row is finished (none pending), then gives the rows by status. */
export async function settled(svc: TestService, timeoutMs = 15_000): Promise<Record<string, number>> {
  return eventuallyPasses(async () => {
    const by = await outbox(svc);
    assert.ok(!by.pending, `outbox not settled within ${timeoutMs} ms: ${JSON.stringify(by)}`);
    return by;
  }, timeoutMs);
}

/** Ends the batching window now: the waiting emails are due, and sent. */
export async function sendNow(svc: TestService): Promise<void> {
  await svc.deps.database.db.updateTable('outbox').set({ due_at: new Date().toISOString() }).where('status', '=', 'pending').execute();
  await settled(svc);
}
