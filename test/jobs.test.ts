import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { hashToken } from '../src/actions/auth.js';
import { newId } from '../src/ids.js';
import { eventually, eventuallyPasses } from './helpers/eventually.js';
import { type Client, type TestService, startTestService } from './helpers/service.js';

/**
 * The service's periodic jobs (src/jobs.ts) in a running service: every one runs from start-up and
 * again, and what has run out goes while the service runs, not only when it starts.
 */

const DAY = 24 * 3_600_000;
const iso = (ms: number) => new Date(ms).toISOString();

describe('periodic jobs of a running service', () => {
  let svc: TestService;
  let admin: { user: { id: string }; client: Client };

  before(async () => {
    svc = await startTestService({ env: { PRUNE_INTERVAL_MS: '150', MAIL_POLL_MS: '100', REALTIME_SESSION_SWEEP_MS: '150', DUE_DIGEST_CHECK_MS: '150' } });
    admin = await svc.signIn('ADMIN');
  });
  after(async () => {
    await svc?.close();
  });

  const db = () => svc.deps.database.db;

  test('every job of the list runs at its interval, again and again, and none fails', async () => {
    assert.deepEqual(
      svc.running.jobs.status().map((s) => [s.name, s.everyMs]),
      [
        ['storage reconciliation', 3_600_000],
        ['mail dispatch', 100],
        ['due-date digest', 150],
        ['webhook dispatch', 1000],
        ['realtime session sweep', 150],
        ['session pruning', 150],
        ['reset-link pruning', 150],
        ['login-failure pruning', 150],
        ['upload-lock pruning', 150],
        ['idempotency-key expiry', 150],
        ['outbox pruning', 150],
        ['resumable upload expiry', 150],
        ['due-digest claim pruning', 150],
        ['webhook delivery pruning', 150],
      ],
    );
    await eventuallyPasses(() => {
      for (const s of svc.running.jobs.status()) {
        // The reconciler's next round is an hour away (RECONCILE_GRACE_MS); every other job has run more than once.
        assert.ok(s.rounds >= (s.name === 'storage reconciliation' ? 1 : 2), `${s.name}: ${s.rounds} round(s)`);
      }
    });
    assert.deepEqual(
      svc.running.jobs.status().filter((s) => s.failures > 0),
      [],
    );
    assert.ok(await svc.running.reconciled, 'the first reconciliation reported');
  });

  test('an expired session goes while the service runs; a live one stays and still works', async () => {
    const { client: expiring } = await svc.signIn('POC');
    const expiredHash = hashToken(expiring.cookie!.split('=')[1]!);
    const liveHash = hashToken(admin.client.cookie!.split('=')[1]!);
    await db().updateTable('sessions').set({ expires_at: iso(Date.now() - 1000) }).where('token_hash', '=', expiredHash).execute();
    const sessionRow = (hash: string) => db().selectFrom('sessions').select('token_hash').where('token_hash', '=', hash).executeTakeFirst();

    await eventually('the expired session is pruned', async () => (await sessionRow(expiredHash)) === undefined);
    assert.ok(await sessionRow(liveHash), 'the live session is kept');
    assert.equal((await admin.client.get('/api/auth/session')).status, 200);
    assert.equal((await expiring.get('/api/auth/session')).status, 401);
  });

  test('a sign-in throttling row goes once its window ended and no attempt holds a place in it; any other stays', async () => {
    const email = `pruned-${newId().slice(-8)}@example.com`;
    assert.equal((await svc.anonymous.post('/api/auth/login', { email, password: 'not the password' })).status, 401);
    const counted = `email:${email}`;
    const row = (key: string) => db().selectFrom('login_failures').selectAll().where('key', '=', key).executeTakeFirst();
    assert.equal(Number((await row(counted))?.failures), 1, 'the failed sign-in was counted');

    const now = Date.now();
    const long = iso(now - DAY);
    const rows = {
      ended: { window_started_at: long, pending: 0, pending_at: 0 },
      endedWithStalePlace: { window_started_at: long, pending: 1, pending_at: now - 10 * 60_000 },
      endedWithAttemptUnderWay: { window_started_at: long, pending: 1, pending_at: now },
      current: { window_started_at: iso(now), pending: 0, pending_at: 0 },
    };
    for (const [key, values] of Object.entries(rows)) await db().insertInto('login_failures').values({ key, failures: 3, ...values }).execute();
    // The real sign-in's window ends (LOGIN_WINDOW_MINUTES, 15): as if a day had passed.
    await db().updateTable('login_failures').set({ window_started_at: long }).where('key', '=', counted).execute();

    await eventually('the ended windows are pruned', async () => (await row('ended')) === undefined && (await row(counted)) === undefined);
    assert.equal(await row('endedWithStalePlace'), undefined, 'a place older than five minutes holds nothing');
    assert.ok(await row('endedWithAttemptUnderWay'), 'a row an attempt holds a place in stays');
    assert.ok(await row('current'), 'a row whose window runs stays');

    // Throttling counts from nothing again, as it would have (the old failures were outside the window anyway).
    assert.equal((await svc.anonymous.post('/api/auth/login', { email, password: 'not the password' })).status, 401);
    assert.equal(Number((await row(counted))?.failures), 1);
  });

  test('expired reset links, lapsed upload leases, expired idempotency keys, old sent emails and week-old digest claims go; the live ones stay', async () => {
    const now = Date.now();
    const userId = admin.user.id;
    await db()
      .insertInto('password_resets')
      .values([
        { token_hash: 'expired-link', user_id: userId, created_at: iso(now - DAY), expires_at: iso(now - 1000), used_at: null },
        { token_hash: 'live-link', user_id: userId, created_at: iso(now), expires_at: iso(now + 30 * 60_000), used_at: null },
      ])
      .execute();
    await db()
      .insertInto('upload_locks')
      .values([
        { id: 'lapsed-lease', holder: 'gone', expires_at: now - 1000, release_requested: 0 },
        { id: 'held-lease', holder: 'here', expires_at: now + 60_000, release_requested: 0 },
      ])
      .execute();
    await db()
      .insertInto('idempotency_keys')
      .values([
        { user_id: userId, key: 'yesterday', file_upload_id: null, created_at: iso(now - DAY - 60_000) },
        { user_id: userId, key: 'today', file_upload_id: null, created_at: iso(now) },
      ])
      .execute();
    const email = (id: string, status: string, createdAt: number) => ({
      id,
      recipient_id: userId,
      project_id: null,
      events: '[]',
      status,
      attempts: 1,
      created_at: iso(createdAt),
      due_at: iso(createdAt),
    });
    await db()
      .insertInto('outbox')
      .values([email('sent-long-ago', 'sent', now - 31 * DAY), email('failed-long-ago', 'failed', now - 31 * DAY), email('sent-lately', 'sent', now - DAY)])
      .execute();

    await db()
      .insertInto('due_digests')
      .values([
        { user_id: userId, day: '2026-01-01', claimed_at: iso(now - 8 * DAY), outbox_id: null },
        { user_id: userId, day: '2026-01-08', claimed_at: iso(now - DAY), outbox_id: null },
      ])
      .execute();

    const left = async () => ({
      links: (await db().selectFrom('password_resets').select('token_hash').where('token_hash', 'in', ['expired-link', 'live-link']).execute()).map((r) => r.token_hash),
      leases: (await db().selectFrom('upload_locks').select('id').where('id', 'in', ['lapsed-lease', 'held-lease']).execute()).map((r) => r.id),
      keys: (await db().selectFrom('idempotency_keys').select('key').where('user_id', '=', userId).execute()).map((r) => r.key),
      emails: (await db().selectFrom('outbox').select('id').where('id', 'in', ['sent-long-ago', 'failed-long-ago', 'sent-lately']).orderBy('id').execute()).map((r) => r.id),
      digestClaims: (await db().selectFrom('due_digests').select('day').where('user_id', '=', userId).where('day', 'in', ['2026-01-01', '2026-01-08']).execute()).map((r) => r.day),
    });
    await eventuallyPasses(async () =>
      assert.deepEqual(await left(), { links: ['live-link'], leases: ['held-lease'], keys: ['today'], emails: ['failed-long-ago', 'sent-lately'], digestClaims: ['2026-01-08'] }),
    );
  });
});
