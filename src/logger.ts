import type { FastifyBaseLogger } from 'fastify';
import { pino } from 'pino';
import { serializeRequest } from './log-redaction.js';
import { createRequire } from 'node:module';
import type { PrettyStream } from 'pino-pretty';

/**
 * What every part of the service logs through: the service's pino logger (`deps.log`), a child of
 * it naming a component, or a request's logger (Fastify's `req.log`, whose lines carry the request
 * id). The shape Fastify asks of a logger: pino's methods and `child`.
 */
export type Log = FastifyBaseLogger;

/** pino options: passwords, cookies and tokens never written, nor the secret parts of request addresses. */
const loggerOptions = (level: string): pino.LoggerOptions => ({
  level,
  redact: {
    paths: ['req.headers.cookie', 'req.headers.authorization', 'res.headers["set-cookie"]', '*.password', '*.passwordHash', '*.token'],
    censor: '[redacted]',
  },
  // Request addresses may carry credentials (reset links, proof links, token= queries).
  serializers: { req: serializeRequest },
});

/**
 * The service's logger, made once by startService before anything else, so every part gets it
 * from the start (`deps.log`); Fastify logs through it too (its request lines and `req.log` are
 * children of it). JSON lines on stdout, or on `destination` (tests keep them).
 */
export function createLogger(level: string, destination?: pino.DestinationStream, format: 'json' | 'pretty' = 'json'): pino.Logger {
  if (destination) return pino(loggerOptions(level), destination);
  // Formatted in this thread, synchronously, as pino writes JSON: nothing is lost at exit and no worker thread is started.
  // Loaded only when wanted: a service writing JSON (production, tests) does not pay for it at start-up.
  if (format === 'pretty') return pino(loggerOptions(level), (createRequire(import.meta.url)('pino-pretty') as PrettyFactory)({ colorize: true, sync: true, translateTime: 'SYS:HH:MM:ss.l', ignore: 'pid,hostname' }));
  return pino(loggerOptions(level));
}

/**
 * How the log is written: LOG_FORMAT when it says json or pretty; otherwise pretty, human lines
 * when standard output is a terminal (a newcomer running `npm run dev`), JSON lines when it is
 * not (a service manager, a container, a file: what log collectors read).
 */
export function logFormatFor(setting: 'auto' | 'json' | 'pretty', stdoutIsTTY: boolean | undefined): 'json' | 'pretty' {
  if (setting !== 'auto') return setting;
  return stdoutIsTTY === true ? 'pretty' : 'json';
}

type PrettyFactory = (options: Record<string, unknown>) => PrettyStream;

/** A logger that writes nothing: for a part made outside the service (tests, benchmarks). */
export const silentLog: Log = pino({ level: 'silent' });
