import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import { packageRoot } from '../package-root.js';

/**
 * The shop's PDFs are written in IBM Plex Sans Devanagari (OFL-1.1, assets/fonts with its licence):
 * one family that covers Latin (with ₹) and Devanagari, so a line mixing an English description and a
 * Hindi one needs no switching of fonts per run; fontkit (inside pdfkit) shapes Devanagari and
 * pdfkit embeds a subset with a ToUnicode map, so text extraction finds the words. The two files are
 * kept in the repository rather than taken from npm: the npm package's postinstall runs IBM's
 * telemetry, which would report a shop's dependencies from every CI install.
 */
const root = path.join(packageRoot() ?? process.cwd(), 'assets', 'fonts');

export const FONTS = {
  regular: path.join(root, 'IBMPlexSansDevanagari-Regular.woff'),
  bold: path.join(root, 'IBMPlexSansDevanagari-SemiBold.woff'),
} as const;

export type FontName = keyof typeof FONTS;

/**
 * The fonts as plain OpenType (sfnt) bytes, read and unpacked once per thread. The package ships
 * WOFF only, and fontkit inflates a WOFF table each time it reads from it: once per glyph drawn,
 * measured or embedded, so a 50-line document inflated the glyph table thousands of times (about
 * 80 % of its CPU). Unpacked once, fontkit reads the tables in place.
 */
const unpacked = new Map<FontName, Buffer>();

export function fontBytes(name: FontName): Buffer {
  let bytes = unpacked.get(name);
  if (!bytes) {
    bytes = woffToSfnt(fs.readFileSync(FONTS[name]));
    unpacked.set(name, bytes);
  }
  return bytes;
}

/**
 * A WOFF 1.0 file (https://www.w3.org/TR/WOFF/) as the sfnt it packs: the same tables, each
 * inflated when stored compressed, behind an sfnt header and table directory. Bytes that are not
 * WOFF are returned as they are.
 */
export function woffToSfnt(woff: Buffer): Buffer {
  if (woff.length < 44 || woff.toString('latin1', 0, 4) !== 'wOFF') return woff;
  const flavor = woff.readUInt32BE(4);
  const numTables = woff.readUInt16BE(12);
  const tables: { tag: number; checksum: number; data: Buffer }[] = [];
  for (let i = 0; i < numTables; i++) {
    const at = 44 + i * 20;
    const tag = woff.readUInt32BE(at);
    const offset = woff.readUInt32BE(at + 4);
    const compLength = woff.readUInt32BE(at + 8);
    const origLength = woff.readUInt32BE(at + 12);
    const checksum = woff.readUInt32BE(at + 16);
    const stored = woff.subarray(offset, offset + compLength);
    const data = compLength < origLength ? zlib.inflateSync(stored) : Buffer.from(stored);
    if (data.length !== origLength) throw new Error(`WOFF table ${i}: ${data.length} bytes unpacked, ${origLength} expected`);
    tables.push({ tag, checksum, data });
  }
  const pad4 = (n: number) => (n + 3) & ~3;
  let entrySelector = 0;
  while (2 ** (entrySelector + 1) <= numTables) entrySelector++;
  const searchRange = 2 ** entrySelector * 16;
  const headerLength = 12 + numTables * 16;
  const out = Buffer.alloc(headerLength + tables.reduce((s, t) => s + pad4(t.data.length), 0));
  out.writeUInt32BE(flavor, 0);
  out.writeUInt16BE(numTables, 4);
  out.writeUInt16BE(searchRange, 6);
  out.writeUInt16BE(entrySelector, 8);
  out.writeUInt16BE(numTables * 16 - searchRange, 10);
  let offset = headerLength;
  tables.forEach((t, i) => {
    const at = 12 + i * 16;
    out.writeUInt32BE(t.tag, at);
    out.writeUInt32BE(t.checksum, at + 4);
    out.writeUInt32BE(offset, at + 8);
    out.writeUInt32BE(t.data.length, at + 12);
    t.data.copy(out, offset);
    offset += pad4(t.data.length);
  });
  return out;
}
