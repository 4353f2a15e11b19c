import assert from 'node:assert/strict';
import { test } from 'node:test';
import { AppError } from '../errors.js';
import { documentsAsOf, embeddedIpv4s, failedTooLong, internalAddressReason, ipv6Bytes, parseWebhookEvents, parseWebhookUrl, subscribesTo, webhookBackoffMs } from './webhooks.js';

test('internal addresses are refused, public ones pass', () => {
  const table: [string, boolean][] = [
    ['127.0.0.1', true], ['10.0.0.1', true], ['169.254.169.254', true], ['172.16.5.4', true], ['192.168.1.1', true], ['100.64.0.1', true], ['0.0.0.0', true], ['224.0.0.1', true],
    ['::1', true], ['::', true], ['fe80::1', true], ['fd00::1', true], ['::ffff:127.0.0.1', true], ['::ffff:7f00:1', true], ['64:ff9b::a00:1', true], ['localhost', true],
    ['93.184.216.34', false], ['8.8.8.8', false], ['2606:4700:4700::1111', false], ['::ffff:8.8.8.8', false], ['172.32.0.1', false],
  ];
  for (const [ip, refused] of table) assert.equal(internalAddressReason(ip) !== null, refused, ip);
});

test('IPv6 forms that carry an internal IPv4 address are refused, with the address they carry; their public twins pass (issue 33, item 15)', () => {
  const table: [string, string | null][] = [
    // written form → the internal IPv4 it carries (null: public, accepted)
    ['2002:7f00:1::', '127.0.0.1'], // 6to4
    ['2002:a9fe:a9fe::', '169.254.169.254'],
    ['2002:c0a8:101::1', '192.168.1.1'],
    ['2002:a00:1:1234::5', '10.0.0.1'],
    ['2002:808:808::', null],
    ['64:ff9b::7f00:1', '127.0.0.1'], // NAT64 well-known prefix
    ['64:ff9b::169.254.169.254', '169.254.169.254'],
    ['64:ff9b::808:808', null],
    ['::ffff:7f00:1', '127.0.0.1'], // IPv4-mapped
    ['0:0:0:0:0:ffff:127.0.0.1', '127.0.0.1'],
    ['::ffff:0:7f00:1', '127.0.0.1'], // SIIT
    ['::ffff:0:a9fe:a9fe', '169.254.169.254'],
    ['::ffff:0:808:808', null],
    ['::7f00:1', '127.0.0.1'], // IPv4-compatible
    ['::10.1.2.3', '10.1.2.3'],
    ['2001:0:4136:e378:8000:63bf:80ff:fffe', '127.0.0.1'], // Teredo, client 127.0.0.1 XOR-ed
    ['2001:0:a9fe:a9fe::1', '169.254.169.254'], // Teredo, server
    ['2001:0:4136:e378:8000:63bf:f7f7:f7f7', null], // Teredo between public addresses (client 8.8.8.8)
    ['2606:4700::5efe:7f00:1', '127.0.0.1'], // ISATAP interface identifier
    ['2606:4700::200:5efe:c0a8:101', '192.168.1.1'],
  ];
  for (const [ip, carried] of table) {
    const reason = internalAddressReason(ip);
    if (carried === null) assert.equal(reason, null, ip);
    else assert.equal(reason, `${ip} is an internal address (it carries ${carried})`, ip);
  }
  // Blocks of their own whatever they carry: NAT64 local use (RFC 8215), benchmarking, ORCHID, documentation (3fff::/20), SRv6.
  for (const ip of ['64:ff9b:1::808:808', '64:ff9b:1:ffff::1', '2001:2::1', '2001:10::1', '2001:20::1', '3fff::1', '5f00::1']) assert.notEqual(internalAddressReason(ip), null, ip);
  for (const ip of ['2606:4700:4700::1111', '2a00:1450:4001::200e', '2001:4860:4860::8888']) assert.equal(internalAddressReason(ip), null, ip);
  assert.deepEqual(embeddedIpv4s('::'), ['0.0.0.0']);
  assert.deepEqual(embeddedIpv4s('8.8.8.8'), []);
  assert.deepEqual([...ipv6Bytes('1:2::ffff:1.2.3.4')!], [0, 1, 0, 2, 0, 0, 0, 0, 0, 0, 255, 255, 1, 2, 3, 4]);
  assert.equal(ipv6Bytes('1::2::3'), null);
});

test('events: a non-empty list of known ones or "*"; urls: http(s) without credentials', () => {
  assert.deepEqual(parseWebhookEvents(['project.created', 'project.created', '*']), ['project.created', '*']);
  for (const bad of [[], 'project.created', ['project.deleted'], [1], null]) assert.ok(parseWebhookEvents(bad) instanceof AppError, JSON.stringify(bad));
  assert.ok(subscribesTo(['*'], 'comment.added'));
  assert.ok(!subscribesTo(['project.created'], 'project.updated'));
  for (const bad of ['ftp://x.com', 'http://u:p@x.com', 'x', 42, `https://x.com/${'a'.repeat(2001)}`]) assert.ok(parseWebhookUrl(bad) instanceof AppError, String(bad).slice(0, 40));
  assert.ok(parseWebhookUrl('https://erp.example.com/hook') instanceof URL);
});

test('backoff doubles to its bound with ±20 % jitter; 24 hours of failure switch an endpoint off', () => {
  const retry = { baseMs: 1000, maxMs: 5000 };
  assert.deepEqual([1, 2, 3, 4, 10].map((n) => webhookBackoffMs(n, retry, 0.5)), [1000, 2000, 4000, 5000, 5000]);
  assert.equal(webhookBackoffMs(1, retry, 0), 800);
  assert.equal(webhookBackoffMs(1, retry, 1), 1200);
  const day = 24 * 3_600_000;
  assert.equal(failedTooLong(null, '2026-01-02T00:00:00.000Z', day), false);
  assert.equal(failedTooLong('2026-01-01T00:00:01.000Z', '2026-01-02T00:00:00.000Z', day), false);
  assert.equal(failedTooLong('2026-01-01T00:00:00.000Z', '2026-01-02T00:00:00.000Z', day), true);
});

test('documentsAsOf: the documents recorded by the event, withdrawn only if that happened by then', () => {
  const doc = (id: string, createdAt: string, voidedAt: string | null = null) => ({
    id,
    createdAt,
    voidedAt,
    voidedById: voidedAt && 'u1',
    voidReason: voidedAt && 'wrong customer',
    voidedByName: voidedAt && 'Asha',
  });
  const files = [doc('d', '2026-11-24T10:00:03.000Z'), doc('c', '2026-11-24T10:00:02.000Z', '2026-11-24T10:00:05.000Z'), doc('b', '2026-11-24T10:00:01.000Z', '2026-11-24T10:00:02.000Z'), doc('a', '2026-11-24T10:00:00.000Z')];
  const cases: [string, string[], string[]][] = [
    // at: listed (newest first as given), of those the withdrawn
    ['2026-11-24T09:59:59.999Z', [], []],
    ['2026-11-24T10:00:00.000Z', ['a'], []],
    ['2026-11-24T10:00:01.999Z', ['b', 'a'], []],
    ['2026-11-24T10:00:02.000Z', ['c', 'b', 'a'], ['b']],
    ['2026-11-24T10:00:04.000Z', ['d', 'c', 'b', 'a'], ['b']],
    ['2026-11-24T10:00:05.000Z', ['d', 'c', 'b', 'a'], ['c', 'b']],
  ];
  for (const [at, listed, withdrawn] of cases) {
    const got = documentsAsOf(files, at);
    assert.deepEqual(got.map((f) => f.id), listed, `listed at ${at}`);
    assert.deepEqual(got.filter((f) => f.voidedAt !== null).map((f) => f.id), withdrawn, `withdrawn at ${at}`);
    for (const f of got.filter((f) => f.voidedAt === null)) assert.deepEqual([f.voidedById, f.voidReason, f.voidedByName], [null, null, null], `${f.id} standing at ${at}`);
  }
  assert.equal(files[1]!.voidedAt, '2026-11-24T10:00:05.000Z', 'the rows read are left as they are');
});
