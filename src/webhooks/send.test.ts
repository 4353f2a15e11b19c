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
