import { randomFillSync } from 'node:crypto';
import { v7 } from 'uuid';
import { nowMs } from './clock.js';

/** Random bytes for ids, drawn 4 KiB at a time: one call to the system's generator per 256 ids (uuid asks for each id's 16 bytes apart, 4 µs each). */
const pool = Buffer.alloc(4096);
let used = pool.length;
/** As uuid keeps it: within one millisecond, ids count up from a random start, so they stay in creation order. */
const clock = { msecs: -Infinity, seq: 0 };

/** A new identifier: UUIDv7, random (74 bits) and ordered by creation time, never sequential. */
export function newId(): string {
  if (used === pool.length) {
    randomFillSync(pool);
    used = 0;
  }
  const random = pool.subarray(used, (used += 16));
  const now = nowMs();
  if (now > clock.msecs) {
    clock.msecs = now;
    clock.seq = random.readUInt32BE(6) & 0x7fffffff;
  } else if ((clock.seq = (clock.seq + 1) | 0) === 0) {
    clock.msecs++; // 2^31 ids in one millisecond: borrow the next one, as uuid does
  }
  return v7({ random, msecs: clock.msecs, seq: clock.seq });
}
