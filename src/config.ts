import os from 'node:os';
import path from 'node:path';
import { type AllowedTypes, parseAllowedTypes } from './domain/content-types.js';
import { isCurrencyCode } from './domain/money.js';

/** Every setting of the service. Read from the environment once, at start-up, by {@link loadConfig}. */
export interface Config {
  port: number;
  host: string;
  dataDir: string;
  database: { dialect: 'sqlite'; file: string } | { dialect: 'postgres'; url: string; poolSize: number; schema?: string; queryTimeoutMs: number };
  publicUrl: string;
  storage: StorageConfig;
  /**
   * DOCUMENT_ACCESS: `public` (the specification: a document's address answers anyone) or `private`
   * (only a session or token whose user may see the project; S3 and Cloudinary through a redirect
   * to a signed address that lasts `linkSeconds`, DOCUMENT_LINK_SECONDS).
   */
  documentAccess: { mode: 'public' | 'private'; linkSeconds: number };
  realtime: RealtimeConfig;
  maxUploadBytes: number;
  /** UPLOAD_ALLOWED_TYPES: types an upload may be (declared and detected); empty allows everything. */
  uploadAllowedTypes: AllowedTypes;
  /** RESUMABLE_UPLOAD_EXPIRY_HOURS: an unfinished resumable upload is removed this long after its creation. */
  resumableExpiryMs: number;
  /**
   * PRUNE_INTERVAL_MS: how often what has run out is removed (jobs.ts): expired sessions and reset
   * links, ended login-throttling windows, lapsed upload leases, expired idempotency keys, old sent
   * emails, and resumable uploads past their expiry.
   */
  pruneIntervalMs: number;
  admin: { email: string; password: string; name: string } | null;
  sessionTtlHours: number;
  /** SESSION_CACHE_MS: how long a session cookie's resolution may serve further requests (http/session-cache.ts); 0: none. */
  sessionCacheMs: number;
  logLevel: string;
  /** LOG_FORMAT: pretty lines for a person at a terminal, JSON lines for a collector; auto (default): pretty when standard output is a terminal. */
  logFormat: 'auto' | 'json' | 'pretty';
  login: { maxFailuresPerEmail: number; maxFailuresPerAddress: number; windowMinutes: number };
  /** How long SIGTERM waits for requests in flight (uploads) before closing them. */
  shutdownGraceMs: number;
  /**
   * WORK_LEASE_MS: how long a claim of webhook deliveries or emails lasts without its holder's
   * heartbeat (renewed every third of it, src/lease-heartbeat.ts): how soon a live instance takes
   * over the work of one that died.
   */
  workLeaseMs: number;
  /** CLOCK_OFFSET_MS (tests only): moves this instance's clock (src/clock.ts), to run instances whose clocks disagree. */
  clockOffsetMs: number;
  /**
   * GET /api/realtime: how far back a reconnecting client (Last-Event-ID) is replayed to (older gets
   * `reset`), and how often the open streams' sessions are checked in one query (the safety net for
   * a session signal lost in an outage).
   */
  realtimeStreams: { replay: { windowHours: number; maxEvents: number }; sweepMs: number };
  /** Fastify's trustProxy: whether X-Forwarded-For names the client (behind a load balancer). */
  trustProxy: boolean | string;
  /** The storage reconciliation run at start-up (storage/reconcile.ts). */
  reconcile: { onStart: 'repair' | 'report' | 'off'; graceMs: number };
  /** How long a client may take to send its request (see README, Timeouts). */
  timeouts: { headersMs: number; bodyMs: number; uploadIdleMs: number; keepAliveMs: number; drainMs: number; drainBytes: number };
  /** METRICS_TOKEN: GET /metrics answers only with `Authorization: Bearer <it>`; unset, there is no /metrics. */
  metricsToken: string | null;
  mail: MailConfig;
  /** TIMEZONE: the shop's IANA time zone; "today" (due dates, overdue) is the date there. */
  timeZone: string;
  /** CURRENCY: the ISO 4217 code a PI and a payment are in when none is sent (INR). */
  currency: string;
  /** Document previews (GET /api/projects/:id/files/:fileId/preview): the disk cache's bound and the rendering's. */
  previews: { cacheBytes: number; concurrency: number; timeoutMs: number; memoryBytes: number; maxWaiting: number };
  /** The shop's PDFs (src/pdf): PDF_MAX_WAITING, the renderer's queue: documents waiting for a thread (each passes through it, so at least 1); more get 503. */
  pdf: { maxWaiting: number };
  /**
   * The morning due-date digest (jobs.ts): from DUE_DIGEST_HOUR (0–23, in TIMEZONE) each day, looked
   * for every DUE_DIGEST_CHECK_MS; null when DUE_DIGEST_HOUR=off (no digest on this instance).
   */
  dueDigest: { hour: number; checkMs: number } | null;
  webhooks: WebhookConfig;
}

/** Webhooks (interface.md, additions of 2026-11-24): the dispatcher's pace and the SSRF rule. */
export interface WebhookConfig {
  /** WEBHOOK_ALLOW_PRIVATE_TARGETS: let endpoints be on loopback, private or link-local addresses (a closed network, tests). */
  allowPrivateTargets: boolean;
  /** How often each instance's dispatcher looks for due deliveries when idle. */
  pollMs: number;
  /** One attempt's bound: the lookup, the connection and the answer. */
  timeoutMs: number;
  /** After a failed attempt: wait baseMs, doubling per attempt up to maxMs (±20 %). */
  retry: { baseMs: number; maxMs: number };
  /** An endpoint failing this long is switched off and the admins emailed. */
  deactivateAfterMs: number;
  /** Deliveries in flight at once per instance (one per endpoint at most). */
  concurrency: number;
}

/** Email (issue 12): the transport, the outbox dispatcher's pace, and password-reset links. */
export interface MailConfig {
  /** SMTP_URL (smtp:// or smtps://); unset: each email is written as an .eml file under DATA_DIR/mail. */
  smtpUrl?: string;
  from: string;
  /** Changes to one project within this many seconds reach a recipient as one email; 0: each at once. */
  batchSeconds: number;
  /** How often each instance's dispatcher looks for due emails. */
  pollMs: number;
  /** After a failed send: wait baseMs, doubling per attempt up to maxMs; give up after maxAttempts. */
  retry: { baseMs: number; maxMs: number; maxAttempts: number };
  /** An email due longer ago than this is a backlog, logged as a warning. */
  backlogWarnSeconds: number;
  /** How long an emailed password-reset link works. */
  resetLinkMinutes: number;
}

/** Where documents are kept (STORAGE_DRIVER and its settings). */
export type StorageConfig =
  | { driver: 'local' }
  | {
      driver: 's3';
      bucket: string;
      region: string;
      /** Custom endpoint of an S3-compatible store (MinIO, R2, …); AWS when unset. */
      endpoint?: string;
      forcePathStyle: boolean;
      /** Base of the secure public address: `<publicUrl>/<key>`. */
      publicUrl: string;
      /** S3_ACCESS_KEY_ID/S3_SECRET_ACCESS_KEY; the SDK's default chain (AWS_ACCESS_KEY_ID, profiles, roles) when unset. */
      credentials?: { accessKeyId: string; secretAccessKey: string };
    }
  | {
      driver: 'cloudinary';
      cloudName: string;
      apiKey: string;
      apiSecret: string;
      /** The SDK's upload_prefix (API base); Cloudinary's own when unset. */
      uploadPrefix?: string;
    };

/** How notifications travel (REALTIME_DRIVER and its settings). */
export type RealtimeConfig =
  | { driver: 'memory' }
  | { driver: 'redis'; url: string; channelPrefix: string }
  | {
      driver: 'pusher';
      appId: string;
      key: string;
      secret: string;
      cluster?: string;
      host?: string;
      port?: number;
      useTLS: boolean;
      /** PUSHER_PUBLIC_CHANNELS: also trigger on the public `projects`/`dashboard` channels (exposes every project id to anyone with the app key). */
      publicChannels: boolean;
    };

export class ConfigError extends Error {}

type Env = Record<string, string | undefined>;

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'];

/** Reads and validates the configuration; throws {@link ConfigError} naming the bad variable. */
/** PDF_MAX_WAITING's default, also the renderer's when built without a configuration (tests). */
export const PDF_MAX_WAITING_DEFAULT = 100;

export function loadConfig(env: Env = process.env): Config {
  const port = integer(env, 'PORT', 3000, 0, 65535);
  const dataDir = path.resolve(text(env, 'DATA_DIR') ?? './data');
  const publicUrl = (text(env, 'PUBLIC_URL') ?? `http://localhost:${port}`).replace(/\/+$/, '');
  try {
    const u = new URL(publicUrl);
    if (u.protocol !== 'http:' && u.protocol !== 'https:') throw new Error();
  } catch {
    throw new ConfigError(`PUBLIC_URL must be an http(s) URL, got "${publicUrl}"`);
  }


  const adminEmail = text(env, 'ADMIN_EMAIL');
  const adminPassword = text(env, 'ADMIN_PASSWORD');
  if (Boolean(adminEmail) !== Boolean(adminPassword)) {
    throw new ConfigError('ADMIN_EMAIL and ADMIN_PASSWORD must be set together');
  }

  const logLevel = text(env, 'LOG_LEVEL') ?? 'info';
  if (!LOG_LEVELS.includes(logLevel)) throw new ConfigError(`LOG_LEVEL must be one of ${LOG_LEVELS.join(', ')}`);

  return {
    port,
    host: text(env, 'HOST') ?? '127.0.0.1',
    dataDir,
    database: parseDatabase(env, dataDir),
    publicUrl,
    storage: parseStorage(env),
    documentAccess: {
      mode: oneOf(env, 'DOCUMENT_ACCESS', ['public', 'private'] as const, 'public'),
      linkSeconds: integer(env, 'DOCUMENT_LINK_SECONDS', 60, 1, 3600),
    },
    realtime: parseRealtime(env),
    maxUploadBytes: integer(env, 'MAX_UPLOAD_BYTES', 100 * 1024 * 1024, 1, Number.MAX_SAFE_INTEGER),
    uploadAllowedTypes: parseAllowedTypes(text(env, 'UPLOAD_ALLOWED_TYPES')),
    resumableExpiryMs: integer(env, 'RESUMABLE_UPLOAD_EXPIRY_HOURS', 24, 1, 24 * 365) * 3_600_000,
    pruneIntervalMs: integer(env, 'PRUNE_INTERVAL_MS', 3_600_000, 100, 24 * 3_600_000),
    admin: adminEmail && adminPassword ? { email: adminEmail, password: adminPassword, name: text(env, 'ADMIN_NAME') ?? 'Administrator' } : null,
    sessionTtlHours: integer(env, 'SESSION_TTL_HOURS', 168, 1, 24 * 365),
    sessionCacheMs: integer(env, 'SESSION_CACHE_MS', 2000, 0, 60_000),
    logLevel,
    logFormat: oneOf(env, 'LOG_FORMAT', ['auto', 'json', 'pretty'] as const, 'auto'),
    login: {
      maxFailuresPerEmail: integer(env, 'LOGIN_MAX_FAILURES_PER_EMAIL', 5, 1, 1_000_000),
      maxFailuresPerAddress: integer(env, 'LOGIN_MAX_FAILURES_PER_ADDRESS', 20, 1, 1_000_000),
      windowMinutes: integer(env, 'LOGIN_WINDOW_MINUTES', 15, 1, 24 * 60),
    },
    shutdownGraceMs: integer(env, 'SHUTDOWN_GRACE_MS', 30_000, 0, 3_600_000),
    workLeaseMs: integer(env, 'WORK_LEASE_MS', 10_000, 300, 600_000),
    clockOffsetMs: integer(env, 'CLOCK_OFFSET_MS', 0, -86_400_000, 86_400_000),
    trustProxy: parseTrustProxy(text(env, 'TRUST_PROXY')),
    realtimeStreams: {
      replay: {
        windowHours: integer(env, 'REALTIME_REPLAY_HOURS', 24, 1, 24 * 365),
        maxEvents: integer(env, 'REALTIME_REPLAY_MAX_EVENTS', 1000, 1, 1_000_000),
      },
      sweepMs: integer(env, 'REALTIME_SESSION_SWEEP_MS', 30_000, 100, 3_600_000),
    },
    reconcile: {
      onStart: oneOf(env, 'RECONCILE_ON_START', ['repair', 'report', 'off'] as const, 'repair'),
      graceMs: integer(env, 'RECONCILE_GRACE_MS', 3_600_000, 0, 7 * 24 * 3_600_000),
    },
    timeouts: {
      headersMs: integer(env, 'HEADERS_TIMEOUT_MS', 10_000, 100, 3_600_000),
      bodyMs: integer(env, 'BODY_TIMEOUT_MS', 30_000, 100, 3_600_000),
      uploadIdleMs: integer(env, 'UPLOAD_IDLE_TIMEOUT_MS', 30_000, 100, 3_600_000),
      keepAliveMs: integer(env, 'KEEP_ALIVE_TIMEOUT_MS', 72_000, 100, 3_600_000),
      // A body answered before it was in (a refused upload) is still read, up to these limits, so the client can read the answer.
      drainMs: integer(env, 'UNREAD_BODY_DRAIN_MS', 10_000, 0, 3_600_000),
      drainBytes: integer(env, 'UNREAD_BODY_DRAIN_BYTES', 64 * 1024 * 1024, 0, Number.MAX_SAFE_INTEGER),
    },
    metricsToken: text(env, 'METRICS_TOKEN') ?? null,
    mail: parseMail(env, publicUrl),
    timeZone: parseTimeZone(text(env, 'TIMEZONE')),
    currency: parseCurrency(text(env, 'CURRENCY')),
    previews: {
      cacheBytes: integer(env, 'PREVIEW_CACHE_MB', 512, 1, 1_000_000) * 1024 * 1024,
      // One core is kept for the event loop, as for password hashing.
      concurrency: integer(env, 'PREVIEW_CONCURRENCY', Math.max(1, os.availableParallelism() - 1), 1, 64),
      timeoutMs: integer(env, 'PREVIEW_TIMEOUT_MS', 10_000, 100, 10_000),
      memoryBytes: integer(env, 'PREVIEW_MEMORY_MB', 512, 128, 16_384) * 1024 * 1024,
      maxWaiting: integer(env, 'PREVIEW_MAX_WAITING', 100, 0, 100_000),
    },
    pdf: { maxWaiting: integer(env, 'PDF_MAX_WAITING', PDF_MAX_WAITING_DEFAULT, 1, 100_000) },
    dueDigest: parseDueDigest(env),
    webhooks: {
      allowPrivateTargets: flag(env, 'WEBHOOK_ALLOW_PRIVATE_TARGETS', false),
      pollMs: integer(env, 'WEBHOOK_POLL_MS', 1000, 20, 3_600_000),
      timeoutMs: integer(env, 'WEBHOOK_TIMEOUT_MS', 10_000, 100, 60_000),
      retry: {
        baseMs: integer(env, 'WEBHOOK_RETRY_BASE_MS', 10_000, 10, 3_600_000),
        maxMs: integer(env, 'WEBHOOK_RETRY_MAX_MS', 3_600_000, 10, 24 * 3_600_000),
      },
      deactivateAfterMs: integer(env, 'WEBHOOK_DEACTIVATE_AFTER_SECONDS', 24 * 3600, 1, 30 * 24 * 3600) * 1000,
      concurrency: integer(env, 'WEBHOOK_CONCURRENCY', 16, 1, 1000),
    },
  };
}

/** DUE_DIGEST_HOUR: a whole hour from 0 to 23 (default 8), or `off`. */
function parseDueDigest(env: Env): Config['dueDigest'] {
  if (text(env, 'DUE_DIGEST_HOUR') === 'off') return null;
  return { hour: integer(env, 'DUE_DIGEST_HOUR', 8, 0, 23), checkMs: integer(env, 'DUE_DIGEST_CHECK_MS', 300_000, 50, 3_600_000) };
}

/** An IANA zone name as Intl knows it (Asia/Kolkata); unset, the system's zone (TZ, else the machine's). */
function parseTimeZone(raw: string | undefined): string {
  if (raw === undefined) return Intl.DateTimeFormat().resolvedOptions().timeZone;
  try {
    new Intl.DateTimeFormat('en', { timeZone: raw });
    return raw;
  } catch {
    throw new ConfigError(`TIMEZONE must be an IANA time zone name such as Asia/Kolkata or America/Los_Angeles, got "${raw}"`);
  }
}

/** An ISO 4217 code Intl knows (domain/money.ts); unset, INR. */
function parseCurrency(raw: string | undefined): string {
  if (raw === undefined) return 'INR';
  if (!isCurrencyCode(raw)) throw new ConfigError(`CURRENCY must be an ISO 4217 currency code in capitals such as INR or USD, got "${raw}"`);
  return raw;
}

function parseMail(env: Env, publicUrl: string): MailConfig {
  const smtpUrl = text(env, 'SMTP_URL');
  if (smtpUrl && !/^smtps?:\/\/[^/]/.test(smtpUrl)) throw new ConfigError('SMTP_URL must look like smtp://user:pass@host:587 or smtps://user:pass@host:465');
  return {
    smtpUrl,
    from: text(env, 'MAIL_FROM') ?? `Print orders <no-reply@${new URL(publicUrl).hostname}>`,
    batchSeconds: integer(env, 'MAIL_BATCH_SECONDS', 60, 0, 24 * 3600),
    pollMs: integer(env, 'MAIL_POLL_MS', 2000, 50, 3_600_000),
    retry: {
      baseMs: integer(env, 'MAIL_RETRY_BASE_MS', 30_000, 10, 3_600_000),
      maxMs: integer(env, 'MAIL_RETRY_MAX_MS', 3_600_000, 10, 24 * 3_600_000),
      maxAttempts: integer(env, 'MAIL_MAX_ATTEMPTS', 30, 1, 1000),
    },
    backlogWarnSeconds: integer(env, 'MAIL_BACKLOG_WARN_SECONDS', 900, 1, 7 * 24 * 3600),
    resetLinkMinutes: integer(env, 'PASSWORD_RESET_MINUTES', 30, 1, 24 * 60),
  };
}

function parseDatabase(env: Env, dataDir: string): Config['database'] {
  const url = text(env, 'DATABASE_URL');
  if (!url) return { dialect: 'sqlite', file: path.join(dataDir, 'app.db') };
  if (/^postgres(ql)?:\/\//.test(url)) {
    const schema = text(env, 'DATABASE_SCHEMA');
    if (schema && !/^[A-Za-z_][A-Za-z0-9_]{0,62}$/.test(schema)) throw new ConfigError('DATABASE_SCHEMA must be a plain identifier');
    return {
      dialect: 'postgres',
      url,
      poolSize: integer(env, 'DATABASE_POOL_SIZE', 10, 1, 1000),
      schema,
      queryTimeoutMs: integer(env, 'DATABASE_QUERY_TIMEOUT_MS', 15_000, 100, 600_000),
    };
  }
  const sqlite = /^(file|sqlite):(\/\/)?(.+)$/.exec(url);
  if (sqlite?.[3]) return { dialect: 'sqlite', file: path.resolve(sqlite[3]) };
  throw new ConfigError('DATABASE_URL must start with postgres://, postgresql://, file: or sqlite:');
}

function parseStorage(env: Env): StorageConfig {
  const driver = oneOf(env, 'STORAGE_DRIVER', ['local', 's3', 'cloudinary'] as const, 'local');
  switch (driver) {
    case 'local':
      return { driver };
    case 's3': {
      const bucket = required(env, 'S3_BUCKET', 'STORAGE_DRIVER=s3');
      const region = text(env, 'S3_REGION') ?? text(env, 'AWS_REGION') ?? 'us-east-1';
      const endpoint = optionalUrl(env, 'S3_ENDPOINT');
      const forcePathStyle = flag(env, 'S3_FORCE_PATH_STYLE', false);
      const fallbackPublicUrl = endpoint
        ? forcePathStyle
          ? `${endpoint}/${bucket}`
          : endpoint.replace('://', `://${bucket}.`)
        : `https://${bucket}.s3.${region}.amazonaws.com`;
      const accessKeyId = text(env, 'S3_ACCESS_KEY_ID');
      const secretAccessKey = text(env, 'S3_SECRET_ACCESS_KEY');
      if (Boolean(accessKeyId) !== Boolean(secretAccessKey)) throw new ConfigError('S3_ACCESS_KEY_ID and S3_SECRET_ACCESS_KEY must be set together');
      return {
        driver,
        bucket,
        region,
        endpoint,
        forcePathStyle,
        publicUrl: optionalUrl(env, 'S3_PUBLIC_URL') ?? fallbackPublicUrl,
        credentials: accessKeyId && secretAccessKey ? { accessKeyId, secretAccessKey } : undefined,
      };
    }
    case 'cloudinary': {
      const uploadPrefix = optionalUrl(env, 'CLOUDINARY_UPLOAD_PREFIX');
      const url = text(env, 'CLOUDINARY_URL');
      if (url) {
        // cloudinary://<api key>:<api secret>@<cloud name>, as the Cloudinary console shows it
        const m = /^cloudinary:\/\/([^:@/]+):([^@/]+)@([^/?#]+)/.exec(url);
        if (!m) throw new ConfigError('CLOUDINARY_URL must look like cloudinary://<api key>:<api secret>@<cloud name>');
        return { driver, apiKey: decodeURIComponent(m[1]!), apiSecret: decodeURIComponent(m[2]!), cloudName: m[3]!, uploadPrefix };
      }
      const needs = 'STORAGE_DRIVER=cloudinary without CLOUDINARY_URL';
      return {
        driver,
        cloudName: required(env, 'CLOUDINARY_CLOUD_NAME', needs),
        apiKey: required(env, 'CLOUDINARY_API_KEY', needs),
        apiSecret: required(env, 'CLOUDINARY_API_SECRET', needs),
        uploadPrefix,
      };
    }
  }
}

function parseRealtime(env: Env): RealtimeConfig {
  const driver = oneOf(env, 'REALTIME_DRIVER', ['memory', 'redis', 'pusher'] as const, 'memory');
  switch (driver) {
    case 'memory':
      return { driver };
    case 'redis': {
      const url = required(env, 'REDIS_URL', 'REALTIME_DRIVER=redis');
      if (!/^rediss?:\/\//.test(url)) throw new ConfigError('REDIS_URL must start with redis:// or rediss://');
      return { driver, url, channelPrefix: text(env, 'REDIS_CHANNEL_PREFIX') ?? 'print-orders' };
    }
    case 'pusher': {
      const needs = 'REALTIME_DRIVER=pusher';
      const host = text(env, 'PUSHER_HOST');
      const cluster = text(env, 'PUSHER_CLUSTER');
      if (!host && !cluster) throw new ConfigError('REALTIME_DRIVER=pusher needs PUSHER_CLUSTER or PUSHER_HOST');
      const port = text(env, 'PUSHER_PORT') === undefined ? undefined : integer(env, 'PUSHER_PORT', 443, 1, 65535);
      return {
        driver,
        appId: required(env, 'PUSHER_APP_ID', needs),
        key: required(env, 'PUSHER_KEY', needs),
        secret: required(env, 'PUSHER_SECRET', needs),
        cluster,
        host,
        port,
        useTLS: flag(env, 'PUSHER_USE_TLS', true),
        publicChannels: flag(env, 'PUSHER_PUBLIC_CHANNELS', false),
      };
    }
  }
}

function parseTrustProxy(raw: string | undefined): boolean | string {
  if (raw === undefined || raw === 'false') return false;
  if (raw === 'true') return true;
  return raw; // addresses or CIDR ranges, comma-separated
}

function text(env: Env, name: string): string | undefined {
  const value = env[name]?.trim();
  return value ? value : undefined;
}

function required(env: Env, name: string, because: string): string {
  const value = text(env, name);
  if (value === undefined) throw new ConfigError(`${because} needs ${name}`);
  return value;
}

function flag(env: Env, name: string, fallback: boolean): boolean {
  const raw = text(env, name);
  if (raw === undefined) return fallback;
  if (raw === 'true' || raw === '1') return true;
  if (raw === 'false' || raw === '0') return false;
  throw new ConfigError(`${name} must be true or false, got "${raw}"`);
}

function optionalUrl(env: Env, name: string): string | undefined {
  const raw = text(env, name);
  if (raw === undefined) return undefined;
  try {
    const u = new URL(raw);
    if (u.protocol !== 'http:' && u.protocol !== 'https:') throw new Error();
  } catch {
    throw new ConfigError(`${name} must be an http(s) URL, got "${raw}"`);
  }
  return raw.replace(/\/+$/, '');
}

function integer(env: Env, name: string, fallback: number, min: number, max: number): number {
  const raw = text(env, name);
  if (raw === undefined) return fallback;
  const value = Number(raw);
  if (!Number.isSafeInteger(value) || value < min || value > max) {
    throw new ConfigError(`${name} must be a whole number from ${min} to ${max}, got "${raw}"`);
  }
  return value;
}

function oneOf<T extends string>(env: Env, name: string, allowed: readonly T[], fallback: T): T {
  const raw = text(env, name) ?? fallback;
  if (!(allowed as readonly string[]).includes(raw)) {
    throw new ConfigError(`${name} must be one of ${allowed.join(', ')}, got "${raw}"`);
  }
  return raw as T;
}

/** Where the data lives, for a person to read (the CLI's and the start-up line): a SQLite file, or PostgreSQL's host, database and schema (never its password). */
export function describeDatabase(database: Config['database']): string {
  if (database.dialect === 'sqlite') return `SQLite ${database.file}`;
  try {
    const url = new URL(database.url);
    const name = decodeURIComponent(url.pathname.replace(/^\//, '')) || '(default database)';
    return `PostgreSQL ${url.username ? `${decodeURIComponent(url.username)}@` : ''}${url.host}/${name}${database.schema ? `, schema ${database.schema}` : ''}`;
  } catch {
    return 'PostgreSQL (DATABASE_URL)';
  }
}
