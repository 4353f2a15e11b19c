import type { FastifyBaseLogger } from 'fastify';
import { pino } from 'pino';
import { serializeRequest } from './log-redaction.js';

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
export function createLogger(level: string, destination?: pino.DestinationStream): pino.Logger {
  return destination ? pino(loggerOptions(level), destination) : pino(loggerOptions(level));
}

/** A logger that writes nothing: for a part made outside the service (tests, benchmarks). */
export const silentLog: Log = pino({ level: 'silent' });
