/**
 * The soak's end checks, against the database (read directly, apart from the service's code), the
 * S3 bucket, the webhook receivers, the SMTP sink and what the realtime clients received. Each adds
 * its counts to the report and a line to `failures` for every loss it finds.
 */
import { createHash } from 'node:crypto';
import pg from 'pg';
import { WEBHOOK_EVENT_OF } from '../../../src/domain/webhook-events.js';
import { EventIds } from '../../../src/realtime/event-ids.js';
import type { S3Server } from '../s3-server.js';
import type { TestSmtpServer } from '../smtp.js';
import type { Receiver } from '../webhook-receiver.js';
import type { Acknowledged } from './load.js';
import type { SseClient } from './sse.js';

export interface Report {
  lines: string[];
  failures: string[];
}

/** The soak's schema of PostgreSQL, read with plain SQL. */
export class SoakDb {
  readonly #pool: pg.Pool;
  constructor(url: string, schema: string) {
    this.#pool = new pg.Pool({ connectionString: url, max: 2, options: `-c search_path="${schema}"`, connectionTimeoutMillis: 10_000, statement_timeout: 60_000 });
    this.#pool.on('error', () => {}); // an idle connection dropped is picked up again on the next query
  }
  async rows<T>(text: string, params: unknown[] = []): Promise<T[]> {
    return (await this.#pool.query(text, params)).rows as T[];
  }
  close(): Promise<void> {
    return this.#pool.end();
  }
}

export interface Endpoint {
  id: string;
  receiver: Receiver;
}

const detailsOf = (d: unknown): Record<string, unknown> => (typeof d === 'string' ? (JSON.parse(d) as Record<string, unknown>) : ((d ?? {}) as Record<string, unknown>));
const sha256 = (b: Buffer) => createHash('sha256').update(b).digest('hex');

/** Every upload answered 201: its record, its bytes in S3 with the same SHA-256, its activity entry. */
export async function checkUploads(db: SoakDb, s3: S3Server, uploads: Acknowledged[], report: Report): Promise<void> {
  const records = new Map<string, { sha256: string | null; storage_key: string; project_id: string; voided_at: string | null }>();
  for (const r of await db.rows<{ id: string; sha256: string | null; storage_key: string; project_id: string; voided_at: string | null }>('select id, sha256, storage_key, project_id, voided_at from file_uploads')) records.set(r.id, r);
  const entries = new Set<string>();
  for (const e of await db.rows<{ entity_id: string; details: unknown }>("select entity_id, details from activity_log where action = 'PO_UPLOADED'")) {
    entries.add(`${e.entity_id}/${String(detailsOf(e.details).filename)}`);
  }
  let recorded = 0;
  let stored = 0;
  let logged = 0;
  for (const u of uploads) {
    const record = records.get(u.fileId);
    if (!record || record.project_id !== u.projectId || record.voided_at) report.failures.push(`upload ${u.fileId} (${u.filename}) answered 201 has no standing record`);
    else if (record.sha256 !== u.sha256) report.failures.push(`upload ${u.fileId}: record's SHA-256 ${record.sha256} is not the bytes sent (${u.sha256})`);
    else recorded++;
    if (record) {
      const object = await s3.get(record.storage_key);
      if (object.status !== 200) report.failures.push(`upload ${u.fileId}: no bytes in S3 at ${record.storage_key} (${object.status})`);
      else if (sha256(object.bytes) !== u.sha256) report.failures.push(`upload ${u.fileId}: the bytes in S3 at ${record.storage_key} are not the bytes sent`);
      else stored++;
    }
    if (entries.has(`${u.projectId}/${u.filename}`)) logged++;
    else report.failures.push(`upload ${u.fileId} (${u.filename}) has no PO_UPLOADED activity entry`);
  }
  report.lines.push(`uploads answered 201: ${uploads.length}; with their record and SHA-256: ${recorded}; bytes in S3, same SHA-256: ${stored}; activity entry: ${logged}`);
  report.lines.push(`upload records in all: ${records.size} (${records.size - uploads.length} whose answer the kills cut off, kept or not)`);
}

/** No bytes in the bucket without a record, after the reconciler (fsck --repair) has run. */
export async function checkOrphans(db: SoakDb, s3: S3Server, fsck: { orphans?: unknown[]; missing?: unknown[]; incomplete?: unknown[]; unrecordedNames?: unknown[] }, report: Report): Promise<void> {
  const recorded = new Set<string>();
  for (const r of await db.rows<{ storage_key: string }>('select storage_key from file_uploads union all select storage_key from proofs')) recorded.add(r.storage_key);
  const keys = s3.keys().filter((k) => k.startsWith('print-orders/'));
  const orphans = keys.filter((k) => !recorded.has(k));
  const missing = [...recorded].filter((k) => !keys.includes(k));
  report.lines.push(
    `reconciler (fsck --repair) removed ${fsck.orphans?.length ?? 0} orphan object(s), ${fsck.incomplete?.length ?? 0} incomplete write(s), released ${fsck.unrecordedNames?.length ?? 0} unused name(s); reported ${fsck.missing?.length ?? 0} record(s) without bytes`,
  );
  report.lines.push(`objects in the bucket: ${keys.length}; without a record after the reconciler: ${orphans.length}; records (documents and proofs) without their object: ${missing.length}`);
  for (const k of orphans) report.failures.push(`orphan bytes in the bucket after the reconciler: ${k}`);
  for (const k of missing) report.failures.push(`a record's object is missing from the bucket: ${k}`);
}

interface EventRow {
  id: string;
  seq: string;
}

/** The webhook events of the soak's changes, in commit order (the event log's position). */
export async function webhookEvents(db: SoakDb): Promise<EventRow[]> {
  return db.rows<EventRow>("select id, seq from webhook_events where event_type <> 'webhook.test' order by seq, id");
}

/** Whether each endpoint has received every event at least once (the drain waits for it). */
export function webhooksDelivered(events: EventRow[], endpoints: Endpoint[]): boolean {
  return endpoints.every((e) => {
    const got = new Set(e.receiver.received.map((r) => String(r.headers['webhook-id'])));
    return events.every((ev) => got.has(ev.id));
  });
}

/** Every change's event delivered at least once to each endpoint, first deliveries in commit order, duplicates only for deliveries cut by a kill. */
export async function checkWebhooks(db: SoakDb, endpoints: Endpoint[], kills: number, report: Report, startedAt: number): Promise<void> {
  const events = await webhookEvents(db);
  const positionOf = new Map(events.map((e, i) => [e.id, i]));
  const eventful = Object.entries(WEBHOOK_EVENT_OF)
    .filter(([, type]) => type !== null)
    .map(([action]) => action);
  const changes = await db.rows<{ seq: string }>("select seq from activity_log where entity_type = 'project' and action = any($1) order by seq", [eventful]);
  const eventSeqs = new Set(events.map((e) => e.seq));
  const without = changes.filter((c) => !eventSeqs.has(c.seq));
  report.lines.push(`changes with a webhook event: ${changes.length - without.length} of ${changes.length}; events: ${events.length}`);
  for (const c of without.slice(0, 20)) report.failures.push(`the change at position ${c.seq} has no webhook event`);
  if (without.length > 20) report.failures.push(`… and ${without.length - 20} more changes without an event`);

  for (const [n, endpoint] of endpoints.entries()) {
    const seen = new Set<string>();
    let duplicates = 0;
    let unknown = 0;
    let outOfOrder = 0;
    let last = -1;
    const firstAt = new Map<string, number>();
    const again: string[] = [];
    for (const r of endpoint.receiver.received) {
      const id = String(r.headers['webhook-id']);
      const position = positionOf.get(id);
      if (position === undefined) {
        unknown++;
        continue;
      }
      if (seen.has(id)) {
        duplicates++;
        // When each copy came, beside the kills' seconds: a duplicate far from any kill is not one a kill cut.
        again.push(`#${position} at ${((firstAt.get(id)! - startedAt) / 1000).toFixed(1)} s and ${((r.at - startedAt) / 1000).toFixed(1)} s`);
        continue;
      }
      seen.add(id);
      firstAt.set(id, r.at);
      if (position < last) outOfOrder++;
      last = position;
    }
    const missing = events.filter((e) => !seen.has(e.id)).length;
    report.lines.push(
      `webhook endpoint ${n + 1}: ${endpoint.receiver.received.length} deliveries, ${seen.size} of ${events.length} events delivered, ${missing} missing, ${outOfOrder} out of commit order, ${duplicates} duplicate(s) (allowed: ${kills}, one per kill), ${unknown} unknown`,
    );
    if (again.length) report.lines.push(`webhook endpoint ${n + 1}: sent again: ${again.slice(0, 20).join('; ')}`);
    if (missing) report.failures.push(`webhook endpoint ${n + 1}: ${missing} event(s) never delivered`);
    if (outOfOrder) report.failures.push(`webhook endpoint ${n + 1}: ${outOfOrder} first deliveries out of commit order`);
    if (duplicates > kills) report.failures.push(`webhook endpoint ${n + 1}: ${duplicates} duplicate deliveries for ${kills} kills`);
    if (unknown) report.failures.push(`webhook endpoint ${n + 1}: ${unknown} deliveries of events the log does not hold`);
  }
}

/** The positions (activity_log.seq) of the changes a user's stream may see: an admin all projects', a POC their own projects'. */
export async function visibleSeqs(db: SoakDb, userId: string, admin: boolean): Promise<number[]> {
  const rows = admin
    ? await db.rows<{ seq: string }>("select seq from activity_log where entity_type = 'project' order by seq")
    : await db.rows<{ seq: string }>(
        "select a.seq from activity_log a join projects p on p.id = a.entity_id where a.entity_type = 'project' and p.poc_id = $1 and not a.internal order by a.seq",
        [userId],
      );
  return rows.map((r) => Number(r.seq));
}

/** The event-id sealer every instance uses (its secret is in the database). */
export async function eventIds(db: SoakDb): Promise<EventIds> {
  const [row] = await db.rows<{ value: string }>("select value from server_secrets where name = 'realtime-event-ids'");
  if (!row) throw new Error('no realtime event id secret in the database');
  return new EventIds(Buffer.from(row.value, 'base64'));
}

/** Whether a client's last position has reached its last visible change (the drain waits for it). */
export function sseCaughtUp(ids: EventIds, client: SseClient, seqs: number[]): boolean {
  const last = seqs.at(-1);
  if (last === undefined) return true;
  return (ids.decode(client.userId, client.lastId) ?? 0) >= 2 * last;
}

/** Every client saw every event it may see, in order, once, across its reconnects. */
export async function checkSse(db: SoakDb, clients: { client: SseClient; admin: boolean }[], report: Report): Promise<void> {
  const ids = await eventIds(db);
  for (const { client, admin } of clients) {
    const seqs = await visibleSeqs(db, client.userId, admin);
    const numbers = client.frames.map((f) => ({ n: ids.decode(client.userId, f.id), event: f.event }));
    const undecodable = numbers.filter((x) => x.n === undefined).length;
    const resets = client.frames.filter((f) => f.event === 'reset').length;
    const events = numbers.filter((x) => x.event && x.event !== 'reset' && x.n !== undefined).map((x) => x.n!);
    const first = numbers[0];
    const start = first?.n === undefined ? 0 : first.event ? first.n - 1 : first.n;
    const end = ids.decode(client.userId, client.lastId) ?? 0;
    const expected = seqs.flatMap((s) => [2 * s - 1, 2 * s]).filter((n) => n > start && n <= end);
    const expectedSet = new Set(expected);
    const got = new Set(events);
    const missing = expected.filter((n) => !got.has(n)).length;
    const unexpected = events.filter((n) => !expectedSet.has(n)).length;
    const duplicates = events.length - got.size;
    let outOfOrder = 0;
    for (let i = 1; i < events.length; i++) if (events[i]! < events[i - 1]!) outOfOrder++;
    const behind = seqs.length && end < 2 * seqs.at(-1)! ? seqs.filter((s) => 2 * s > end).length : 0;
    report.lines.push(
      `SSE client ${client.name}: ${client.connections} connections (${client.cut} cut by kills, ${client.failedAttempts} attempts refused), ${events.length} events of ${expected.length} it may see; ${missing} missing, ${outOfOrder} out of order, ${duplicates} duplicate(s), ${unexpected} it may not see, ${resets} reset(s), ${behind} change(s) not reached`,
    );
    const problems: [number, string][] = [
      [missing, 'events it may see never received'],
      [outOfOrder, 'events out of order'],
      [duplicates, 'events received twice'],
      [unexpected, 'events outside what it may see'],
      [resets, 'resets (replay given up)'],
      [undecodable, 'ids not issued to it'],
      [behind, 'changes its stream never reached'],
    ];
    for (const [count, what] of problems) if (count) report.failures.push(`SSE client ${client.name}: ${count} ${what}`);
  }
}

/** What the load does that emails the other side: the POC hears of the admin's uploads, payments and comments, the admin of the POC's comments. */
const MAILED_ACTIONS = ['PROJECT_APPROVED', 'PO_UPLOADED', 'PAYMENT_RECORDED', 'COMMENT_ADDED'];

/** Emails still to send (the drain waits for none). */
export async function outboxPending(db: SoakDb): Promise<number> {
  const [row] = await db.rows<{ n: string }>("select count(*) as n from outbox where status = 'pending'");
  return Number(row?.n ?? 0);
}

/** Every email in the outbox sent or pending, none failed or dropped; every one marked sent arrived at the SMTP sink. */
export async function checkMail(db: SoakDb, smtp: TestSmtpServer, report: Report): Promise<void> {
  const byStatus = await db.rows<{ status: string; n: string }>('select status, count(*) as n from outbox group by status order by status');
  const counts = Object.fromEntries(byStatus.map((r) => [r.status, Number(r.n)]));
  const sentTo = await db.rows<{ email: string; n: string }>("select u.email, count(*) as n from outbox o join users u on u.id = o.recipient_id where o.status = 'sent' group by u.email");
  // Every change that emails someone (the soak's admin and POCs email each other) has its event in some outbox row.
  const keyOf = (action: string, details: Record<string, unknown>) => `${action}/${String(details.paymentId ?? details.commentId ?? details.filename ?? '')}`;
  const queued = new Set<string>();
  for (const r of await db.rows<{ events: unknown }>('select events from outbox')) {
    const events = (typeof r.events === 'string' ? JSON.parse(r.events) : r.events) as { action: string; details: Record<string, unknown> }[];
    for (const e of events) queued.add(keyOf(e.action, e.details ?? {}));
  }
  const changes = await db.rows<{ action: string; details: unknown }>("select action, details from activity_log where action = any($1)", [MAILED_ACTIONS]);
  const unqueued = changes.filter((c) => !queued.has(keyOf(c.action, detailsOf(c.details)))).length;
  report.lines.push(`changes that email someone: ${changes.length}; with their email in the outbox: ${changes.length - unqueued}`);
  if (unqueued) report.failures.push(`${unqueued} change(s) that email someone have no email in the outbox`);
  let notArrived = 0;
  for (const r of sentTo) notArrived += Math.max(0, Number(r.n) - smtp.to(r.email).length);
  const sent = counts.sent ?? 0;
  report.lines.push(
    `emails in the outbox: ${Object.values(counts).reduce((a, b) => a + b, 0)} (${Object.entries(counts)
      .map(([s, n]) => `${n} ${s}`)
      .join(', ')}); received by the SMTP sink: ${smtp.received.length}; marked sent but not received: ${notArrived}`,
  );
  if (!sent) report.failures.push('no email was sent: the load made none, or none went out');
  for (const status of Object.keys(counts)) if (status !== 'sent' && status !== 'pending') report.failures.push(`${counts[status]} email(s) ${status}`);
  if (notArrived) report.failures.push(`${notArrived} email(s) marked sent never reached the SMTP sink`);
}
