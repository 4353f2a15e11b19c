import fs from 'node:fs';
import path from 'node:path';
import { ensureAdmin } from './actions/ensure-admin.js';
import { buildApp } from './app.js';
import type { Config } from './config.js';
import { migrate, openDatabase } from './db/index.js';
import { createStore } from './db/store.js';
import { type Deps, systemClock } from './deps.js';
import type { App } from './http/routes/context.js';
import { MailDispatcher } from './mail/dispatcher.js';
import { createMailTransport } from './mail/index.js';
import { createRealtime } from './realtime/index.js';
import { createStorage } from './storage/index.js';
import { type ReconcileReport, isClean, reconcile, summarize } from './storage/reconcile.js';

/** Opens the database (migrated), storage and realtime; makes sure the start-up admin exists. */
export async function openDeps(config: Config): Promise<Deps> {
  // Upload spool files of a process that ended mid-upload (killed, crashed): nothing reads them again.
  emptyDirectory(path.join(config.dataDir, 'tmp'));
  const database = await openDatabase(config.database);
  let realtime: Deps['realtime'] | undefined;
  try {
    await migrate(database);
    const store = createStore(database);
    const storage = await createStorage(config);
    await storage.check();
    realtime = await createRealtime(config);
    // Not checked at start-up: SMTP being away delays emails (they wait in the outbox), nothing else.
    const mail = new MailDispatcher(store, config, await createMailTransport(config));
    // prom-client is loaded only when /metrics is on (as the drivers are: less to load and to keep in memory).
    const metrics = config.metricsToken ? new (await import('./metrics.js')).Metrics(database) : undefined;
    metrics?.watchMailBacklog(() => mail.backlog());
    const deps: Deps = { config, database, store, storage, realtime, mail, metrics, clock: systemClock };
    if (config.admin) await ensureAdmin(deps, config.admin);
    const now = new Date();
    await store.sessions.deleteExpired(now.toISOString());
    await store.passwordResets.deleteExpired(now.toISOString());
    await store.outbox.deleteFinished(new Date(now.getTime() - 30 * 24 * 3_600_000).toISOString());
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
async function closeDeps(deps: { database: Deps['database']; realtime?: Deps['realtime']; mail?: Deps['mail'] }): Promise<void> {
  await deps.mail?.stop().catch(() => {});
  await deps.mail?.transport.close().catch(() => {});
  await deps.realtime?.close().catch(() => {});
  await deps.database.destroy();
}

export interface RunningService {
  app: App;
  deps: Deps;
  url: string;
  /** The start-up reconciliation's report (RECONCILE_ON_START); null when off, failed or stopped. */
  reconciled: Promise<ReconcileReport | null>;
  /** Stops accepting connections, lets requests in flight finish (bounded by shutdownGraceMs), then closes the database. */
  close(): Promise<void>;
}

/** Builds and starts the whole service; main.ts and the tests both start it this way. */
export async function startService(config: Config, options: Parameters<typeof buildApp>[1] = {}): Promise<RunningService> {
  const deps = await openDeps(config);
  let app: App | undefined;
  let address: string;
  try {
    app = await buildApp(deps, options);
    deps.realtime.useLogger?.(app.log);
    deps.database.useLogger?.(app.log);
    deps.mail.start(app.log.child({ component: 'mail' }));
    // The socket address is not where browsers go: writes from any origin but PUBLIC_URL are refused.
    address = await app.listen({ port: config.port, host: config.host, listenTextResolver: (socket) => `Listening on ${socket}; open ${config.publicUrl}` });
  } catch (err) {
    await app?.close().catch(() => {});
    await closeDeps(deps);
    throw err;
  }
  const reconciling = startupReconcile(deps, app.log);
  let closing: Promise<void> | undefined;
  return {
    app,
    deps,
    url: address,
    reconciled: reconciling.done,
    close: () =>
      (closing ??= (async () => {
        const force = setTimeout(() => app.server.closeAllConnections(), deps.config.shutdownGraceMs);
        try {
          await app.close();
        } finally {
          clearTimeout(force);
          await reconciling.stop();
          await closeDeps(deps);
        }
      })()),
  };
}

/**
 * Reconciles storage and records in the background after start-up (RECONCILE_ON_START), so a
 * crash's leftovers go without delaying readiness, and again every RECONCILE_GRACE_MS (at least a
 * minute): what was too young to judge at start-up (a crash just before it) is judged on the next
 * round. stop() ends it between steps.
 */
function startupReconcile(deps: Deps, log: App['log']): { done: Promise<ReconcileReport | null>; stop(): Promise<void> } {
  const { onStart, graceMs } = deps.config.reconcile;
  if (onStart === 'off') return { done: Promise.resolve(null), stop: async () => {} };
  const controller = new AbortController();
  const run = (quietWhenClean: boolean) =>
    reconcile(deps, { repair: onStart === 'repair', graceMs, signal: controller.signal }).then(
      (report) => {
        if (!isClean(report)) log.warn({ reconcile: report }, summarize(report));
        else if (!quietWhenClean) log.info({ reconcile: report }, summarize(report));
        return report;
      },
      (err: unknown) => {
        if (!controller.signal.aborted) log.error({ err }, 'storage reconciliation failed');
        return null;
      },
    );
  const done = run(false);
  let round: Promise<unknown> = done;
  const timer = setInterval(() => {
    round = round.then(() => (controller.signal.aborted ? null : run(true)));
  }, Math.max(60_000, graceMs));
  timer.unref();
  return {
    done,
    stop: async () => {
      clearInterval(timer);
      controller.abort();
      await round;
    },
  };
}
