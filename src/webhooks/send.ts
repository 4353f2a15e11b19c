import { performance } from 'node:perf_hooks';
import dns from 'node:dns/promises';
import http from 'node:http';
import https from 'node:https';
import type { LookupFunction } from 'node:net';
import { excerptOf, hostOf, internalAddressReason } from '../domain/webhooks.js';

/** At most this much of an answer is read; the rest is dropped with the connection. */
export const MAX_ANSWER_BYTES = 64 * 1024;
/** The part of the answer the delivery log keeps. */
export const EXCERPT_CHARS = 1024;

export interface Resolved {
  address: string;
  family: 4 | 6;
}

/**
 * The address a target's host stands for, checked (SSRF): every address the name resolves to must
 * be a public one unless `allowPrivate`; the answer is a refusal's reason otherwise. The connection
 * then goes to that very address (send's lookup), so a name that changes meanwhile (DNS rebinding) cannot move it.
 */
export async function resolveTarget(url: URL, allowPrivate: boolean, signal?: AbortSignal): Promise<Resolved | { refused: string }> {
  const host = hostOf(url);
  let found: { address: string; family: number }[];
  try {
    found = await Promise.race([
      dns.lookup(host, { all: true, verbatim: true }),
      new Promise<never>((_, reject) => {
        if (signal?.aborted) reject(new Error('timed out'));
        signal?.addEventListener('abort', () => reject(new Error('timed out')), { once: true });
      }),
    ]);
  } catch (err) {
    return { refused: `the host ${host} could not be resolved (${(err as Error).message})` };
  }
  if (!found.length) return { refused: `the host ${host} could not be resolved` };
  if (!allowPrivate) {
    for (const a of found) {
      const reason = internalAddressReason(a.address);
      if (reason) return { refused: `the host ${host} resolves to ${reason}` };
    }
  }
  return { address: found[0]!.address, family: found[0]!.family === 6 ? 6 : 4 };
}

export interface SendOutcome {
  ok: boolean;
  statusCode: number | null;
  error: string | null;
  excerpt: string | null;
}

/**
 * Connections kept open between deliveries (an endpoint gets one event after another), keyed by the
 * checked address as well as the name, so a pooled connection only ever serves the address a
 * delivery just checked. An idle one is closed after KEEP_IDLE_MS, under Node's and most servers'
 * own idle limits (5 s), so it is rarely reused at the moment the other side drops it.
 */
const KEEP_IDLE_MS = 4000;
type Pinned = { pinned?: string };
class PinnedHttpAgent extends http.Agent {
  override getName(options: http.ClientRequestArgs & Pinned): string {
    return `${super.getName(options)}@${options.pinned ?? ''}`;
  }
}
class PinnedHttpsAgent extends https.Agent {
  override getName(options: https.RequestOptions & Pinned): string {
    return `${super.getName(options)}@${options.pinned ?? ''}`;
  }
}
const agents = {
  'http:': new PinnedHttpAgent({ keepAlive: true, timeout: KEEP_IDLE_MS, maxFreeSockets: 64 }),
  'https:': new PinnedHttpsAgent({ keepAlive: true, timeout: KEEP_IDLE_MS, maxFreeSockets: 64 }),
};

/**
 * One POST of a webhook: to the checked address, within `timeoutMs` for everything (the lookup,
 * the connection, the answer), redirects not followed (a 3xx is a failure), at most
 * MAX_ANSWER_BYTES of the answer read. Over a kept-open connection when there is one; if that
 * connection turns out closed by the other side before any answer, once more on a new one. Never
 * rejects: the outcome says what happened.
 */
export async function postWebhook(
  target: string,
  headers: Record<string, string>,
  body: string | Buffer,
  options: { timeoutMs: number; allowPrivate: boolean; onLoop?: (ms: number) => void },
): Promise<SendOutcome> {
  const failed = (error: string): SendOutcome => ({ ok: false, statusCode: null, error, excerpt: null });
  const url = new URL(target);
  const deadline = AbortSignal.timeout(options.timeoutMs);
  const resolved = await resolveTarget(url, options.allowPrivate, deadline);
  if ('refused' in resolved) return failed(deadline.aborted ? `no answer within ${options.timeoutMs} ms` : `refused: ${resolved.refused}`);
  const first = await postOnce(url, resolved, headers, body, deadline, options.timeoutMs, options.onLoop);
  // A kept-open connection the other side had just closed: the request never reached it (or its answer was lost); at least once allows sending it again.
  if ('staleConnection' in first) return deadline.aborted ? failed(`no answer within ${options.timeoutMs} ms`) : postOnce(url, resolved, headers, body, deadline, options.timeoutMs, options.onLoop).then((o) => ('staleConnection' in o ? o.outcome : o));
  return first;
}

/** One attempt on one connection; `staleConnection` when a reused connection failed before any answer. */
function postOnce(
  url: URL,
  resolved: Resolved,
  headers: Record<string, string>,
  body: string | Buffer,
  deadline: AbortSignal,
  timeoutMs: number,
  /** Told the time the request's writing and the answer's reading took on the event loop. */
  onLoop: (ms: number) => void = () => {},
): Promise<SendOutcome | { staleConnection: true; outcome: SendOutcome }> {
  const failed = (error: string, statusCode: number | null = null, excerpt: string | null = null): SendOutcome => ({ ok: false, statusCode, error, excerpt });
  const lookup: LookupFunction = (_host, opts, callback) => {
    if (opts.all) callback(null, [resolved]);
    else callback(null, resolved.address, resolved.family);
  };
  return new Promise((resolve) => {
    let settled = false;
    /** `keep`: the answer was read to its end, so the connection may serve the next delivery. */
    const settle = (outcome: SendOutcome | { staleConnection: true; outcome: SendOutcome }, keep = false) => {
      if (settled) return;
      settled = true;
      deadline.removeEventListener('abort', onTimeout);
      if (!keep) req.destroy();
      resolve(outcome);
    };
    const onTimeout = () => settle(failed(`no answer within ${timeoutMs} ms`));
    const writing = performance.now();
    const client = url.protocol === 'https:' ? https : http;
    const request: http.RequestOptions & Pinned = {
      method: 'POST',
      headers: { ...headers, 'content-type': 'application/json', 'content-length': String(typeof body === 'string' ? Buffer.byteLength(body) : body.length), 'user-agent': 'print-orders-webhooks' },
      agent: agents[url.protocol === 'https:' ? 'https:' : 'http:'],
      pinned: resolved.address,
      lookup,
    };
    let answered = false;
    const req = client.request(url, request);
    req.on('error', (err) => {
      if (!answered && req.reusedSocket && !deadline.aborted) settle({ staleConnection: true, outcome: failed(err.message) });
      else settle(failed(err.message));
    });
    req.on('response', (res) => {
      answered = true;
      const chunks: Buffer[] = [];
      let size = 0;
      const finish = (whole: boolean) => {
        const reading = performance.now();
        const text = Buffer.concat(chunks).subarray(0, MAX_ANSWER_BYTES).toString('utf8');
        const excerpt = text ? excerptOf(text, EXCERPT_CHARS) : null;
        const status = res.statusCode ?? 0;
        if (status >= 200 && status < 300) settle({ ok: true, statusCode: status, error: null, excerpt }, whole);
        else if (status >= 300 && status < 400) settle(failed(`answered ${status} (redirects are not followed)`, status, excerpt), whole);
        else settle(failed(`answered ${status}`, status, excerpt), whole);
        onLoop(performance.now() - reading);
      };
      res.on('error', (err) => settle(failed(err.message, res.statusCode ?? null)));
      res.on('data', (chunk: Buffer) => {
        size += chunk.length;
        chunks.push(chunk);
        // Enough read: the rest of a large answer is not waited for (its connection is closed, not kept).
        if (size >= MAX_ANSWER_BYTES) finish(false);
      });
      res.on('end', () => finish(true));
    });
    if (deadline.aborted) onTimeout();
    else deadline.addEventListener('abort', onTimeout, { once: true });
    req.end(body);
    onLoop(performance.now() - writing);
  });
}
