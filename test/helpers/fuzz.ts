import net from 'node:net';
import { brotliDecompressSync, gunzipSync, inflateSync } from 'node:zlib';

/**
 * The pieces of the outside fuzz test (test/outside-fuzz.test.ts) that know nothing of this
 * service: a seeded random source, odd JSON values, a raw HTTP/1.1 client for what fetch will not
 * send, and the oracle that reads an answer the way any client would.
 */

// ---------------------------------------------------------------------------------------------
// Seeded random numbers

/** A 32-bit hash of a text (cyrb53, folded), so any seed string gives a well-spread state. */
export function hashSeed(text: string): number {
  let h1 = 0xdeadbeef;
  let h2 = 0x41c6ce57;
  for (let i = 0; i < text.length; i++) {
    const ch = text.charCodeAt(i);
    h1 = Math.imul(h1 ^ ch, 2654435761);
    h2 = Math.imul(h2 ^ ch, 1597334677);
  }
  h1 = Math.imul(h1 ^ (h1 >>> 16), 2246822507) ^ Math.imul(h2 ^ (h2 >>> 13), 3266489909);
  h2 = Math.imul(h2 ^ (h2 >>> 16), 2246822507) ^ Math.imul(h1 ^ (h1 >>> 13), 3266489909);
  return (h1 ^ h2) >>> 0;
}

/** mulberry32: small, fast and good enough to pick test inputs; the same seed gives the same sequence. */
export class Rng {
  private state: number;

  constructor(seed: number) {
    this.state = seed >>> 0;
  }

  /** A number in [0, 1). */
  next(): number {
    this.state = (this.state + 0x6d2b79f5) >>> 0;
    let t = this.state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }

  /** A whole number from min to max, both included. */
  int(min: number, max: number): number {
    return min + Math.floor(this.next() * (max - min + 1));
  }

  chance(p: number): boolean {
    return this.next() < p;
  }

  pick<T>(items: readonly T[]): T {
    if (!items.length) throw new Error('pick from an empty list');
    return items[Math.floor(this.next() * items.length)]!;
  }

  /** One of the entries, each as likely as its weight. */
  weighted<T>(entries: readonly (readonly [T, number])[]): T {
    const total = entries.reduce((sum, [, w]) => sum + w, 0);
    let r = this.next() * total;
    for (const [value, w] of entries) {
      r -= w;
      if (r < 0) return value;
    }
    return entries[entries.length - 1]![0];
  }

  /** A text of `length` characters drawn from `alphabet`. */
  text(length: number, alphabet = 'abcdefghijklmnopqrstuvwxyz0123456789'): string {
    let s = '';
    for (let i = 0; i < length; i++) s += alphabet[Math.floor(this.next() * alphabet.length)];
    return s;
  }
}

/** The random source of request `index` under `seed`: each request is drawn on its own, so one can be replayed alone. */
export const rngFor = (seed: string, index: number) => new Rng(hashSeed(`${seed}#${index}`));

// ---------------------------------------------------------------------------------------------
// JSON with what JSON.stringify cannot say

/** JSON text inserted as it is (1e999, a lone-surrogate escape, ten thousand nested arrays). */
export class RawJson {
  constructor(readonly text: string) {}
}

/** An object as a list of entries: repeated keys, `__proto__` as a plain key, keys in a chosen order. */
export class Pairs {
  constructor(readonly entries: [string, unknown][]) {}
}

/** JSON text of a value that may hold RawJson and Pairs; no recursion limit worth worrying about (deep values are RawJson). */
export function toJson(value: unknown): string {
  if (value instanceof RawJson) return value.text;
  if (value instanceof Pairs) return `{${value.entries.map(([k, v]) => `${JSON.stringify(k)}:${toJson(v)}`).join(',')}}`;
  if (Array.isArray(value)) return `[${value.map(toJson).join(',')}]`;
  if (value !== null && typeof value === 'object') return toJson(new Pairs(Object.entries(value)));
  return JSON.stringify(value) ?? 'null';
}

/** `depth` nested arrays or objects, as text (thousands deep: no recursion here or in toJson). */
export function deepJson(depth: number, kind: 'array' | 'object'): RawJson {
  return kind === 'array' ? new RawJson(`${'['.repeat(depth)}${']'.repeat(depth)}`) : new RawJson(`${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`);
}

/**
 * Strings people and attackers send. None of them looks like what the leak check looks for (SQL,
 * stack frames, server paths, hashes), so a later answer that shows one of them stored is no false alarm.
 */
export const ODD_STRINGS: readonly string[] = [
  '',
  ' ',
  '\t\r\n',
  'a',
  'x'.repeat(300),
  'y'.repeat(6000),
  '\u0000',
  'a\u0000b',
  '\ud800',
  'x\udfff',
  '\udc00\ud800',
  '\ud83d\ude00',
  '\u202egnp.exe',
  '\ufeffBOM',
  'Ω≈ç√∫˜µ≤≥÷',
  '日本語のテキスト',
  'e\u0301\u0301\u0301',
  '../../etc/passwd',
  '..\\..\\boot.ini',
  '%00',
  '%2e%2e%2f',
  '<script>alert(1)</script>',
  "' OR '1'='1",
  "Robert'); DROP TABLE users;--",
  '${7*7}',
  '{{7*7}}',
  'null',
  'undefined',
  'true',
  '0',
  '-1',
  '1e309',
  'NaN',
  '42',
  ' 42 ',
  '0x1f',
  '__proto__',
  'constructor',
  'toString',
  'ADMIN',
  'admin',
  'PO',
  'po',
  'APPROVED',
  'VERIFIED',
  'a@b',
  'nobody@example.com',
  '"quoted"',
  '\\',
  '\u0001\u0002\u001f\u007f',
  '\u2028\u2029',
];

export const ODD_KEYS: readonly string[] = ['__proto__', 'constructor', 'prototype', 'a\u0000', '\u0000', '\ud800', '', ' ', 'k'.repeat(2000), 'toString', '$where', 'a.b', 'items[0]', '😀', 'NAME', 'name '];

/** A value of any kind that a field might receive instead of the one it wants. */
export function oddValue(rng: Rng): { value: unknown; note: string } {
  const kind = rng.weighted([
    ['string', 30],
    ['random-string', 6],
    ['number', 10],
    ['number-text', 6],
    ['scalar', 6],
    ['small-structure', 8],
    ['huge-array', 3],
    ['huge-object', 4],
    ['deep', 5],
    ['huge-string', 2],
    ['proto', 5],
    ['escape', 12],
  ] as const);
  switch (kind) {
    case 'string': {
      const s = rng.pick(ODD_STRINGS);
      return { value: s, note: `string ${describeText(s)}` };
    }
    case 'random-string': {
      const s = rng.text(rng.int(1, 64), 'aZ09 \u0000\u0007\u00e9\u00ff\u0100\u2603\ud800\udc00\ud83d\ude00"\\/\n');
      return { value: s, note: `string ${describeText(s)}` };
    }
    case 'number': {
      const v = rng.pick<unknown>([0, -1, 1.5, 2 ** 53 + 2, -0, 1e308, new RawJson('1e999'), new RawJson('-1e999'), new RawJson('1E+2'), new RawJson('0.0000001'), 10_000_001, 201]);
      return { value: v, note: `number ${v instanceof RawJson ? v.text : String(v)}` };
    }
    case 'number-text': {
      const v = rng.pick(['1', '200', '-5', '1e3', '3.14', '9007199254740993', '0x10']);
      return { value: v, note: `number as text "${v}"` };
    }
    case 'scalar': {
      const v = rng.pick<unknown>([true, false, null]);
      return { value: v, note: String(v) };
    }
    case 'small-structure': {
      const v = rng.pick<unknown>([[], {}, [1, 'a', null], { a: 1 }, [[[]]], { '': '' }, ['PO', 'INVOICE']]);
      return { value: v, note: `structure ${JSON.stringify(v)}` };
    }
    case 'huge-array': {
      const n = rng.pick([1000, 20_000, 150_000]);
      return { value: new RawJson(`[${'0,'.repeat(n - 1)}0]`), note: `array of ${n} zeros` };
    }
    case 'huge-object': {
      const n = rng.pick([100, 2000, 20_000, 40_000]);
      const v = rng.pick([false, true, 'x']);
      const keys = Array.from({ length: n }, (_, i) => `${JSON.stringify(`k${i}`)}:${JSON.stringify(v)}`);
      return { value: new RawJson(`{${keys.join(',')}}`), note: `object of ${n} keys, each ${JSON.stringify(v)}` };
    }
    case 'deep': {
      const depth = rng.pick([500, 2000, 5000, 20_000, 100_000]);
      const shape = rng.pick(['array', 'object'] as const);
      return { value: deepJson(depth, shape), note: `${depth} nested ${shape}s` };
    }
    case 'huge-string': {
      const n = rng.pick([100_000, 1_100_000]);
      return { value: 'z'.repeat(n), note: `string of ${n} characters` };
    }
    case 'proto': {
      const v = rng.pick([
        '{"__proto__":{"role":"ADMIN","isAdmin":true}}',
        '{"constructor":{"prototype":{"role":"ADMIN"}}}',
        '{"a":{"__proto__":{"polluted":1}}}',
        '[{"__proto__":null}]',
      ]);
      return { value: new RawJson(v), note: `prototype keys ${v}` };
    }
    case 'escape': {
      const v = rng.pick(['"\\ud800"', '"a\\udfffb"', '"\\u0000"', '"x\\u0000y"', '"\\ud800\\u0000"', '"\\uDBFF\\uDBFF"', '"\\u001f"']);
      return { value: new RawJson(v), note: `escaped string ${v}` };
    }
  }
}

/** A short description of a text for a reproduction: printable, bounded. */
export function describeText(s: string, max = 60): string {
  const shown = JSON.stringify(s.length > max ? s.slice(0, max) : s);
  return s.length > max ? `${shown}… (${s.length} chars)` : shown;
}

/** A body as a reproduction shows it: whole when short, else its start, its end and its size. */
export function describeBody(body: Buffer | undefined): string {
  if (!body || !body.length) return '(none)';
  const text = body.toString('latin1');
  if (body.length <= 240) return JSON.stringify(text);
  return `${JSON.stringify(text.slice(0, 160))} … ${JSON.stringify(text.slice(-40))} (${body.length} bytes)`;
}

// ---------------------------------------------------------------------------------------------
// A raw HTTP/1.1 client: for what fetch refuses to send (odd Host, TRACE, Expect, bad chunking, truncated bodies)

export interface Answer {
  status?: number;
  headers: Record<string, string>;
  body: Buffer;
  /** The connection failed before a whole answer came (a code such as ECONNRESET, or a message). */
  error?: string;
  /** Nothing complete within the time allowed. */
  timedOut?: boolean;
  /** The server closed the connection without a byte of answer. */
  unanswered?: boolean;
  ms: number;
}

interface Parsed {
  status: number;
  headers: Record<string, string>;
  body: Buffer;
  complete: boolean;
}

/** The first final (non-1xx) answer in `buf`, as far as it came; null before its head is in. */
export function parseAnswer(buf: Buffer, head: boolean, eof: boolean): Parsed | null {
  let rest = buf;
  for (;;) {
    const end = rest.indexOf('\r\n\r\n');
    if (end < 0) return null;
    const lines = rest.subarray(0, end).toString('latin1').split('\r\n');
    const m = /^HTTP\/1\.[01] (\d{3})/.exec(lines[0] ?? '');
    if (!m) return { status: 0, headers: {}, body: rest, complete: eof };
    const status = Number(m[1]);
    const headers: Record<string, string> = {};
    for (const line of lines.slice(1)) {
      const colon = line.indexOf(':');
      if (colon < 0) continue;
      const name = line.slice(0, colon).trim().toLowerCase();
      const value = line.slice(colon + 1).trim();
      headers[name] = headers[name] === undefined ? value : `${headers[name]}, ${value}`;
    }
    const body = rest.subarray(end + 4);
    if (status >= 100 && status < 200) {
      rest = body;
      continue;
    }
    if (head || status === 204 || status === 304) return { status, headers, body: Buffer.alloc(0), complete: true };
    if (/chunked/i.test(headers['transfer-encoding'] ?? '')) {
      const decoded = dechunk(body);
      return { status, headers, body: decoded.body, complete: decoded.complete || eof };
    }
    const length = headers['content-length'];
    if (length !== undefined) return { status, headers, body: body.subarray(0, Number(length)), complete: body.length >= Number(length) || eof };
    return { status, headers, body, complete: eof };
  }
}

function dechunk(buf: Buffer): { body: Buffer; complete: boolean } {
  const parts: Buffer[] = [];
  let at = 0;
  for (;;) {
    const lineEnd = buf.indexOf('\r\n', at);
    if (lineEnd < 0) return { body: Buffer.concat(parts), complete: false };
    const size = parseInt(buf.subarray(at, lineEnd).toString('latin1'), 16);
    if (Number.isNaN(size)) return { body: Buffer.concat(parts), complete: true };
    if (size === 0) return { body: Buffer.concat(parts), complete: true };
    const start = lineEnd + 2;
    if (buf.length < start + size + 2) return { body: Buffer.concat([...parts, buf.subarray(start)]), complete: false };
    parts.push(buf.subarray(start, start + size));
    at = start + size + 2;
  }
}

/** The body as a client that asked for compression reads it (undecodable: left as it came, for the oracle to refuse). */
function decoded(headers: Record<string, string>, body: Buffer): Buffer {
  const decode = { gzip: gunzipSync, deflate: inflateSync, br: brotliDecompressSync }[(headers['content-encoding'] ?? '').trim().toLowerCase()];
  if (!decode || !body.length) return body;
  try {
    return decode(body);
  } catch {
    return body;
  }
}

/**
 * Sends `request` (every byte of it, as given) on a new connection and reads the first final
 * answer. `halfClose`: end our side once the bytes are out, as a client that gives up on its body.
 */
export function rawHttp(port: number, request: Buffer, opts: { timeoutMs: number; head?: boolean; halfClose?: boolean }): Promise<Answer> {
  return new Promise((resolve) => {
    const started = performance.now();
    const socket = net.connect({ host: '127.0.0.1', port });
    let received = Buffer.alloc(0);
    let settled = false;
    const settle = (answer: Omit<Answer, 'ms'>) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      socket.destroy();
      resolve({ ...answer, ms: Math.round(performance.now() - started) });
    };
    const fromParsed = (p: Parsed) => ({ status: p.status, headers: p.headers, body: p.complete ? decoded(p.headers, p.body) : p.body });
    const timer = setTimeout(() => {
      const p = parseAnswer(received, opts.head ?? false, false);
      settle({ ...(p ? fromParsed(p) : { headers: {}, body: received }), timedOut: true });
    }, opts.timeoutMs);
    socket.on('connect', () => {
      socket.write(request);
      if (opts.halfClose) socket.end();
    });
    socket.on('data', (d: Buffer) => {
      received = Buffer.concat([received, d]);
      const p = parseAnswer(received, opts.head ?? false, false);
      if (p?.complete) settle(fromParsed(p));
    });
    const atEnd = (error?: string) => {
      const p = parseAnswer(received, opts.head ?? false, true);
      if (p?.complete) settle(fromParsed(p));
      else if (!received.length) settle(error ? { headers: {}, body: received, error } : { headers: {}, body: received, unanswered: true });
      else settle({ headers: {}, body: received, error: error ?? 'the connection closed inside the answer' });
    };
    socket.on('end', () => atEnd());
    socket.on('close', () => atEnd());
    socket.on('error', (err: NodeJS.ErrnoException) => atEnd(err.code ?? err.message));
  });
}

// ---------------------------------------------------------------------------------------------
// The oracle

/** What must never reach a client, by pattern (each judged against what the request itself said). */
const LEAK_PATTERNS: readonly (readonly [string, RegExp])[] = [
  ['stack trace', /\bat (?:async )?[\w$.<>[\] ]*\(?(?:file:\/\/|node:|\/)[^\s)]*:\d+:\d+\)?/g],
  ['stack trace', /\n\s+at \S/g],
  ['SQL', /\bSELECT\b[^"\n]{0,200}?\bFROM\b|\bINSERT INTO\b|\bDELETE FROM\b|\bUPDATE\s+"?\w+"?\s+SET\b|\bON CONFLICT\b/g],
  [
    'database error',
    /SQLITE_[A-Z_]+|syntax error at or near|violates [\w -]{1,40}constraint|relation "[^"]*" does not exist|duplicate key value|invalid input syntax for|unsupported Unicode escape|invalid byte sequence for encoding|too many SQL variables|bind message|no such (?:table|column)|Unicode low surrogate|Unicode high surrogate|null character not permitted/gi,
  ],
  ['server path', /\/work\/|\/tmp\/|node_modules|file:\/\/\/|\/home\/|\/root\/|\/usr\/(?:lib|local)\//g],
  ['password hash', /\$2[aby]\$\d\d\$/g],
  ['password field', /"password(?:Hash|_hash)"\s*:/g],
];

/**
 * What an answer leaks: each match of a leak pattern, and each secret (tokens, their hashes, the
 * data dir) it contains, that the request did not itself carry (an echo of the caller's own input is no leak).
 */
export function leaksIn(answerText: string, requestText: string, secrets: readonly { name: string; value: string }[]): string[] {
  const found: string[] = [];
  for (const [name, pattern] of LEAK_PATTERNS) {
    for (const m of answerText.matchAll(pattern)) {
      if (!requestText.includes(m[0])) found.push(`${name}: ${describeText(m[0], 80)}`);
    }
  }
  for (const secret of secrets) {
    if (secret.value && answerText.includes(secret.value) && !requestText.includes(secret.value)) found.push(`${secret.name}`);
  }
  return [...new Set(found)];
}

/** Problems of a refusal (4xx/5xx) as a client reads it: it must be JSON, exactly {"error": string}. */
export function refusalProblems(headers: Record<string, string>, body: Buffer): string[] {
  const problems: string[] = [];
  if (!/\bjson\b/i.test(headers['content-type'] ?? '')) problems.push(`refusal is not JSON (Content-Type ${JSON.stringify(headers['content-type'] ?? null)})`);
  let parsed: unknown;
  try {
    parsed = JSON.parse(body.toString('utf8'));
  } catch {
    problems.push(`refusal body does not parse as JSON: ${describeBody(body)}`);
    return problems;
  }
  if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed) || typeof (parsed as { error?: unknown }).error !== 'string') {
    problems.push(`refusal is not {"error": string}: ${describeBody(body)}`);
  } else if (Object.keys(parsed).length !== 1) {
    problems.push(`refusal has more than "error": ${describeBody(body)}`);
  }
  return problems;
}
