import assert from 'node:assert/strict';
import { test } from 'node:test';
import { formatMoney, formatShopDate, formatShopDateTime, isoInZone, offsetMinutes } from './shop-format.js';

test('formatMoney: INR in the Indian grouping as the web app shows it, other currencies in the international one, exactly', () => {
  const table: [number | bigint | string, string, string][] = [
    [8761500, 'INR', '₹87,615.00'],
    [12500050, 'INR', '₹1,25,000.50'],
    [1234567890123, 'INR', '₹12,34,56,78,901.23'],
    [5, 'INR', '₹0.05'],
    [900719925474000000n, 'INR', '₹9,00,71,99,25,47,40,000.00'], // beyond a float's digits
    [-150, 'INR', '-₹1.50'],
    [125050, 'USD', '$1,250.50'],
    [8761500, 'EUR', '€87,615.00'],
    [5, 'JPY', '¥5'],
    [1234, 'KWD', 'KWD 1.234'],
  ];
  for (const [amount, currency, expected] of table) assert.equal(formatMoney(amount, currency).replace(/\u00a0/g, ' '), expected, `${amount} ${currency}`);
});

test('formatShopDate: "27 Nov 2026", every month the same short name, a non-date as it is', () => {
  const table: [string, string][] = [
    ['2026-11-27', '27 Nov 2026'],
    ['2026-01-01', '1 Jan 2026'],
    ['2026-09-05', '5 Sep 2026'],
    ['2024-02-29', '29 Feb 2024'],
    ['2026-13-01', '2026-13-01'],
    ['', ''],
  ];
  for (const [day, expected] of table) assert.equal(formatShopDate(day), expected, day);
});

test('isoInZone: the same instant written with the shop’s offset; formatShopDateTime: its wall clock', () => {
  const table: [string, string, string, string][] = [
    // stored (UTC), TIMEZONE, CSV, email
    ['2026-11-27T14:05:12.345Z', 'Asia/Kolkata', '2026-11-27T19:35:12.345+05:30', '27 Nov 2026, 19:35'],
    ['2026-11-27T20:00:00.000Z', 'Asia/Kolkata', '2026-11-28T01:30:00.000+05:30', '28 Nov 2026, 01:30'], // the shop's next day
    ['2026-11-27T14:05:12.345Z', 'UTC', '2026-11-27T14:05:12.345+00:00', '27 Nov 2026, 14:05'],
    ['2026-07-01T03:00:00.000Z', 'America/New_York', '2026-06-30T23:00:00.000-04:00', '30 Jun 2026, 23:00'], // summer time
    ['2026-01-01T03:00:00.000Z', 'America/New_York', '2025-12-31T22:00:00.000-05:00', '31 Dec 2025, 22:00'],
    ['2026-11-27T14:05:00.000Z', 'Asia/Kathmandu', '2026-11-27T19:50:00.000+05:45', '27 Nov 2026, 19:50'],
    ['2026-11-27T14:05:00.000Z', 'Pacific/Chatham', '2026-11-28T03:50:00.000+13:45', '28 Nov 2026, 03:50'],
  ];
  for (const [iso, zone, csv, email] of table) {
    assert.equal(isoInZone(iso, zone), csv, `${iso} ${zone}`);
    assert.equal(Date.parse(isoInZone(iso, zone)), Date.parse(iso), 'the same instant');
    assert.equal(formatShopDateTime(iso, zone), email, `${iso} ${zone}`);
  }
  assert.equal(offsetMinutes(new Date('2026-11-27T00:00:00Z'), 'Asia/Kolkata'), 330);
  assert.equal(isoInZone('not a time', 'UTC'), 'not a time');
});
