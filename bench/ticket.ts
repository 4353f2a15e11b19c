/**
 * The job ticket phase of `npm run bench` (issue 35, item 5): a 50-line ticket (every field of every
 * line filled, a Devanagari customer, held and rush) fetched as the ADMIN, GET
 * /api/projects/:id/ticket.pdf. Measured: one ticket at a time, its time and the service's CPU per
 * ticket (main thread and PDF threads); then /healthz p99 while 4 tickets render at once, printed
 * beside the same run's /healthz p99 with nothing rendering. Goals: a ticket under 300 ms; /healthz
 * p99 under 20 ms while 4 render.
 */
import { jsonRequest, request } from './http.js';
import { fmtMs, percentile } from './load.js';
import { type BenchContext, cpuMsOf, fmtProbe, probeHealth } from './phase.js';

const LINES = 50;
const AT_ONCE = 4;
const GOALS = { ticketMs: 300, healthP99Ms: 20 };

const line = (i: number) => ({
  description: `Line ${i} visiting cards, 350 gsm art card, both sides`,
  quantity: 1000 * i,
  unit: 'pcs',
  size: '90 x 50 mm',
  stock: 'Art card 350 gsm matte',
  colours: 'CMYK + Pantone 286 C',
  finishing: 'Matte lamination, round corners',
  notes: i % 5 === 0 ? 'नाम सुनहरे अक्षरों में, पीछे पता' : `Cut to bleed, pack in hundreds (${i})`,
});

export async function ticketPhase(ctx: BenchContext): Promise<void> {
  const { port } = ctx;
  const cookie = ctx.admin.cookie;
  const customer = await jsonRequest<{ id: string }>(port, 'POST', '/api/customers', { name: `शर्मा प्रिंटर्स Bench ${Date.now()}` }, 201, cookie);
  const project = await jsonRequest<{ id: string }>(
    port,
    'POST',
    '/api/projects',
    { name: 'Bench ticket', customerId: customer.body.id, items: Array.from({ length: LINES }, (_, i) => line(i + 1)), dueDate: '2031-01-15', reference: 'PO-BENCH', deliveryAddress: '12 MG Road, Bengaluru 560001' },
    201,
    cookie,
  );
  const id = project.body.id;
  await jsonRequest(port, 'PATCH', `/api/projects/${id}/details`, { rush: true }, 200, cookie);
  await jsonRequest(port, 'POST', `/api/projects/${id}/hold`, { reason: 'Waiting for the gold foil' }, 200, cookie);

  const ticket = async () => {
    const res = await request({ port, method: 'GET', path: `/api/projects/${id}/ticket.pdf`, headers: { cookie }, timeoutMs: 120_000 });
    if (res.status !== 200) throw new Error(`ticket.pdf answered ${res.status}: ${res.body.toString('utf8').slice(0, 200)}`);
    return res;
  };
  // Warm: the PDF threads start (and load the fonts) on first use.
  ctx.step('ticket: warming the PDF threads');
  await Promise.all(Array.from({ length: AT_ONCE }, ticket));
  const size = (await ticket()).bytes;

  // The reference: /healthz with nothing rendering, the same probe, the same run.
  const idle = await probeHealth(port, ctx.config.metricsToken ?? undefined);
  await new Promise((r) => setTimeout(r, Math.min(ctx.loadMs, 8000)));
  const idleProbe = await idle.stop();

  // One at a time: each ticket's time, and the service's CPU (every thread of it) per ticket.
  ctx.step('ticket: one at a time');
  const times: number[] = [];
  const cpuBefore = cpuMsOf(ctx.pid);
  const mainBefore = cpuMsOf(ctx.pid, 'main');
  const until = performance.now() + ctx.loadMs;
  while (performance.now() < until || times.length < 10) times.push((await ticket()).ms);
  const cpuPer = (cpuMsOf(ctx.pid) - cpuBefore) / times.length;
  const mainPer = (cpuMsOf(ctx.pid, 'main') - mainBefore) / times.length;
  times.sort((a, b) => a - b);
  const p50 = percentile(times, 50);
  ctx.report({
    section: 'job ticket',
    metric: `${LINES}-line ticket, one at a time (p50)`,
    value: fmtMs(p50),
    goal: { text: `< ${GOALS.ticketMs} ms`, met: p50 < GOALS.ticketMs },
    detail: `p95 ${fmtMs(percentile(times, 95))}, ${times.length} tickets of ${(size / 1024).toFixed(0)} KiB; service CPU ${fmtMs(cpuPer)} per ticket (event loop ${fmtMs(mainPer)})`,
  });

  // AT_ONCE clients, each fetching tickets back to back, while /healthz is probed.
  ctx.step(`ticket: ${AT_ONCE} at once, /healthz probed`);
  const busy = await probeHealth(port, ctx.config.metricsToken ?? undefined);
  const loaded: number[] = [];
  const end = performance.now() + ctx.loadMs;
  await Promise.all(
    Array.from({ length: AT_ONCE }, async () => {
      while (performance.now() < end) loaded.push((await ticket()).ms);
    }),
  );
  const busyProbe = await busy.stop();
  loaded.sort((a, b) => a - b);
  const busyP99 = percentile(busyProbe.latencies, 99);
  const idleP99 = percentile(idleProbe.latencies, 99);
  ctx.report({
    section: 'job ticket',
    metric: `/healthz p99 while ${AT_ONCE} tickets render`,
    value: fmtMs(busyP99),
    reference: `${fmtMs(idleP99)} (nothing rendering)`,
    ratio: idleP99 / busyP99,
    goal: { text: `p99 < ${GOALS.healthP99Ms} ms`, met: busyP99 < GOALS.healthP99Ms },
    detail: `while: ${fmtProbe(busyProbe)}; idle: ${fmtProbe(idleProbe)}; tickets meanwhile ${loaded.length}, p50 ${fmtMs(percentile(loaded, 50))}`,
  });
}
