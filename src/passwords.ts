import os from 'node:os';
import bcrypt from 'bcrypt';
import { errors } from './errors.js';

/** The specification's cost factor. */
export const BCRYPT_COST = 10;

/**
 * bcrypt runs on libuv's thread pool, never on the event loop; but a burst of logins with a hash on
 * every pool thread takes every core from the event loop too (two cores, four pool threads), and
 * file writes queue behind the hashes. So at most one hash per core but one runs at a time, the
 * rest wait their turn here; past MAX_WAITING the answer is 503 rather than an ever longer wait.
 */
const SLOTS = Math.max(1, os.availableParallelism() - 1);
const MAX_WAITING = 1000;
let running = 0;
const waiting: (() => void)[] = [];

async function withSlot<T>(work: () => Promise<T>): Promise<T> {
  if (running >= SLOTS) {
    if (waiting.length >= MAX_WAITING) throw errors.passwordWorkBusy();
    await new Promise<void>((resolve) => waiting.push(resolve));
  } else {
    running++;
  }
  try {
    return await work();
  } finally {
    // Hand the slot straight to the next in line, or give it back.
    const next = waiting.shift();
    if (next) next();
    else running--;
  }
}

/** Produces standard `$2b$10$…` strings. */
export const hashPassword = (password: string): Promise<string> => withSlot(() => bcrypt.hash(password, BCRYPT_COST));

/** Accepts `$2a$` and `$2b$` hashes, so users of an earlier deployment keep their passwords. */
export async function verifyPassword(password: string, passwordHash: string): Promise<boolean> {
  return withSlot(async () => {
    try {
      return await bcrypt.compare(password, passwordHash);
    } catch {
      return false; // a malformed stored hash matches nothing
    }
  });
}

let dummyHash: Promise<string> | undefined;
/** A hash to compare against when the email is unknown, so that answer takes as long as a wrong password. */
export const timingDecoyHash = (): Promise<string> => (dummyHash ??= hashPassword('decoy password, never matches a login'));
