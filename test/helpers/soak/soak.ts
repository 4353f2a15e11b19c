/**
 * The chaos soak (issue 39, item 1), shared by `npm run soak` (bench/soak.ts) and
 * test/chaos-soak.test.ts: two built instances on one fresh PostgreSQL schema, Redis (realtime) and
 * S3 (s3rver), a webhook receiver per endpoint and an SMTP sink; a steady load (load.ts) and
 * realtime clients (sse.ts) while one instance is killed with SIGKILL and restarted every
 * `killEveryMs` (cluster.ts); then a drain, the reconciler, and the checks (checks.ts).
 */
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { promisify } from 'node:util';
import { startS3Front, startS3Server } from '../s3-server.js';
import { testConfig } from '../service.js';
import { startSmtpServer } from '../smtp.js';
import { startReceiver } from '../webhook-receiver.js';
import { checkMail, checkOrphans, checkSse, checkUploads, checkWebhooks, type Endpoint, eventIds, outboxPending, type Report, SoakDb, sseCaughtUp, visibleSeqs, webhookEvents, webhooksDelivered } from './checks.js';
import { Cluster, runChaos, sleep } from './cluster.js';
import { Load, call, signIn } from './load.js';
import { SseClient } from './sse.js';

const root = path.resolve(import.meta.dirname, '../../..');

export interface SoakOptions {
  seconds: number;
  killEveryMs: number;
  postgresUrl: string;
  redisUrl: string;
  /** The longest the drain waits for deliveries, emails and streams to catch up (default 300 s). */
  drainMs?: number;
  /** The instances' LOG_LEVEL (default error). */
  logLevel?: string;
  log?: (line: string) => void;
}

export interface SoakResult extends Report {
  kills: number;
}

const ADMIN = { email: 'soak-admin@example.com', password: `soak-${randomBytes(9).toString('base64url')}` };
const PROJECTS = 12;

export async function runSoak(options: SoakOptions): Promise<SoakResult> {
  const log = options.log ?? ((line: string) => console.error(`[soak] ${line}`));
  const report: Report = { lines: [], failures: [] };
  const cleanups: (() => Promise<unknown>)[] = [];
  try {
    const s3 = await startS3Server('soak-documents');
    cleanups.push(() => s3.close());
    // Through the front, which answers what s3rver does not (ListMultipartUploads: the reconciler's incomplete writes, the resumable expiry).
    const front = await startS3Front(s3);
    cleanups.push(() => front.close());
    const forget = setInterval(() => (front.requests.length = 0), 5000); // it records every request; the soak reads none
    cleanups.push(async () => clearInterval(forget));
    const smtp = await startSmtpServer();
    cleanups.push(() => smtp.stop());
    const receivers = [await startReceiver(), await startReceiver()];
    cleanups.push(() => Promise.all(receivers.map((r) => r.close())));

    const shared = {
      LOG_LEVEL: options.logLevel ?? 'error',
      ADMIN_EMAIL: ADMIN.email,
      ADMIN_PASSWORD: ADMIN.password,
      REALTIME_DRIVER: 'redis',
      REDIS_URL: options.redisUrl,
      REDIS_CHANNEL_PREFIX: `soak-${randomBytes(6).toString('hex')}`,
      // Replays after a kill reach back past the default 1,000 events on a long run: a reset would hide a gap.
      REALTIME_REPLAY_MAX_EVENTS: '100000',
      WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true',
      WEBHOOK_POLL_MS: '100',
      WEBHOOK_RETRY_BASE_MS: '200',
      WEBHOOK_RETRY_MAX_MS: '2000',
      SMTP_URL: smtp.url,
      MAIL_BATCH_SECONDS: '1',
      MAIL_POLL_MS: '200',
      MAIL_RETRY_BASE_MS: '200',
      MAIL_RETRY_MAX_MS: '2000',
      // Each restart reconciles what a kill left older than this (an upload in flight is younger).
      RECONCILE_GRACE_MS: '60000',
      // The AWS SDK's notice about Node 22, printed by every start otherwise (a dozen starts a run).
      AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
      ...s3.env(front.endpoint),
    };
    const a = await testConfig({ postgresUrl: options.postgresUrl, env: shared });
    cleanups.push(a.cleanup);
    const b = await testConfig({ sharedDatabase: a.config.database, env: shared });
    cleanups.push(b.cleanup);
    const schema = a.env.DATABASE_SCHEMA!;
    const db = new SoakDb(options.postgresUrl, schema);
    cleanups.push(() => db.close());

    const cluster = new Cluster([a.env, b.env]);
    cleanups.push(() => cluster.stop());
    log(`two instances of dist/src/main.js on schema ${schema}, s3rver ${s3.endpoint}, Redis ${options.redisUrl}, SMTP sink :${smtp.port}`);
    await cluster.start();
    const [first] = cluster.instances;

    // People, endpoints (before any change, so every event goes to both) and projects.
    const { cookie: admin, userId: adminId } = await signIn(first!, ADMIN.email, ADMIN.password);
    const pocs: { id: string; cookie: string }[] = [];
    for (let i = 0; i < 2; i++) {
      const email = `soak-poc-${i}@example.com`;
      const password = `poc-${randomBytes(9).toString('base64url')}`;
      const made = await setupCall(first!, 'POST', '/api/team', admin, { name: `Soak POC ${i}`, email, password, role: 'POC' }, 201);
      pocs.push({ id: made.id as string, cookie: (await signIn(first!, email, password)).cookie });
    }
    const endpoints: Endpoint[] = [];
    for (const [i, receiver] of receivers.entries()) {
      const hook = await setupCall(first!, 'POST', '/api/webhooks', admin, { url: receiver.url, events: ['*'], description: `soak endpoint ${i + 1}` }, 201);
      endpoints.push({ id: hook.id as string, receiver });
    }
    const projects: string[] = [];
    for (let i = 0; i < PROJECTS; i++) {
      const project = await setupCall(first!, 'POST', '/api/projects', admin, { name: `Soak order ${i + 1}`, pocId: pocs[i % pocs.length]!.id }, 201);
      await setupCall(first!, 'POST', `/api/projects/${project.id as string}/approve`, admin, {}, 200);
      projects.push(project.id as string);
    }

    const running = new AbortController();
    // The streams run on through the drain, until they have read to the end of the log.
    const streams = new AbortController();
    const clients = [
      { client: new SseClient('admin-1', adminId, admin, cluster), admin: true },
      { client: new SseClient('admin-2', adminId, admin, cluster), admin: true },
      ...pocs.map((p, i) => ({ client: new SseClient(`poc-${i + 1}`, p.id, p.cookie, cluster), admin: false })),
    ];
    for (const c of clients) c.client.start(streams.signal);
    const load = new Load(cluster, { admin, pocs: pocs.map((p) => p.cookie), projects });
    log(`load and chaos for ${options.seconds} s, a SIGKILL every ${options.killEveryMs / 1000} s`);
    const loadDone = load.run(running.signal);
    let chaosFailed: unknown;
    // Held until the load ends (an instance that never came back is the soak's failure, reported then).
    const chaosDone = runChaos(cluster, options.killEveryMs, running.signal, log).catch((err: unknown) => {
      chaosFailed = err;
      running.abort();
    });
    await sleep(options.seconds * 1000, running.signal);
    running.abort();
    await chaosDone;
    if (chaosFailed) throw chaosFailed;
    await loadDone;
    await cluster.ensureUp();

    // The drain: each endpoint's deliveries, the outbox and every stream catch up (bounded).
    log('load stopped; draining webhooks, emails and streams');
    for (const c of clients) c.client.settle();
    const ids = await eventIds(db);
    const drainStarted = Date.now();
    let drained = '';
    for (let round = 0; ; round++) {
      const events = await webhookEvents(db);
      const pending = await outboxPending(db);
      const behind = [];
      for (const c of clients) if (!sseCaughtUp(ids, c.client, await visibleSeqs(db, c.client.userId, c.admin))) behind.push(c.client.name);
      const undelivered = endpoints.map((e) => events.length - new Set(e.receiver.received.map((r) => String(r.headers['webhook-id']))).size);
      const elapsed = Math.round((Date.now() - drainStarted) / 1000);
      const state = `webhook events not yet delivered per endpoint: ${undelivered.join(', ')}; emails pending: ${pending}; streams behind: ${behind.join(', ') || 'none'}`;
      if (webhooksDelivered(events, endpoints) && pending === 0 && !behind.length) {
        drained = `drained in ${elapsed} s after the load stopped (webhooks, emails, streams)`;
        break;
      }
      if (Date.now() - drainStarted > (options.drainMs ?? 300_000)) {
        drained = `drain given up after ${elapsed} s: ${state}`;
        break;
      }
      if (round % 15 === 0) log(`drain, ${elapsed} s: ${state}`);
      await sleep(1000);
    }
    streams.abort();
    await Promise.all(clients.map((c) => c.client.stop()));
    await cluster.stop();

    // The reconciler, as an operator runs it, once nothing is in flight.
    const fsck = await runFsck(a.env);
    log(`reconciler: ${fsck.summary}`);

    report.lines.push(`ran ${options.seconds} s with ${cluster.kills.length} SIGKILLs (${cluster.kills.map((k) => `${k.instance}@${k.atSecond}s`).join(' ') || 'none'})`);
    report.lines.push(drained);
    for (const [op, s] of Object.entries(load.ops)) {
      const other = Object.entries(s.other)
        .map(([status, n]) => `${n}×${status}`)
        .join(' ');
      report.lines.push(`${op}: ${s.sent} sent, ${s.ok} answered as expected, ${s.unanswered} cut off by a kill${other ? `, other answers ${other}` : ''}`);
    }
    await checkUploads(db, s3, load.uploads, report);
    await checkOrphans(db, s3, fsck.report, report);
    await checkWebhooks(db, endpoints, cluster.kills.length, report, cluster.startedAt);
    await checkSse(db, clients, report);
    await checkMail(db, smtp, report);
    if (!load.uploads.length) report.failures.push('no upload was answered 201: the soak loaded nothing');
    return { ...report, kills: cluster.kills.length };
  } finally {
    for (const cleanup of cleanups.reverse()) await cleanup().catch((err: unknown) => log(`cleanup: ${String(err)}`));
  }
}

/** A setup request that must succeed; its JSON answer. */
async function setupCall(instance: Parameters<typeof call>[0], method: string, p: string, cookie: string, json: unknown, expected: number): Promise<Record<string, unknown>> {
  const res = await call(instance, method, p, cookie, { json });
  if (res?.status !== expected) throw new Error(`${method} ${p}: ${res ? `${res.status} ${res.text.slice(0, 300)}` : 'no answer'}`);
  return JSON.parse(res.text) as Record<string, unknown>;
}

/** `fsck --repair` of the built command line on the instances' database and bucket, with no grace: nothing is in flight. */
async function runFsck(env: Record<string, string>): Promise<{ summary: string; report: Record<string, unknown[]> }> {
  const childEnv: Record<string, string | undefined> = { ...process.env, ...env, RECONCILE_GRACE_MS: '0', LOG_LEVEL: 'silent' };
  delete childEnv.NODE_OPTIONS;
  const { stdout } = await promisify(execFile)(process.execPath, ['dist/src/cli.js', 'fsck', '--repair'], { cwd: root, env: childEnv, timeout: 120_000 }).catch(
    // Exit code 1: something remains (a record without its object); the report says what.
    (err: { stdout?: string; code?: number }) => {
      if (err.code === 1 && err.stdout) return { stdout: err.stdout };
      throw err;
    },
  );
  const json = stdout.slice(stdout.indexOf('{'), stdout.lastIndexOf('}') + 1);
  return { summary: stdout.split('\n').find((l) => l.startsWith('storage')) ?? stdout.trim().split('\n')[0] ?? '', report: json ? JSON.parse(json) : {} };
}
