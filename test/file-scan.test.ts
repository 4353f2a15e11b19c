/**
 * GET|HEAD /files/* in public mode against a scan of document names (issue 33, item 18), over real
 * HTTP on both databases: an address's run of 404s ends in a JSON 429 with Retry-After for every
 * document (found or not, so the 429 tells nothing), while documents that exist never count, however many.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs/promises';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { FILE_MISSES } from '../src/http/miss-throttle.js';
import { insertFile } from './helpers/projects.js';
import { type TestService, startTestService } from './helpers/service.js';

let svc: TestService;
before(async () => {
  // Behind a proxy, so each test's client names its own address.
  svc = await startTestService({ env: { TRUST_PROXY: 'true', DOCUMENT_ACCESS: 'public' } });
});
after(() => svc.close());

const get = (p: string, address: string, method = 'GET') => fetch(`${svc.url}${p}`, { method, headers: { 'x-forwarded-for': address } });

test('50 thumbnails that exist, three times over, are never throttled; 30 misses are 404s, then every document is a JSON 429 with Retry-After for that address only', async () => {
  const poc = await svc.createUser({ role: 'POC' });
  const project = await svc.createProject(poc.user.id, { name: 'Scanned' });
  const root = svc.deps.storage.servesOwnFiles!.root;
  const files: string[] = [];
  for (let i = 0; i < 50; i++) {
    const f = await insertFile(svc, project.id, 'PO', poc.user.id);
    await fs.mkdir(path.dirname(path.join(root, f.storageKey)), { recursive: true });
    await fs.writeFile(path.join(root, f.storageKey), `%PDF-1.4 thumbnail ${i}`);
    files.push(new URL(f.url).pathname);
  }
  const page = '203.0.113.10';
  for (let round = 0; round < 3; round++) {
    const answers = await Promise.all(files.map((p) => get(p, page)));
    assert.deepEqual([...new Set(answers.map((r) => r.status))], [200], `round ${round}`);
    await Promise.all(answers.map((r) => r.arrayBuffer()));
  }

  // A scan of the likely second's names, from another address.
  const scanner = '198.51.100.7';
  const names = Array.from({ length: 40 }, (_, ms) => `/files/print-orders/${project.id}/po/po_1795800000${String(ms).padStart(3, '0')}.pdf`);
  const statuses: number[] = [];
  for (const name of names) statuses.push((await get(name, scanner, 'HEAD')).status);
  assert.deepEqual(statuses.slice(0, FILE_MISSES.burst), Array(FILE_MISSES.burst).fill(404));
  assert.deepEqual([...new Set(statuses.slice(FILE_MISSES.burst))], [429]);
  const refused = await get(names[0]!, scanner);
  assert.equal(refused.status, 429);
  const wait = Number(refused.headers.get('retry-after'));
  assert.ok(wait >= 1 && wait <= 10, `Retry-After ${wait}`);
  assert.deepEqual(await refused.json(), { error: 'Too many requests for documents that do not exist, try again later' });
  // A hit is refused too while the address waits: a 429 must not tell a found name from a missing one.
  assert.equal((await get(files[0]!, scanner)).status, 429);
  // Everyone else goes on.
  assert.equal((await get(files[0]!, page)).status, 200);
  assert.equal((await get(names[0]!, page)).status, 404);
});
