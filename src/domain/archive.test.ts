import assert from 'node:assert/strict';
import { test } from 'node:test';
import { archiveFilename, archivePaths } from './archive.js';

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

test('archiveFilename keeps what any file system accepts', () => {
  assert.equal(archiveFilename('Annual report 2026'), 'Annual-report-2026-documents.zip');
  assert.equal(archiveFilename('../Über/Druck'), '_ber_Druck-documents.zip');
  assert.equal(archiveFilename('***'), '_-documents.zip');
  assert.equal(archiveFilename(''), 'project-documents.zip');
});
