/**
 * DNS rebinding: the name is resolved once, checked, and the connection goes to that very address;
 * a resolver whose answer changes between the check and the connection cannot move the delivery
 * to loopback.
 */
import assert from 'node:assert/strict';
import dnsCallbacks from 'node:dns';
import dns from 'node:dns/promises';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, mock, test } from 'node:test';
import { postWebhook, resolveTarget } from './send.js';

describe('a webhook target whose DNS answer changes (rebinding)', () => {
  let server: http.Server;
  let port = 0;
  let reached = 0;
  before(async () => {
    server = http.createServer((req, res) => {
      reached++;
      req.resume();
      res.end('ok');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as AddressInfo).port;
  });
  after(() => {
    mock.restoreAll();
    server.close();
  });

  test('public at the check, loopback afterwards: the delivery never reaches loopback, and the name is looked up once', async () => {
    const answers = [[{ address: '1.1.1.1', family: 4 }], [{ address: '127.0.0.1', family: 4 }]];
    let lookups = 0;
    const lookup = mock.method(dns, 'lookup', async () => answers[Math.min(lookups++, answers.length - 1)]);
    // The system resolver, which a connection made by name would ask, already answers loopback.
    const system = mock.method(dnsCallbacks, 'lookup', (_host: string, options: unknown, callback: (...args: unknown[]) => void) => {
      lookups++;
      const cb = typeof options === 'function' ? (options as typeof callback) : callback;
      if (typeof options === 'object' && (options as { all?: boolean }).all) cb(null, [{ address: '127.0.0.1', family: 4 }]);
      else cb(null, '127.0.0.1', 4);
    });
    const outcome = await postWebhook(`http://rebinding.example:${port}/hook`, {}, '{}', { timeoutMs: 1500, allowPrivate: false });
    assert.equal(outcome.ok, false, 'the loopback receiver must not have answered');
    assert.equal(reached, 0);
    assert.equal(lookups, 1);
    lookup.mock.restore();
    system.mock.restore();
  });

  test('loopback at the check: refused before any connection, whatever a later answer would be', async () => {
    let lookups = 0;
    const lookup = mock.method(dns, 'lookup', async () => (lookups++ === 0 ? [{ address: '127.0.0.1', family: 4 }] : [{ address: '1.1.1.1', family: 4 }]));
    const outcome = await postWebhook(`http://rebinding.example:${port}/hook`, {}, '{}', { timeoutMs: 1500, allowPrivate: false });
    assert.match(outcome.error ?? '', /refused: the host rebinding\.example resolves to/);
    assert.equal(reached, 0);
    assert.equal(lookups, 1);
    lookup.mock.restore();
  });

  test('one public and one internal address in the same answer: refused', async () => {
    const lookup = mock.method(dns, 'lookup', async () => [
      { address: '1.1.1.1', family: 4 },
      { address: '10.0.0.5', family: 4 },
    ]);
    const found = await resolveTarget(new URL('http://mixed.example/hook'), false);
    assert.ok('refused' in found);
    lookup.mock.restore();
  });
});

describe('connections kept open between deliveries', () => {
  /** A receiver counting its connections; `drop(n)`: the n-th request on a connection closes it without an answer. */
  async function counting(drop?: (nth: number) => boolean) {
    const seen = { connections: 0, requests: 0 };
    const server = http.createServer((req, res) => {
      seen.requests++;
      const nth = ((req.socket as unknown as { served?: number }).served = ((req.socket as unknown as { served?: number }).served ?? 0) + 1);
      req.resume();
      req.on('end', () => {
        if (drop?.(nth)) req.socket.destroy();
        else res.end('ok');
      });
    });
    server.on('connection', () => seen.connections++);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
    return { seen, url, close: () => new Promise<void>((resolve) => (server.closeAllConnections(), server.close(() => resolve()))) };
  }

  test('deliveries one after another to one endpoint share one connection', async () => {
    const r = await counting();
    try {
      for (let i = 0; i < 5; i++) {
        const outcome = await postWebhook(r.url, {}, `{"n":${i}}`, { timeoutMs: 2000, allowPrivate: true });
        assert.equal(outcome.ok, true, outcome.error ?? '');
      }
      assert.deepEqual(r.seen, { connections: 1, requests: 5 });
    } finally {
      await r.close();
    }
  });

  test('a kept connection the endpoint closed without answering: sent again once on a new one, and delivered', async () => {
    // Every second request on a connection is dropped: the second delivery finds its kept connection closed.
    const r = await counting((nth) => nth === 2);
    try {
      assert.equal((await postWebhook(r.url, {}, '{"n":1}', { timeoutMs: 2000, allowPrivate: true })).ok, true);
      const outcome = await postWebhook(r.url, {}, '{"n":2}', { timeoutMs: 2000, allowPrivate: true });
      assert.equal(outcome.ok, true, outcome.error ?? '');
      assert.deepEqual(r.seen, { connections: 2, requests: 3 });
    } finally {
      await r.close();
    }
  });

  test('an endpoint that drops a new connection: a failed attempt, not sent again', async () => {
    const r = await counting(() => true);
    try {
      const outcome = await postWebhook(r.url, {}, '{}', { timeoutMs: 2000, allowPrivate: true });
      assert.equal(outcome.ok, false);
      assert.equal(r.seen.requests, 1);
    } finally {
      await r.close();
    }
  });
});
