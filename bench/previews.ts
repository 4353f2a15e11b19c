/**
 * The previews phase of npm run bench (issue 28): a 50-page, 20 MB PDF (each page a picture of
 * noise, which does not compress) uploaded once; then
 * - the time to the first page's thumbnail (cold: the rendering process starts too) and from the cache,
 *   with the service's RSS before and at its peak meanwhile, and the rendering process's peak;
 * - /healthz p99 while 20 previews (20 different pages) are asked for at once, beside /healthz p99
 *   with no previews, measured in the same run just before.
 */
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import { RssSampler, memoryOf } from '../test/helpers/child-service.js';
import { pdfOf } from '../test/helpers/pdf.js';
import { HOST } from './http.js';
import { fmtBytes, fmtMs, percentile } from './load.js';
import { type BenchContext, fmtProbe, probeHealth } from './phase.js';

const PAGES = 50;
/** 20 MB over 50 pages: a 365 × 365 RGB picture each (400 KB). */
const SIDE = 365;
const AT_ONCE = 20;
const IDLE_MS = 3000;

/** The processes this one started (the rendering processes of the service). */
function childrenOf(pid: number): number[] {
  try {
    return fs
      .readdirSync(`/proc/${pid}/task`)
      .flatMap((t) => fs.readFileSync(`/proc/${pid}/task/${t}/children`, 'utf8').trim().split(/\s+/).filter(Boolean).map(Number));
  } catch {
    return [];
  }
}

async function get(ctx: BenchContext, path: string): Promise<{ status: number; ms: number; bytes: number }> {
  const started = performance.now();
  const res = await fetch(`http://${HOST}:${ctx.port}${path}`, { headers: { cookie: ctx.admin.cookie } });
  const bytes = (await res.arrayBuffer()).byteLength;
  return { status: res.status, ms: performance.now() - started, bytes };
}

export async function previews(ctx: BenchContext): Promise<void> {
  const pdf = pdfOf(
    Array.from({ length: PAGES }, (_, i) => ({
      content: `0 0 0 rg 20 ${20 + i * 15} 200 10 re f\n`,
      image: { width: SIDE, height: SIDE, rgb: randomBytes(SIDE * SIDE * 3) },
    })),
  );
  ctx.step(`previews: uploading a ${PAGES}-page PDF of ${fmtBytes(pdf.length)}`);
  const project = await fetch(`http://${HOST}:${ctx.port}/api/projects`, {
    method: 'POST',
    headers: { cookie: ctx.admin.cookie, 'content-type': 'application/json', origin: `http://${HOST}:${ctx.port}` },
    body: JSON.stringify({ name: 'Previews benchmark' }),
  }).then((r) => r.json() as Promise<{ id: string }>);
  const approved = await fetch(`http://${HOST}:${ctx.port}/api/projects/${project.id}/approve`, { method: 'POST', headers: { cookie: ctx.admin.cookie, origin: `http://${HOST}:${ctx.port}` } });
  if (approved.status !== 200) throw new Error(`previews: approve answered ${approved.status}`);
  const form = new FormData();
  form.append('projectId', project.id);
  form.append('fileType', 'PO');
  form.append('file', new Blob([new Uint8Array(pdf)], { type: 'application/pdf' }), 'catalogue.pdf');
  const uploaded = await fetch(`http://${HOST}:${ctx.port}/api/upload`, { method: 'POST', headers: { cookie: ctx.admin.cookie, origin: `http://${HOST}:${ctx.port}` }, body: form });
  if (uploaded.status !== 201) throw new Error(`previews: upload answered ${uploaded.status} ${await uploaded.text()}`);
  const { id } = (await uploaded.json()) as { id: string };
  const preview = (page: number, width = 320) => get(ctx, `/api/projects/${project.id}/files/${id}/preview?page=${page}&width=${width}`);

  ctx.step(`previews: /healthz with no previews for ${IDLE_MS / 1000} s (the reference)`);
  const idleProbe = await probeHealth(ctx.port);
  await new Promise((r) => setTimeout(r, IDLE_MS));
  const idle = await idleProbe.stop();

  ctx.step('previews: the first page\'s thumbnail');
  const before = memoryOf(ctx.pid)?.rss ?? NaN;
  const sampler = new RssSampler(ctx.pid, 20).start();
  let rendererPeak = 0;
  const watchRenderer = setInterval(() => {
    for (const child of childrenOf(ctx.pid)) rendererPeak = Math.max(rendererPeak, memoryOf(child)?.rss ?? 0);
  }, 20);
  const cold = await preview(1);
  sampler.stop();
  clearInterval(watchRenderer);
  if (cold.status !== 200) throw new Error(`previews: page 1 answered ${cold.status}`);
  const warm = await preview(1);

  ctx.step(`previews: ${AT_ONCE} previews at once, /healthz meanwhile`);
  const busyProbe = await probeHealth(ctx.port);
  const started = performance.now();
  const all = await Promise.all(Array.from({ length: AT_ONCE }, (_, i) => preview(i + 2)));
  const allMs = performance.now() - started;
  const busy = await busyProbe.stop();
  const failed = all.filter((r) => r.status !== 200).length;
  const idleP99 = percentile(idle.latencies, 99);
  const busyP99 = percentile(busy.latencies, 99);
  const { concurrency } = ctx.config.previews;

  ctx.report({ section: 'previews', metric: `first page's thumbnail of a ${PAGES}-page, ${fmtBytes(pdf.length)} PDF (cold)`, value: fmtMs(cold.ms), detail: `${cold.bytes} bytes of WebP at 320 px; from the cache afterwards: ${fmtMs(warm.ms)}` });
  ctx.report({
    section: 'previews',
    metric: 'service RSS before / peak during the first thumbnail',
    value: `${fmtBytes(before)} / ${fmtBytes(sampler.peak)}`,
    detail: `the rendering process apart: peak ${fmtBytes(rendererPeak)} (bound PREVIEW_MEMORY_MB ${fmtBytes(ctx.config.previews.memoryBytes)})`,
  });
  ctx.report({
    section: 'previews',
    metric: `/healthz p99 while ${AT_ONCE} previews are made at once`,
    value: fmtMs(busyP99),
    reference: `${fmtMs(idleP99)} with no previews`,
    ratio: idleP99 / busyP99,
    detail: `${fmtProbe(busy)}; the ${AT_ONCE} in ${fmtMs(allMs)} (${concurrency} at a time), ${failed} not 200; idle: ${fmtProbe(idle)}`,
  });
}
