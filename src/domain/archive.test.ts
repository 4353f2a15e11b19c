import assert from 'node:assert/strict';
import { test } from 'node:test';
import { archiveFilename, archivePaths, safeName } from './archive.js';

test('archivePaths: folders by type, original names made safe and unique ignoring case', () => {
  const files = [
    { id: '1', type: 'PO' as const, filename: 'po.pdf' },
    { id: '2', type: 'PO' as const, filename: 'PO.pdf' },
    { id: '3', type: 'PO' as const, filename: 'po.pdf' },
    { id: '4', type: 'INVOICE' as const, filename: 'po.pdf' },
    { id: '5', type: 'CHALLAN' as const, filename: '../../etc/passwd' },
    { id: '6', type: 'CHALLAN' as const, filename: '..' },
    { id: '7', type: 'CHALLAN' as const, filename: 'noext' },
    { id: '8', type: 'CHALLAN' as const, filename: 'noext' },
    { id: '9', type: 'CHALLAN' as const, filename: '.hidden' },
    { id: '10', type: 'PO' as const, filename: 'po (2).pdf' },
  ];
  assert.deepEqual(Object.fromEntries(archivePaths(files)), {
    '1': 'PO/po.pdf',
    '2': 'PO/PO (2).pdf',
    '3': 'PO/po (3).pdf',
    '4': 'INVOICE/po.pdf',
    '5': 'CHALLAN/.._.._etc_passwd',
    '6': 'CHALLAN/_',
    '7': 'CHALLAN/noext',
    '8': 'CHALLAN/noext (2)',
    '9': 'CHALLAN/.hidden',
    '10': 'PO/po (2) (2).pdf',
  });
});

test('safeName: what Windows refuses or alters, invisible characters and other forms of a name', () => {
  const cases: [string, string][] = [
    ['po.pdf', 'po.pdf'],
    ['résumé ✓.pdf', 'résumé ✓.pdf'],
    ['.hidden', '.hidden'],
    // reserved device names, any case, with or without an extension, spaces before it
    ['CON.pdf', 'CON_.pdf'],
    ['con', 'con_'],
    ['aux', 'aux_'],
    ['NUL.txt', 'NUL_.txt'],
    ['nul .txt', 'nul_.txt'],
    ['Prn.tar.gz', 'Prn_.tar.gz'],
    ['COM1.pdf', 'COM1_.pdf'],
    ['lpt9', 'lpt9_'],
    ['COM0.doc', 'COM0_.doc'],
    ['LPT¹.pdf', 'LPT¹_.pdf'],
    ['CONSOLE.pdf', 'CONSOLE.pdf'],
    ['COM10.pdf', 'COM10.pdf'],
    ['icon.pdf', 'icon.pdf'],
    ['my con.pdf', 'my con.pdf'],
    // trailing dots and spaces, names left empty
    ['x.', 'x'],
    ['report.pdf. . ', 'report.pdf'],
    ['. .', '_'],
    ['..', '_'],
    ['   ', '_'],
    ['', '_'],
    ['\u202e\u200b', '_'],
    // characters Windows refuses, control and line separators
    ['a:b*c?d"e<f>g|h.pdf', 'a_b_c_d_e_f_g_h.pdf'],
    ['../../etc/passwd', '.._.._etc_passwd'],
    ['tab\there\u0085\u2028.pdf', 'tab_here__.pdf'],
    // format characters (bidi controls, zero-width) taken out
    ['invoice\u202egpj.exe', 'invoicegpj.exe'],
    ['\u202aa\u202bb\u202cc\u202dd\u2066e\u2067f\u2068g\u2069h\u200ei\u200fj\u061ck', 'abcdefghijk'],
    ['zero\u200bwidth\ufeff\u00ad.pdf', 'zerowidth.pdf'],
    // NFC
    ['Cafe\u0301.pdf', 'Caf\u00e9.pdf'],
  ];
  for (const [given, safe] of cases) assert.equal(safeName(given), safe, JSON.stringify(given));
});

test('archivePaths: NFC and NFD forms of a name, a name with a trailing dot beside it, and reserved names are told apart', () => {
  const files = [
    { id: '1', type: 'PO' as const, filename: 'Caf\u00e9.pdf' },
    { id: '2', type: 'PO' as const, filename: 'Cafe\u0301.pdf' },
    { id: '3', type: 'PO' as const, filename: 'CAFÉ.pdf' },
    { id: '4', type: 'PO' as const, filename: 'x' },
    { id: '5', type: 'PO' as const, filename: 'x.' },
    { id: '6', type: 'PO' as const, filename: 'x ' },
    { id: '7', type: 'PO' as const, filename: 'CON.pdf' },
    { id: '8', type: 'PO' as const, filename: 'con_.pdf' },
    { id: '9', type: 'PO' as const, filename: 'a\u202eb.pdf' },
    { id: '10', type: 'PO' as const, filename: 'ab.pdf' },
    { id: '11', type: 'PO' as const, filename: '. .' },
    { id: '12', type: 'PO' as const, filename: '' },
  ];
  assert.deepEqual(Object.fromEntries(archivePaths(files)), {
    '1': 'PO/Caf\u00e9.pdf',
    '2': 'PO/Caf\u00e9 (2).pdf',
    '3': 'PO/CAFÉ (3).pdf',
    '4': 'PO/x',
    '5': 'PO/x (2)',
    '6': 'PO/x (3)',
    '7': 'PO/CON_.pdf',
    '8': 'PO/con_ (2).pdf',
    '9': 'PO/ab.pdf',
    '10': 'PO/ab (2).pdf',
    '11': 'PO/_',
    '12': 'PO/_ (2)',
  });
});

test('archiveFilename keeps what any file system accepts', () => {
  assert.equal(archiveFilename('Annual report 2026'), 'Annual-report-2026-documents.zip');
  assert.equal(archiveFilename('../Über/Druck'), '_ber_Druck-documents.zip');
  assert.equal(archiveFilename('***'), '_-documents.zip');
  assert.equal(archiveFilename(''), 'project-documents.zip');
});
