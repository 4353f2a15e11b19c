import fs from 'node:fs';
import path from 'node:path';
import { ensureAdmin } from './actions/ensure-admin.js';
import { buildApp } from './app.js';
import type { Config } from './config.js';
import { migrate, openDatabase } from './db/index.js';
import { createStore } from './db/store.js';
import type { Deps } from './deps.js';
import type { App } from './http/routes/context.js';
import { createRealtime } from './realtime/index.js';
import { createStorage } from './storage/index.js';

/** Opens the database (migrated), storage and realtime; makes sure the start-up admin exists. */
export async function openDeps(config: Config): Promise<Deps> {
  fs.mkdirSync(path.join(config.dataDir, 'tmp'), { recursive: true });
  const database = await openDatabase(config.database);
  try {
    await migrate(database);
    const store = createStore(database);
    const storage = await createStorage(config);
    await storage.check();
    const deps: Deps = { config, database, store, storage, realtime: await createRealtime(config) };
    if (config.admin) await ensureAdmin(deps, config.admin);
    await store.sessions.deleteExpired(new Date().toISOString());
    return deps;
  } catch (err) {
    await database.destroy();
    throw err;
  }
}

export interface RunningService {
  app: App;
  deps: Deps;
  url: string;
  /** Stops accepting connections, lets requests in flight finish (bounded by shutdownGraceMs), then closes the database. */
  close(): Promise<void>;
}

/** Builds and starts the whole service; main.ts and the tests both start it this way. */
export async function startService(config: Config, options: Parameters<typeof buildApp>[1] = {}): Promise<RunningService> {
  const deps = await openDeps(config);
  const app = await buildApp(deps, options);
  const address = await app.listen({ port: config.port, host: config.host });
  let closing: Promise<void> | undefined;
  return {
    app,
    deps,
    url: address,
    close: () =>
      (closing ??= (async () => {
        const force = setTimeout(() => app.server.closeAllConnections(), deps.config.shutdownGraceMs);
        try {
          await app.close();
        } finally {
          clearTimeout(force);
          await deps.realtime.close();
          await deps.database.destroy();
        }
      })()),
  };
}
