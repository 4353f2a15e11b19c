/**
 * Previews under one user's flood (issue 33, item 12), over real HTTP on both databases: parallel
 * previews of a heavy PDF at many widths cost one rendering (a failure is remembered for the
 * document), and another user's small preview is served in turn, not after the flood.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs/promises';
import path from 'node:path';
import { after, before, test } from 'node:test';
import type { RenderJob } from '../src/previews/renderer.js';
import { barsPdf, pdfOf } from './helpers/pdf.js';
import { insertFile } from './helpers/projects.js';
import { type Client, type TestService, startTestService } from './helpers/service.js';

/** Long enough for a one-page PDF on a busy machine; the heavy one takes far longer. */
const TIMEOUT_MS = 2500;
let svc: TestService;
let renders: { job: RenderJob; owner: string }[] = [];

before(async () => {
  svc = await startTestService({ env: { PREVIEW_CONCURRENCY: '2', PREVIEW_TIMEOUT_MS: String(TIMEOUT_MS) } });
  const renderer = svc.deps.previews!.renderer;
  const render = renderer.render.bind(renderer);
  renderer.render = (job, owner) => {
    renders.push({ job, owner: owner ?? '' });
    return render(job, owner);
  };
});
after(() => svc.close());

/** Five million strokes, deflated to little: far longer to draw than the bound. */
const heavy = pdfOf([{ content: Buffer.from('0 0 m 595 842 l S\n'.repeat(5_000_000), 'latin1'), deflate: true }]);

/** A document record of the project with these bytes in the local store. */
async function stored(projectId: string, ownerId: string, bytes: Buffer): Promise<string> {
  const f = await insertFile(svc, projectId, 'PO', ownerId);
  const file = path.join(svc.deps.storage.servesOwnFiles!.root, f.storageKey);
  await fs.mkdir(path.dirname(file), { recursive: true });
  await fs.writeFile(file, bytes);
  return f.id;
}

const preview = async (who: Client, projectId: string, fileId: string, width: number) => {
  const res = await fetch(`${svc.url}/api/projects/${projectId}/files/${fileId}/preview?width=${width}`, { headers: { cookie: who.cookie! } });
  await res.arrayBuffer();
  return { status: res.status, at: performance.now() };
};

test('15 parallel previews of one heavy PDF at 15 widths: one rendering, every answer "no preview"; later widths and pages answer at once', async () => {
  const flooder = await svc.signIn('POC');
  const project = await svc.createProject(flooder.user.id, { name: 'Heavy' });
  const id = await stored(project.id, flooder.user.id, heavy);
  renders = [];
  const answers = await Promise.all(Array.from({ length: 15 }, (_, i) => preview(flooder.client, project.id, id, 100 + i)));
  assert.deepEqual([...new Set(answers.map((a) => a.status))], [404]);
  assert.equal(renders.length, 1, 'the document was rendered once');
  const started = performance.now();
  assert.equal((await preview(flooder.client, project.id, id, 640)).status, 404);
  const res = await fetch(`${svc.url}/api/projects/${project.id}/files/${id}/preview?page=2&width=300`, { headers: { cookie: flooder.client.cookie! } });
  assert.equal(res.status, 404);
  assert.equal(renders.length, 1, 'nor again for another width or page');
  assert.ok(performance.now() - started < TIMEOUT_MS, 'answered from the remembered failure');
});

test('one user’s flood of heavy PDFs: another user’s small preview is served in turn, long before the flood ends', async () => {
  const flooder = await svc.signIn('POC');
  const other = await svc.signIn('POC');
  const floodProject = await svc.createProject(flooder.user.id, { name: 'Flood' });
  const smallProject = await svc.createProject(other.user.id, { name: 'Small' });
  const heavyIds: string[] = [];
  for (let i = 0; i < 4; i++) heavyIds.push(await stored(floodProject.id, flooder.user.id, heavy));
  const small = await stored(smallProject.id, other.user.id, barsPdf(1));
  renders = [];
  const flood = heavyIds.flatMap((id) => [200, 300].map((w) => preview(flooder.client, floodProject.id, id, w)));
  // The flood is queued before the small preview is asked.
  while (renders.length < 2) await new Promise((r) => setTimeout(r, 10));
  await new Promise((r) => setTimeout(r, 100));
  const asked = performance.now();
  const mine = await preview(other.client, smallProject.id, small, 320);
  const floodAnswers = await Promise.all(flood);
  assert.equal(mine.status, 200);
  assert.deepEqual([...new Set(floodAnswers.map((a) => a.status))], [404]);
  const after = floodAnswers.filter((a) => a.at > mine.at).length;
  // Served in turn: behind at most the renderings under way, so most of the flood ends after it.
  assert.ok(after >= 4, `the small preview came after ${floodAnswers.length - after} of the flood's ${floodAnswers.length} answers, ${Math.round(mine.at - asked)} ms`);
  assert.equal(renders.filter((r) => r.owner === flooder.user.id).length, heavyIds.length, 'each heavy document rendered once');
});
