/**
 * Issue 20: `npm ci` warned that cookie@2.0.2 and content-disposition@3.0.0 need Node 22 while
 * package.json (and the README) say Node 20.19. Every package the lock file installs must accept
 * the oldest Node that `engines` allows, and the one running the tests.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { test } from 'node:test';

// semver is CommonJS without bundled types; these two functions are all this test needs.
const semver = createRequire(import.meta.url)('semver') as {
  minVersion(range: string): { version: string } | null;
  satisfies(version: string, range: string): boolean;
};

const root = path.resolve(import.meta.dirname, '..');
const readJson = (file: string) => JSON.parse(fs.readFileSync(path.join(root, file), 'utf8'));

test('every package in package-lock.json runs on the oldest Node that package.json allows, and on this one', () => {
  const stated: string = readJson('package.json').engines.node;
  const oldest = semver.minVersion(stated)?.version;
  assert.ok(oldest, `engines.node ${stated} has a lowest version`);
  assert.ok(semver.satisfies(process.versions.node, stated), `this Node (${process.versions.node}) is within ${stated}`);
  const lock = readJson('package-lock.json') as { packages: Record<string, { version?: string; engines?: { node?: string } | string[] }> };
  const refusing: string[] = [];
  for (const [where, pkg] of Object.entries(lock.packages)) {
    const range = Array.isArray(pkg.engines) ? undefined : pkg.engines?.node;
    if (!where || !range) continue;
    for (const node of [oldest!, process.versions.node]) {
      if (!semver.satisfies(node, range)) refusing.push(`${where.replace(/^.*node_modules\//, '')}@${pkg.version} needs Node ${range}, not ${node}`);
    }
  }
  assert.deepEqual(refusing, []);
});
