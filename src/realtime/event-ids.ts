import { createCipheriv, createDecipheriv, createHmac, hkdfSync, timingSafeEqual } from 'node:crypto';

/** 16 bytes, base64url without padding. */
const ID_PATTERN = /^[A-Za-z0-9_-]{22}$/;

/**
 * The SSE ids a viewer sees: each event's position in the log (scope.ts: eventId), sealed for that
 * viewer. The id is one AES-256 block holding the position and a 64-bit MAC of (viewer, position),
 * under keys derived from a secret every instance reads from the database. So an id is the same on
 * every instance and after a restart (the replay needs no more), yet it says nothing of the
 * position: neither where the log is nor how many events lie between two ids a viewer received
 * (the gaps were others' activity). And an id nobody issued to this viewer — made up, another
 * viewer's, of another deployment, or of a position not reached yet — is told apart from a real
 * one by the MAC alone, never by the log: it gets `reset` whatever others do meanwhile.
 *
 * Deterministic, so that a viewer's streams (tabs, instances) agree on every id; one AES block per
 * id is a pseudorandom permutation, so equal ids mean the same position and nothing more.
 */
export class EventIds {
  readonly #encryption: Buffer;
  readonly #mac: Buffer;

  constructor(secret: Buffer) {
    if (secret.length < 32) throw new Error('the event id secret must be at least 32 bytes');
    const keys = Buffer.from(hkdfSync('sha256', secret, Buffer.alloc(0), 'print-orders realtime event ids v1', 64));
    this.#encryption = keys.subarray(0, 32);
    this.#mac = keys.subarray(32);
  }

  #tag(viewerId: string, position: Buffer): Buffer {
    return createHmac('sha256', this.#mac).update(position).update(viewerId, 'utf8').digest().subarray(0, 8);
  }

  /** The id `viewerId` sees for the event (or position) numbered `n`. */
  encode(viewerId: string, n: number): string {
    const position = Buffer.alloc(8);
    position.writeBigUInt64BE(BigInt(n));
    const cipher = createCipheriv('aes-256-ecb', this.#encryption, null).setAutoPadding(false);
    return Buffer.concat([cipher.update(Buffer.concat([position, this.#tag(viewerId, position)])), cipher.final()]).toString('base64url');
  }

  /** The event number behind an id issued to `viewerId`; undefined for anything else. */
  decode(viewerId: string, raw: string | undefined): number | undefined {
    if (raw === undefined || !ID_PATTERN.test(raw)) return undefined;
    const sealed = Buffer.from(raw, 'base64url');
    // Base64 has two spellings of some last characters: only the one we write is ours.
    if (sealed.toString('base64url') !== raw) return undefined;
    const decipher = createDecipheriv('aes-256-ecb', this.#encryption, null).setAutoPadding(false);
    const block = Buffer.concat([decipher.update(sealed), decipher.final()]);
    const position = block.subarray(0, 8);
    if (!timingSafeEqual(block.subarray(8), this.#tag(viewerId, position))) return undefined;
    const n = position.readBigUInt64BE();
    return n <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(n) : undefined;
  }
}
