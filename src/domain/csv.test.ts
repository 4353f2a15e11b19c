import assert from 'node:assert/strict';
import { test } from 'node:test';
import { CSV_BOM, csvField, csvHeader, csvLine } from './csv.js';

test('csvField: RFC 4180 quoting and the formula prefix', () => {
  const cases: [Parameters<typeof csvField>[0], string][] = [
    ['plain', 'plain'],
    ['', ''],
    [null, ''],
    [0, '0'],
    [125, '125'],
    [true, 'true'],
    [false, 'false'],
    ['a,b', '"a,b"'],
    ['say "hi"', '"say ""hi"""'],
    ['"', '""""'],
    ['line\nbreak', '"line\nbreak"'],
    ['carriage\rreturn', '"carriage\rreturn"'],
    ['crlf\r\nend', '"crlf\r\nend"'],
    ['=SUM(A1:A2)', "'=SUM(A1:A2)"],
    ['+91 98000', "'+91 98000"],
    ['-1.50', "'-1.50"],
    ['@cmd', "'@cmd"],
    ['=HYPERLINK("http://x","y")', `"'=HYPERLINK(""http://x"",""y"")"`],
    ['=1,2', `"'=1,2"`],
    ['a=b', 'a=b'],
    [' =not first', ' =not first'],
    ["'already", "'already"],
    ['Ünïcødé ₹', 'Ünïcødé ₹'],
    ['125000.00', '125000.00'],
  ];
  for (const [value, expected] of cases) assert.equal(csvField(value), expected, JSON.stringify(value));
});

test('csvLine: fields joined by commas, ended by CRLF', () => {
  assert.equal(csvLine(['a', null, 'b,c', 3, false]), 'a,,"b,c",3,false\r\n');
  assert.equal(csvLine([]), '\r\n');
});

test('csvHeader: the byte-order mark once, then the header line', () => {
  const header = csvHeader(['id', 'name']);
  assert.equal(header, '\uFEFFid,name\r\n');
  assert.equal(header.split(CSV_BOM).length, 2);
  assert.equal(csvLine(['id', 'name']).includes(CSV_BOM), false);
});
