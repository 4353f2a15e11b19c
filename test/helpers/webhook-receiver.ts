import { createHmac, timingSafeEqual } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';

/** One request a receiver got. */
export interface Received {
  headers: http.IncomingHttpHeaders;
  body: string;
  at: number;
}

/** What the receiver answers, decided per request: a status (and headers), after an optional delay. */
export type Answer = { status: number; headers?: Record<string, string>; delayMs?: number; body?: string };

/** A real HTTP server standing in for a customer's endpoint: it keeps what it got and answers as told. */
export interface Receiver {
  url: string;
  port: number;
  received: Received[];
  answer: (req: Received) => Answer;
  close(): Promise<void>;
}

export async function startReceiver(answer: Receiver['answer'] = () => ({ status: 200, body: 'ok' }), port = 0): Promise<Receiver> {
  const receiver: Receiver = { url: '', port: 0, received: [], answer, close: async () => {} };
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('error', () => {});
    req.on('end', () => {
      const got: Received = { headers: req.headers, body: Buffer.concat(chunks).toString('utf8'), at: Date.now() };
      receiver.received.push(got);
      const a = receiver.answer(got);
      // Unref'd: an answer held long (a test's hung endpoint) does not keep the process alive once the server is closed.
      setTimeout(() => {
        if (res.destroyed) return;
        res.writeHead(a.status, a.headers);
        res.end(a.body ?? '');
      }, a.delayMs ?? 0).unref();
    });
  });
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  receiver.port = (server.address() as AddressInfo).port;
  receiver.url = `http://127.0.0.1:${receiver.port}/hook`;
  receiver.close = () =>
    new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
  return receiver;
}

/**
 * The Standard Webhooks verification, written here apart from the service's signer: the HMAC-SHA256
 * of "<webhook-id>.<webhook-timestamp>.<body>" keyed with the secret's base64 after "whsec_", against
 * each "v1,<base64>" of the webhook-signature header. Answers which of the given secrets signed it.
 */
export function verifiedBy(secrets: string[], r: Received): string[] {
  const id = String(r.headers['webhook-id']);
  const timestamp = String(r.headers['webhook-timestamp']);
  const signatures = String(r.headers['webhook-signature'] ?? '')
    .split(' ')
    .filter((s) => s.startsWith('v1,'))
    .map((s) => Buffer.from(s.slice(3), 'base64'));
  return secrets.filter((secret) => {
    const expected = createHmac('sha256', Buffer.from(secret.replace(/^whsec_/, ''), 'base64')).update(`${id}.${timestamp}.${r.body}`).digest();
    return signatures.some((s) => s.length === expected.length && timingSafeEqual(s, expected));
  });
}
