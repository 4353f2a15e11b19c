/**
 * The money phase of `npm run bench` (issue 37):
 * 1. A 50-line PI (GET /api/projects/:id/pi.pdf), one at a time: ms per PDF (wall, and the service's
 *    CPU per PDF, its rendering threads included) — goal under 300 ms.
 * 2. /healthz while 4 clients fetch that PI back to back: p99 beside /healthz p99 on the idle service
 *    measured just before (the reference) — goal under 20 ms.
 * 3. Invoices issued at 50 requests a second for a few seconds (open loop: a request every 20 ms
 *    whatever the answers) at dispatched projects: every answer 201 and the numbers consecutive, no gap
 *    and no repeat, after the register's last (goal: exact).
 * The machine may be shared with other work: every figure is printed beside its same-run reference.
 */
import { gstinCheckCharacter } from '../src/domain/gstin.js';
import { openDatabase } from '../src/db/index.js';
import { silentLog } from '../src/logger.js';
import { jsonRequest, request } from './http.js';
import { fmtMs, percentile, runLoad } from './load.js';
import { type BenchContext, cpuMsOf, fmtProbe, median, probeHealth } from './phase.js';

const PDF = { lines: 50, warmup: 3, count: 12, renderers: 4, goalMs: 300, healthGoalMs: 20 };
const ISSUE = { perSecond: 50, seconds: Number(process.env.BENCH_MONEY_ISSUE_SECONDS ?? 4) };

const gstin = (first14: string) => first14 + gstinCheckCharacter(first14)!;

export async function moneyPhase(ctx: BenchContext): Promise<void> {
  const { port } = ctx;
  const cookie = ctx.admin.cookie;
  await jsonRequest(port, 'PATCH', '/api/settings/shop', { name: 'Bench Printers', address: '12 MG Road, Bengaluru 560001', gstin: gstin('29ABCDE1234F1Z'), bankDetails: 'HDFC Bank, A/c 50200012345678, IFSC HDFC0001234' }, 200, cookie);
  const { body: customer } = await jsonRequest<{ id: string }>(port, 'POST', '/api/customers', { name: 'Bench Customer Pvt Ltd', gstin: gstin('27AAPFU0939F1Z'), billingAddress: 'Plot 4, MIDC, Pune 411019' }, 201, cookie);
  const items = Array.from({ length: PDF.lines }, (_, i) => ({
    description: `Visiting cards, design ${i + 1}: 350 gsm art card, matt lamination both sides, rounded corners`,
    quantity: 100 * (i + 1),
    unit: 'pcs',
    unitPrice: 125 + i * 7,
    hsnSac: '4911',
    gstRate: [5, 12, 18][i % 3],
  }));
  const { body: project } = await jsonRequest<{ id: string }>(port, 'POST', '/api/projects', { name: 'Money benchmark (50 lines)', customerId: customer.id, items }, 201, cookie);
  const piPath = `/api/projects/${project.id}/pi.pdf`;
  const getPdf = async () => {
    const started = performance.now();
    const res = await request({ port, method: 'GET', path: piPath, headers: { cookie }, timeoutMs: 120_000 });
    if (res.status !== 200 || res.body.subarray(0, 5).toString('latin1') !== '%PDF-') throw new Error(`GET ${piPath} answered ${res.status}: ${res.body.toString('utf8').slice(0, 200)}`);
    return performance.now() - started;
  };

  ctx.step(`money: the 50-line PI, ${PDF.warmup} to warm up, then ${PDF.count} one at a time`);
  for (let i = 0; i < PDF.warmup; i++) await getPdf();
  const cpuBefore = cpuMsOf(ctx.pid);
  const mainBefore = cpuMsOf(ctx.pid, 'main');
  const times: number[] = [];
  for (let i = 0; i < PDF.count; i++) times.push(await getPdf());
  const cpuPerPdf = (cpuMsOf(ctx.pid) - cpuBefore) / PDF.count;
  const mainPerPdf = (cpuMsOf(ctx.pid, 'main') - mainBefore) / PDF.count;
  times.sort((a, b) => a - b);

  ctx.step('money: /healthz on the idle service (the reference), then while 4 clients fetch the PI');
  const idleProbe = await probeHealth(port, ctx.metricsToken);
  await new Promise((r) => setTimeout(r, Math.min(ctx.loadMs, 5000)));
  const idle = await idleProbe.stop();
  const busyProbe = await probeHealth(port, ctx.metricsToken);
  const load = await runLoad(PDF.renderers, 100_000, ctx.loadMs, getPdf);
  const busy = await busyProbe.stop();
  const idleP99 = percentile(idle.latencies, 99);
  const busyP99 = percentile(busy.latencies, 99);

  ctx.report({
    section: 'money',
    metric: `a ${PDF.lines}-line PI as a PDF (GET pi.pdf, one at a time), median`,
    value: fmtMs(median(times)),
    reference: `${fmtMs(idleP99)} (/healthz p99, idle)`,
    goal: { text: `< ${PDF.goalMs} ms`, met: median(times) < PDF.goalMs },
    detail: `p90 ${fmtMs(percentile(times, 90))}, max ${fmtMs(times.at(-1)!)}; the service's CPU per PDF ${fmtMs(cpuPerPdf)} (its threads included), ${fmtMs(mainPerPdf)} on the event loop's thread`,
  });
  ctx.report({
    section: 'money',
    metric: `/healthz p99 while ${PDF.renderers} clients fetch the 50-line PI`,
    value: fmtMs(busyP99),
    reference: `${fmtMs(idleP99)} (idle)`,
    ratio: idleP99 / busyP99,
    goal: { text: `< ${PDF.healthGoalMs} ms`, met: busyP99 < PDF.healthGoalMs },
    detail: `busy ${fmtProbe(busy)}; idle ${fmtProbe(idle)}; PDFs ${(load.count / (load.elapsedMs / 1000)).toFixed(1)}/s, each ${fmtMs(percentile(load.latencies, 50))} p50 (queued behind one another)`,
  });

  if (ISSUE.seconds > 0) await issueAtRate(ctx, customer.id);
}

/** Projects to invoice: made through the API with two priced lines, then moved to DISPATCHED in the database (the steps between are not what is measured). */
async function dispatchedProjects(ctx: BenchContext, customerId: string, count: number): Promise<string[]> {
  const ids: string[] = [];
  const items = [
    { description: 'Letterheads, 100 gsm', quantity: 1000, unitPrice: 350, hsnSac: '4911', gstRate: 18 },
    { description: 'Envelopes, 9 × 4', quantity: 500, unitPrice: 225, hsnSac: '4817', gstRate: 12 },
  ];
  await runLoad(4, count, 600_000, async (n) => {
    const { body } = await jsonRequest<{ id: string }>(ctx.port, 'POST', '/api/projects', { name: `Invoice benchmark ${n + 1}`, customerId, items }, 201, ctx.admin.cookie);
    ids.push(body.id);
    return 0;
  });
  const database = await openDatabase(ctx.config.database, silentLog);
  try {
    await database.db.updateTable('projects').set({ status: 'DISPATCHED', pi_status: 'VERIFIED', approval_status: 'APPROVED' }).where('id', 'in', ids).execute();
  } finally {
    await database.destroy();
  }
  return ids;
}

async function issueAtRate(ctx: BenchContext, customerId: string): Promise<void> {
  const total = ISSUE.perSecond * ISSUE.seconds;
  ctx.step(`money: ${total} dispatched projects, then their invoices at ${ISSUE.perSecond} requests/s`);
  const ids = await dispatchedProjects(ctx, customerId, total);
  const register = async () => (await jsonRequest<{ items: { number: string; sequence?: number }[] }>(ctx.port, 'GET', '/api/invoices?limit=500', undefined, 200, ctx.admin.cookie)).body.items.map((i) => i.number);
  const before = await register();
  const lastBefore = Math.max(0, ...before.map((n) => Number(n.split('/').at(-1))));

  const answers: Promise<{ status: number; number: string | null; ms: number }>[] = [];
  const started = performance.now();
  for (let i = 0; i < total; i++) {
    // Open loop: the i-th request leaves at i × 20 ms, whether or not the earlier ones were answered.
    const wait = started + (i * 1000) / ISSUE.perSecond - performance.now();
    if (wait > 0) await new Promise((r) => setTimeout(r, wait));
    const sent = performance.now();
    answers.push(
      request({ port: ctx.port, method: 'POST', path: `/api/projects/${ids[i]}/invoice`, headers: { cookie: ctx.admin.cookie, 'content-type': 'application/json' }, body: '{}', timeoutMs: 120_000 }).then((res) => ({
        status: res.status,
        number: res.status === 201 ? (JSON.parse(res.body.toString('utf8')) as { number: string }).number : null,
        ms: performance.now() - sent,
      })),
    );
  }
  const sentOver = performance.now() - started;
  const done = await Promise.all(answers);
  const allAnsweredMs = performance.now() - started;
  const refused = done.filter((a) => a.status !== 201);
  const sequences = done.flatMap((a) => (a.number ? [Number(a.number.split('/').at(-1))] : [])).sort((a, b) => a - b);
  const expected = Array.from({ length: total }, (_, i) => lastBefore + 1 + i);
  const exact = refused.length === 0 && sequences.length === total && sequences.every((s, i) => s === expected[i]);
  const after = await register();
  const inRegister = after.length === before.length + total && new Set(after).size === after.length;
  const latencies = done.map((a) => a.ms).sort((a, b) => a - b);
  const problems = [
    refused.length ? `${refused.length} refused (${[...new Set(refused.map((r) => r.status))].join(', ')})` : '',
    sequences.length !== new Set(sequences).size ? 'a number repeated' : '',
    !exact && refused.length === 0 ? `numbers ${sequences[0]}…${sequences.at(-1)} not ${expected[0]}…${expected.at(-1)} without gaps` : '',
    inRegister ? '' : `the register holds ${after.length - before.length} new numbers`,
  ].filter(Boolean);
  ctx.report({
    section: 'money',
    metric: `invoices issued at ${ISSUE.perSecond} requests/s for ${ISSUE.seconds} s (${total})`,
    value: exact && inRegister ? `${total} numbers, consecutive, no gap or repeat` : problems.join('; '),
    reference: `${ISSUE.perSecond}/s offered`,
    ratio: total / (allAnsweredMs / 1000) / ISSUE.perSecond,
    goal: { text: 'numbering exact', met: exact && inRegister },
    detail: `sent over ${fmtMs(sentOver)}, all answered after ${fmtMs(allAnsweredMs)} (${(total / (allAnsweredMs / 1000)).toFixed(1)}/s); each p50 ${fmtMs(percentile(latencies, 50))}, p99 ${fmtMs(percentile(latencies, 99))}`,
  });
}
