import assert from 'node:assert/strict';
import fs from 'node:fs';
import { describe, it } from 'node:test';
import { FONTS, fontBytes, woffToSfnt } from './fonts.js';

/** An sfnt table's checksum: its bytes as big-endian 32-bit words, summed modulo 2³² (the last word padded with zeros). */
function checksum(data: Buffer): number {
  const padded = Buffer.concat([data, Buffer.alloc((4 - (data.length % 4)) % 4)]);
  let sum = 0;
  for (let i = 0; i < padded.length; i += 4) sum = (sum + padded.readUInt32BE(i)) >>> 0;
  return sum;
}

describe('the fonts, unpacked from WOFF once per thread', () => {
  for (const name of ['regular', 'bold'] as const) {
    it(`${name}: every table unpacked whole, at its place in an sfnt directory`, () => {
      const woff = fs.readFileSync(FONTS[name]);
      const sfnt = fontBytes(name);
      assert.equal(fontBytes(name), sfnt, 'unpacked once');
      assert.equal(sfnt.readUInt32BE(0), woff.readUInt32BE(4), 'the flavour');
      const numTables = sfnt.readUInt16BE(4);
      assert.equal(numTables, woff.readUInt16BE(12));
      assert.equal(sfnt.readUInt16BE(6), 16 * 2 ** Math.floor(Math.log2(numTables)), 'searchRange');
      for (let i = 0; i < numTables; i++) {
        const at = 12 + i * 16;
        const tag = sfnt.toString('latin1', at, at + 4);
        const offset = sfnt.readUInt32BE(at + 8);
        const length = sfnt.readUInt32BE(at + 12);
        assert.equal(offset % 4, 0, `${tag} aligned`);
        assert.equal(length, woff.readUInt32BE(44 + i * 20 + 12), `${tag}'s length`);
        // The head table's checksum is computed with its checkSumAdjustment as zero.
        const data = Buffer.from(sfnt.subarray(offset, offset + length));
        if (tag === 'head') data.writeUInt32BE(0, 8);
        assert.equal(checksum(data), sfnt.readUInt32BE(at + 4), `${tag}'s checksum`);
      }
    });
  }

  it('leaves bytes that are not WOFF as they are', () => {
    const other = Buffer.from('not a font at all, not even forty-four bytes long....');
    assert.equal(woffToSfnt(other), other);
  });
});
