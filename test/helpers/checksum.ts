import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/** What the sha256sum command says of these bytes. */
export function sha256sum(bytes: Buffer): string {
  const file = path.join(os.tmpdir(), `sha256sum-${process.pid}-${randomBytes(4).toString('hex')}`);
  fs.writeFileSync(file, bytes);
  try {
    return execFileSync('sha256sum', [file], { encoding: 'utf8' }).split(' ')[0]!;
  } finally {
    fs.rmSync(file, { force: true });
  }
}
