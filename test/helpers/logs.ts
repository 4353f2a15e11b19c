import { Writable } from 'node:stream';
import { type Log, createLogger } from '../../src/logger.js';

/** One line of the service's JSON log (pino): the fields the tests read; any other is there too. */
export interface LogLine {
  level: number;
  msg: string;
  reqId?: string;
  err?: { message?: string };
  [field: string]: unknown;
}

export interface CapturedLog {
  /** Every line as written, in order. */
  text: string[];
  /** The same lines, parsed. */
  lines: LogLine[];
  /** For startTestService / startService: the service's own logger (its options) at `level`, writing here. */
  logger: Log;
}

/** Keeps what the service logs at `level` and above, instead of printing it. */
export function captureLogs(level: string): CapturedLog {
  const text: string[] = [];
  const lines: LogLine[] = [];
  const stream = new Writable({
    write(chunk, _enc, done) {
      for (const line of String(chunk).split('\n').filter(Boolean)) {
        text.push(line);
        lines.push(JSON.parse(line) as LogLine);
      }
      done();
    },
  });
  return { text, lines, logger: createLogger(level, stream) };
}
