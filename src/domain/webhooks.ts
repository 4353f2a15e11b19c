import { BlockList, isIP } from 'node:net';
import { AppError, errors } from '../errors.js';
import { isOneOf } from './model.js';
import { WEBHOOK_EVENT_TYPES } from './webhook-events.js';

export { TEST_EVENT_TYPE, WEBHOOK_EVENT_OF, WEBHOOK_EVENT_TYPES, type WebhookEventType, subscribesTo } from './webhook-events.js';

export const WEBHOOK_URL_MAX = 2000;
export const WEBHOOK_DESCRIPTION_MAX = 500;

/** The events of a request: a non-empty list of known events or `"*"`, each once; or the refusal. */
export function parseWebhookEvents(v: unknown): string[] | AppError {
  if (!Array.isArray(v) || v.length === 0 || v.length > WEBHOOK_EVENT_TYPES.length + 1) {
    return errors.invalidField('events', `must be a non-empty list of: *, ${WEBHOOK_EVENT_TYPES.join(', ')}`);
  }
  for (const e of v) {
    if (e !== '*' && !isOneOf(WEBHOOK_EVENT_TYPES, e)) return errors.invalidField('events', `must be a non-empty list of: *, ${WEBHOOK_EVENT_TYPES.join(', ')}`);
  }
  return [...new Set(v as string[])];
}

/** A target address: an absolute http(s) URL, without user name or password, bounded; or the refusal. */
export function parseWebhookUrl(v: unknown): URL | AppError {
  const refusal = errors.invalidField('url', `must be an http or https URL of at most ${WEBHOOK_URL_MAX} characters`);
  if (typeof v !== 'string' || v.length > WEBHOOK_URL_MAX) return refusal;
  let url: URL;
  try {
    url = new URL(v);
  } catch {
    return refusal;
  }
  if ((url.protocol !== 'http:' && url.protocol !== 'https:') || !url.hostname) return refusal;
  // Credentials in the address would be stored and shown to every admin.
  if (url.username || url.password) return errors.invalidField('url', 'must not carry a user name or password');
  return url;
}

/** The host of a URL as an address lookup takes it (IPv6 literals without their brackets). */
export const hostOf = (url: URL): string => url.hostname.replace(/^\[(.*)\]$/, '$1');

/** Addresses a webhook must never reach (SSRF): loopback, private, link-local (cloud metadata), shared, reserved, multicast, documentation. */
const internal = new BlockList();
for (const [net, prefix] of [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.0.2.0', 24],
  ['192.88.99.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['198.51.100.0', 24],
  ['203.0.113.0', 24],
  ['224.0.0.0', 4],
  ['240.0.0.0', 4],
] as const) {
  internal.addSubnet(net, prefix, 'ipv4');
}
for (const [net, prefix] of [
  ['::', 128],
  ['::1', 128],
  ['100::', 64],
  // IETF protocol assignments that are no host on the Internet: benchmarking, ORCHID(v2).
  ['2001:2::', 48],
  ['2001:10::', 28],
  ['2001:20::', 28],
  ['2001:db8::', 32],
  ['3fff::', 20],
  ['5f00::', 16],
  // NAT64's local-use prefix (RFC 8215) leads into the operator's own network whatever it embeds.
  ['64:ff9b:1::', 48],
  ['fc00::', 7],
  ['fe80::', 10],
  ['fec0::', 10],
  ['ff00::', 8],
] as const) {
  internal.addSubnet(net, prefix, 'ipv6');
}

/** The 16 bytes of an IPv6 address in any of its written forms (zero runs, a dotted IPv4 tail), or null. */
export function ipv6Bytes(ip: string): Uint8Array | null {
  if (isIP(ip) !== 6) return null;
  let text = ip.toLowerCase().replace(/%.*$/, '');
  const tail = /(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(text);
  if (tail) {
    const [a, b, c, d] = tail.slice(1).map(Number) as [number, number, number, number];
    text = `${text.slice(0, tail.index)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head, rest] = text.split('::') as [string, string | undefined];
  const groups = (part: string) => (part ? part.split(':').map((g) => parseInt(g, 16)) : []);
  const left = groups(head);
  const right = rest === undefined ? [] : groups(rest);
  const all = rest === undefined ? left : [...left, ...new Array<number>(8 - left.length - right.length).fill(0), ...right];
  if (all.length !== 8) return null;
  const bytes = new Uint8Array(16);
  all.forEach((g, i) => {
    bytes[2 * i] = g >> 8;
    bytes[2 * i + 1] = g & 255;
  });
  return bytes;
}

const v4At = (b: Uint8Array, i: number, xor = 0) => [0, 1, 2, 3].map((k) => (b[i + k]! ^ xor) & 255).join('.');
const zeros = (b: Uint8Array, from: number, to: number) => b.subarray(from, to).every((x) => x === 0);

/**
 * The IPv4 addresses an IPv6 address carries, by which a packet to it may reach that IPv4 host
 * (through a relay, a translator or the host's own tunnel): IPv4-compatible ::a.b.c.d, IPv4-mapped
 * ::ffff:a.b.c.d, SIIT's IPv4-translated ::ffff:0:a.b.c.d, NAT64's 64:ff9b::a.b.c.d (RFC 6052), 6to4
 * 2002:AABB:CCDD::/48, Teredo 2001:0:<server>::<client XOR-ed>, and ISATAP's interface
 * identifier ::[02]00:5efe:a.b.c.d under any prefix.
 */
export function embeddedIpv4s(ip: string): string[] {
  const b = ipv6Bytes(ip);
  if (!b) return [];
  const found: string[] = [];
  const word = (i: number) => (b[i]! << 8) | b[i + 1]!;
  if (zeros(b, 0, 10) && ((b[10] === 0 && b[11] === 0) || (b[10] === 255 && b[11] === 255))) found.push(v4At(b, 12)); // ::/96, ::ffff:0:0/96
  if (zeros(b, 0, 8) && word(8) === 0xffff && word(10) === 0) found.push(v4At(b, 12)); // ::ffff:0:0:0/96
  if (word(0) === 0x64 && word(2) === 0xff9b && zeros(b, 4, 12)) found.push(v4At(b, 12)); // 64:ff9b::/96
  if (word(0) === 0x2002) found.push(v4At(b, 2)); // 6to4
  if (word(0) === 0x2001 && word(2) === 0) found.push(v4At(b, 4), v4At(b, 12, 0xff)); // Teredo: server, client
  if ((word(8) & 0xfdff) === 0 && word(10) === 0x5efe) found.push(v4At(b, 12)); // ISATAP
  return found;
}

/** Why an address is no place for a webhook, or null when it is a public one. Anything that is not an IP address is refused. */
export function internalAddressReason(ip: string): string | null {
  const family = isIP(ip);
  if (family === 0) return `${ip} is not an IP address`;
  if (family === 6) {
    for (const v4 of embeddedIpv4s(ip)) {
      if (internal.check(v4, 'ipv4')) return `${ip} is an internal address (it carries ${v4})`;
    }
  }
  return internal.check(ip, family === 4 ? 'ipv4' : 'ipv6') ? `${ip} is a loopback, private, link-local or otherwise internal address` : null;
}

/** Wait before the next attempt after `attempts` failed ones: doubling from baseMs, at most maxMs, ±20 % jitter so endpoints are not retried in step. */
export const webhookBackoffMs = (attempts: number, retry: { baseMs: number; maxMs: number }, random = Math.random()): number =>
  Math.round(Math.min(retry.maxMs, retry.baseMs * 2 ** Math.max(0, attempts - 1)) * (0.8 + 0.4 * random));

/** An endpoint failing since `failingSince` is deactivated once it has failed for `afterMs` (24 hours by default). */
export const failedTooLong = (failingSince: string | null, now: string, afterMs: number): boolean =>
  failingSince !== null && Date.parse(now) - Date.parse(failingSince) >= afterMs;

/** The stored part of an answer: its first `max` characters. */
export const excerptOf = (text: string, max = 1024): string => (text.length > max ? `${text.slice(0, max)}…` : text);

/** An endpoint, secrets included: only the signer reads them; presenters never do. */
export interface Webhook {
  id: string;
  url: string;
  events: string[];
  description: string | null;
  secret: string;
  previousSecret: string | null;
  previousSecretExpiresAt: string | null;
  active: boolean;
  failingSince: string | null;
  createdAt: string;
  updatedAt: string;
}

export const DELIVERY_STATUSES = ['pending', 'delivered', 'failed'] as const;
export type DeliveryStatus = (typeof DELIVERY_STATUSES)[number];

/** One event, stored once whatever the number of endpoints it goes to (migration 022). */
export interface WebhookEvent {
  id: string;
  type: string;
  /** The event's data as the change saw it (webhooks/outbox.ts). */
  payload: unknown;
  createdAt: string;
}

/**
 * A project's documents as they stood at `at` (a webhook event's time), newest first: those recorded
 * by then (the files table only grows), each withdrawn only if that happened by then. Timestamps are
 * ISO strings of one format, so they compare as text.
 */
export function documentsAsOf<T extends { createdAt: string; voidedAt: string | null; voidedById: string | null; voidReason: string | null; voidedByName: string | null }>(
  files: readonly T[],
  at: string,
): T[] {
  const listed: T[] = [];
  for (const f of files) {
    if (f.createdAt > at) continue;
    listed.push(f.voidedAt !== null && f.voidedAt > at ? { ...f, voidedAt: null, voidedById: null, voidReason: null, voidedByName: null } : f);
  }
  return listed;
}

/** One event for one endpoint, as the outbox keeps it (its event's data in webhook_events). */
export interface WebhookDelivery {
  id: string;
  webhookId: string;
  eventId: string;
  eventType: string;
  status: DeliveryStatus;
  attempts: number;
  nextAttemptAt: string;
  /** Its event's position in the event log: its place in its endpoint's queue (with the id). */
  seq: number;
  /** The claim this row is under (a dispatcher's lease), if any. */
  lockedUntil: string | null;
  /** The claim holding it (renewed by its holder's heartbeat); the attempt records its outcome under it. */
  claimId: string | null;
  lastStatusCode: number | null;
  lastError: string | null;
  responseExcerpt: string | null;
  createdAt: string;
  deliveredAt: string | null;
}
