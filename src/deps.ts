import type { Config } from './config.js';
import type { Database } from './db/index.js';
import type { Store } from './db/store.js';
import type { Log } from './logger.js';
import type { Metrics } from './metrics.js';
import type { MailDispatcher } from './mail/dispatcher.js';
import type { RealtimeBroker } from './realtime/index.js';
import type { FileStorage } from './storage/index.js';

/** Everything an action needs from the outside world; built once by startService (service.ts), for main.ts and the tests. */
export interface Deps {
  config: Config;
  /**
   * Where every part logs: the service's logger; within a request, the route may hand an action
   * the request's logger instead (http/routes/context.ts, withRequestLog), so its lines carry the request id.
   */
  log: Log;
  database: Database;
  store: Store;
  storage: FileStorage;
  realtime: RealtimeBroker;
  /** Present when METRICS_TOKEN is set (GET /metrics). */
  metrics?: Metrics;
  /** The outbox's dispatcher and, as `mail.transport`, the email transport. */
  mail: MailDispatcher;
}

/** Now, as the ISO 8601 UTC string every table stores. */
export const nowIso = (): string => new Date().toISOString();
