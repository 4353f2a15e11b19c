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
 * One POST of a webhook: to the checked address, within `timeoutMs` for everything (the lookup,
 * the connection, the answer), redirects not followed (a 3xx is a failure), at most
 * MAX_ANSWER_BYTES of the answer read. Never rejects: the outcome says what happened.
 */
export async function postWebhook(
  target: string,
  headers: Record<string, string>,
  body: string | Buffer,
  options: { timeoutMs: number; allowPrivate: boolean },
): Promise<SendOutcome> {
  const failed = (error: string, statusCode: number | null = null, excerpt: string | null = null): SendOutcome => ({ ok: false, statusCode, error, excerpt });
  const url = new URL(target);
  const deadline = AbortSignal.timeout(options.timeoutMs);
  const resolved = await resolveTarget(url, options.allowPrivate, deadline);
  if ('refused' in resolved) return failed(deadline.aborted ? `no answer within ${options.timeoutMs} ms` : `refused: ${resolved.refused}`);
  const lookup: LookupFunction = (_host, opts, callback) => {
    if (opts.all) callback(null, [resolved]);
    else callback(null, resolved.address, resolved.family);
  };
  return new Promise<SendOutcome>((resolve) => {
    let settled = false;
    const settle = (outcome: SendOutcome) => {
      if (settled) return;
      settled = true;
      deadline.removeEventListener('abort', onTimeout);
      req.destroy();
      resolve(outcome);
    };
    const onTimeout = () => settle(failed(`no answer within ${options.timeoutMs} ms`));
    const client = url.protocol === 'https:' ? https : http;
    const req = client.request(url, {
      method: 'POST',
      headers: { ...headers, 'content-type': 'application/json', 'content-length': String(typeof body === 'string' ? Buffer.byteLength(body) : body.length), 'user-agent': 'print-orders-webhooks' },
      agent: false,
      lookup,
    });
    req.on('error', (err) => settle(failed(err.message)));
    req.on('response', (res) => {
      const chunks: Buffer[] = [];
      let size = 0;
      const finish = () => {
        const text = Buffer.concat(chunks).subarray(0, MAX_ANSWER_BYTES).toString('utf8');
        const excerpt = text ? excerptOf(text, EXCERPT_CHARS) : null;
        const status = res.statusCode ?? 0;
        if (status >= 200 && status < 300) settle({ ok: true, statusCode: status, error: null, excerpt });
        else if (status >= 300 && status < 400) settle(failed(`answered ${status} (redirects are not followed)`, status, excerpt));
        else settle(failed(`answered ${status}`, status, excerpt));
      };
      res.on('error', (err) => settle(failed(err.message, res.statusCode ?? null)));
      res.on('data', (chunk: Buffer) => {
        size += chunk.length;
        chunks.push(chunk);
        // Enough read: the rest of a large answer is not waited for.
        if (size >= MAX_ANSWER_BYTES) finish();
      });
      res.on('end', finish);
    });
    if (deadline.aborted) onTimeout();
    else deadline.addEventListener('abort', onTimeout, { once: true });
    req.end(body);
  });
}
