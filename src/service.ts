import fs from 'node:fs';
import path from 'node:path';
import { ensureAdmin } from './actions/ensure-admin.js';
import { FirstRun } from './actions/first-run.js';
import { buildApp } from './app.js';
import { setClockOffset } from './clock.js';
import type { Config } from './config.js';
import { migrate, openDatabase } from './db/index.js';
import { createStore } from './db/store.js';
import { type Deps, systemClock } from './deps.js';
import type { App } from './http/routes/context.js';
import { JobRunner, serviceJobs } from './jobs.js';
import { type Log, createLogger, logFormatFor } from './logger.js';
import { MailDispatcher } from './mail/dispatcher.js';
import { createMailTransport } from './mail/index.js';
import { createRealtime } from './realtime/index.js';
import { StreamHub } from './realtime/streams.js';
import { PdfRenderer } from './pdf/index.js';
import { Previews } from './previews/index.js';
import { createStorage } from './storage/index.js';
import type { ReconcileReport } from './storage/reconcile.js';
import { WebhookDispatcher } from './webhooks/dispatcher.js';

/** Opens the database (migrated), storage and realtime; makes sure the start-up admin exists. Every part logs through `log`. */
export async function openDeps(config: Config, log: Log): Promise<Deps> {
  setClockOffset(config.clockOffsetMs);
  // Upload spool files of a process that ended mid-upload (killed, crashed): nothing reads them again.
  emptyDirectory(path.join(config.dataDir, 'tmp'));
  const database = await openDatabase(config.database, log);
  let realtime: Deps['realtime'] | undefined;
  try {
    await migrate(database);
    const store = createStore(database);
    const storage = await createStorage(config);
    await storage.check();
    realtime = await createRealtime(config, log);
    // Not checked at start-up: SMTP being away delays emails (they wait in the outbox), nothing else.
    const mail = new MailDispatcher(store, config, await createMailTransport(config), log.child({ component: 'mail' }));
    // prom-client is loaded only when /metrics is on (as the drivers are: less to load and to keep in memory).
    const metrics = config.metricsToken ? new (await import('./metrics.js')).Metrics(database) : undefined;
    metrics?.watchMailBacklog(() => mail.backlog());
    const previews = new Previews(config, log);
    metrics?.watchWebhooks(() => store.webhookDeliveries.stats());
    metrics?.watchGroupCommit(store.groupCommits);
    const webhooks = new WebhookDispatcher(store, config, log.child({ component: 'webhooks' }));
    const deps: Deps = { config, log, database, store, storage, realtime, mail, webhooks, metrics, clock: systemClock, previews, pdf: new PdfRenderer({ maxWaiting: config.pdf.maxWaiting }) };
    if (config.admin) await ensureAdmin(deps, config.admin);
    return deps;
  } catch (err) {
    await closeDeps({ database, realtime });
    throw err;
  }
}

/** DATA_DIR/tmp belongs to this instance alone: its files are spooled uploads in flight, and at start-up there are none. */
function emptyDirectory(dir: string): void {
  fs.rmSync(dir, { recursive: true, force: true });
  fs.mkdirSync(dir, { recursive: true });
}

/** Releases what openDeps opened; a failed start-up must not leave connections keeping the process alive. */
async function closeDeps(deps: { database: Deps['database']; realtime?: Deps['realtime']; mail?: Deps['mail']; previews?: Deps['previews']; pdf?: Deps['pdf'] }): Promise<void> {
  deps.previews?.close();
  deps.pdf?.close();
  await deps.mail?.transport.close().catch(() => {});
  await deps.realtime?.close().catch(() => {});
  await deps.database.destroy();
}

export interface RunningService {
  app: App;
  deps: Deps;
  /** The service's logger (deps.log): what main.ts writes with. */
  log: Log;
  /** This process's realtime streams (GET /api/realtime). */
  streams: StreamHub;
  /** The periodic jobs (jobs.ts), running from start-up to close. */
  jobs: JobRunner;
  url: string;
  /** The start-up reconciliation's report (RECONCILE_ON_START); null when off, failed or stopped. */
  reconciled: Promise<ReconcileReport | null>;
  /** Stops accepting connections, lets requests in flight finish (bounded by shutdownGraceMs), stops the jobs, then closes the database. */
  close(): Promise<void>;
}

/**
 * Builds and starts the whole service; main.ts and the tests both start it this way. The logger
 * comes first (`log`, or one at LOG_LEVEL on stdout), so every part has it from the start; the
 * periodic jobs start once the service listens.
 */
export async function startService(config: Config, options: { log?: Log; webRoot?: string | null } = {}): Promise<RunningService> {
  const log = options.log ?? createLogger(config.logLevel, undefined, logFormatFor(config.logFormat, process.stdout.isTTY));
  const deps = await openDeps(config, log);
  let app: App | undefined;
  let streams: StreamHub | undefined;
  let address: string;
  let setupLink: string | null = null;
  try {
    const { replay } = config.realtimeStreams;
    streams = new StreamHub(deps.store, deps.realtime, { replay, log });
    await streams.start();
    // A new install without an admin: the one-time setup link, logged once it can be opened (interface.md, "First run").
    const { firstRun, link } = await FirstRun.atStart(deps);
    setupLink = link;
    app = await buildApp(deps, { streams, webRoot: options.webRoot, firstRun });
    // Streams never end on their own; close them so shutdown can finish.
    const hub = streams;
    app.addHook('preClose', async () => hub.close());
    // The socket address is not where browsers go: writes from any origin but PUBLIC_URL are refused.
    address = await app.listen({ port: config.port, host: config.host, listenTextResolver: (socket) => `Listening on ${socket}; open ${config.publicUrl}` });
  } catch (err) {
    streams?.close();
    await app?.close().catch(() => {});
    await closeDeps(deps);
    throw err;
  }
  if (setupLink) log.warn(`Open ${setupLink} to create the first admin`);
  let reconciledWith: (report: ReconcileReport | null) => void = () => {};
  const reconciled = new Promise<ReconcileReport | null>((resolve) => (reconciledWith = resolve));
  if (config.reconcile.onStart === 'off') reconciledWith(null);
  const jobs = new JobRunner(serviceJobs(deps, { streams, onReconciled: reconciledWith }), log);
  jobs.start();
  let closing: Promise<void> | undefined;
  return {
    app,
    deps,
    log,
    streams,
    jobs,
    url: address,
    reconciled,
    close: () =>
      (closing ??= (async () => {
        const force = setTimeout(() => app.server.closeAllConnections(), deps.config.shutdownGraceMs);
        try {
          await app.close();
        } finally {
          clearTimeout(force);
          await jobs.stop();
          reconciledWith(null);
          await closeDeps(deps);
        }
      })()),
  };
}
