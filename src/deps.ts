import type { Config } from './config.js';
import { todayIn } from './domain/due.js';
import type { Database } from './db/index.js';
import type { Store } from './db/store.js';
import type { Log } from './logger.js';
import type { Metrics } from './metrics.js';
import type { MailDispatcher } from './mail/dispatcher.js';
import type { RealtimeBroker } from './realtime/index.js';
import type { PdfRenderer } from './pdf/index.js';
import type { Previews } from './previews/index.js';
import type { FileStorage } from './storage/index.js';
import type { WebhookDispatcher } from './webhooks/dispatcher.js';
import { nowDate } from './clock.js';

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
  /** The webhook outbox's dispatcher. */
  webhooks: WebhookDispatcher;
  /** What time it is for the rules that depend on the date (due dates, overdue); tests set their own. */
  clock: Clock;
  /** Document previews: the disk cache and the rendering processes (started on the first preview asked for). */
  previews: Previews;
  /** The service's own PDFs (job ticket, PI, tax invoice): drawn in worker threads (src/pdf), started on first use. */
  pdf: PdfRenderer;
}

/** The current instant. Only the date-dependent rules read it (through todayOf); stored timestamps use nowIso. */
export interface Clock {
  now(): Date;
}

export const systemClock: Clock = { now: () => nowDate() };

/** Now, as the ISO 8601 UTC string every table stores. */
export const nowIso = (): string => nowDate().toISOString();

/** Today's date (YYYY-MM-DD) in the shop's time zone, by the service's clock: what due dates are compared with. */
export const todayOf = (deps: Pick<Deps, 'config' | 'clock'>): string => todayIn(deps.config.timeZone, deps.clock.now());
