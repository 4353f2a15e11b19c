import path from 'node:path';

/** Every setting of the service. Read from the environment once, at start-up, by {@link loadConfig}. */
export interface Config {
  port: number;
  host: string;
  dataDir: string;
  database: { dialect: 'sqlite'; file: string } | { dialect: 'postgres'; url: string; poolSize: number; schema?: string };
  publicUrl: string;
  storageDriver: 'local';
  realtimeDriver: 'memory';
  maxUploadBytes: number;
  admin: { email: string; password: string; name: string } | null;
  sessionTtlHours: number;
  logLevel: string;
  login: { maxFailuresPerEmail: number; maxFailuresPerAddress: number; windowMinutes: number };
  /** How long SIGTERM waits for requests in flight (uploads) before closing them. */
  shutdownGraceMs: number;
  /** Fastify's trustProxy: whether X-Forwarded-For names the client (behind a load balancer). */
  trustProxy: boolean | string;
}

export class ConfigError extends Error {}

type Env = Record<string, string | undefined>;

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'];

/** Reads and validates the configuration; throws {@link ConfigError} naming the bad variable. */
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

  const storageDriver = oneOf(env, 'STORAGE_DRIVER', ['local'] as const, 'local');
  const realtimeDriver = oneOf(env, 'REALTIME_DRIVER', ['memory'] as const, 'memory');

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
    storageDriver,
    realtimeDriver,
    maxUploadBytes: integer(env, 'MAX_UPLOAD_BYTES', 100 * 1024 * 1024, 1, Number.MAX_SAFE_INTEGER),
    admin: adminEmail && adminPassword ? { email: adminEmail, password: adminPassword, name: text(env, 'ADMIN_NAME') ?? 'Administrator' } : null,
    sessionTtlHours: integer(env, 'SESSION_TTL_HOURS', 168, 1, 24 * 365),
    logLevel,
    login: {
      maxFailuresPerEmail: integer(env, 'LOGIN_MAX_FAILURES_PER_EMAIL', 5, 1, 1_000_000),
      maxFailuresPerAddress: integer(env, 'LOGIN_MAX_FAILURES_PER_ADDRESS', 20, 1, 1_000_000),
      windowMinutes: integer(env, 'LOGIN_WINDOW_MINUTES', 15, 1, 24 * 60),
    },
    shutdownGraceMs: integer(env, 'SHUTDOWN_GRACE_MS', 30_000, 0, 3_600_000),
    trustProxy: parseTrustProxy(text(env, 'TRUST_PROXY')),
  };
}

function parseDatabase(env: Env, dataDir: string): Config['database'] {
  const url = text(env, 'DATABASE_URL');
  if (!url) return { dialect: 'sqlite', file: path.join(dataDir, 'app.db') };
  if (/^postgres(ql)?:\/\//.test(url)) {
    const schema = text(env, 'DATABASE_SCHEMA');
    if (schema && !/^[A-Za-z_][A-Za-z0-9_]{0,62}$/.test(schema)) throw new ConfigError('DATABASE_SCHEMA must be a plain identifier');
    return { dialect: 'postgres', url, poolSize: integer(env, 'DATABASE_POOL_SIZE', 10, 1, 1000), schema };
  }
  const sqlite = /^(file|sqlite):(\/\/)?(.+)$/.exec(url);
  if (sqlite?.[3]) return { dialect: 'sqlite', file: path.resolve(sqlite[3]) };
  throw new ConfigError('DATABASE_URL must start with postgres://, postgresql://, file: or sqlite:');
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
