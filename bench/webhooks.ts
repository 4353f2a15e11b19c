/**
 * The webhooks phase of `npm run bench`: runs of 1,000 uploads (changes) with three endpoints
 * listening (two quick, one answering in 2 s) and without (the same endpoints switched off), in
 * turn (without, with, with, without, …: BENCH_ROUNDS pairs, so a drift of the machine weighs on
 * both; a first run warms the service up), each run into a project of its own so both see the same number of documents. Reported:
 * the median upload rate with webhooks beside the median without (goal: within 10 %), every
 * delivery to the quick endpoints made, once each and in order (each run's deliveries are awaited
 * before the next run, so a backlog does not weigh on it), and the slow endpoint not delaying them.
 * An endpoint is delivered in order, one event at a time, so the slow one gets one event per 2 s:
 * its count so far is reported.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { contentBlock, jsonRequest, streamUpload } from './http.js';
import { KiB, fmtMs, runLoad } from './load.js';
import { type BenchContext, cpuMsOf, fmtRatio, median } from './phase.js';

const CHANGES = 1000;
const CLIENTS = 8;
const SIZE = 10 * KiB;
const WAIT_MS = 180_000;

interface Sink {
  url: string;
  ids: string[];
  firstAt: number;
  lastAt: number;
  close(): void;
}

async function sink(delayMs: number): Promise<Sink> {
  const s: Sink = { url: '', ids: [], firstAt: 0, lastAt: 0, close: () => {} };
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('error', () => {});
    req.on('end', () => {
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { data: { document?: { filename: string } } };
      setTimeout(() => {
        s.ids.push(body.data.document?.filename ?? '?');
        s.firstAt ||= Date.now();
        s.lastAt = Date.now();
        res.end('ok');
      }, delayMs);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  s.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
  s.close = () => {
    server.closeAllConnections();
    server.close();
  };
  return s;
}

export async function webhookPhase(ctx: BenchContext): Promise<void> {
  const block = contentBlock(SIZE);
  let runs = 0;
  /** One run: a new approved project, CHANGES uploads into it from CLIENTS clients; the rate and the file names' prefix. */
  const uploads = async () => {
    const label = `run${++runs}`;
    const { body: project } = await jsonRequest<{ id: string }>(ctx.port, 'POST', '/api/projects', { name: `Webhook benchmark ${label}` }, 201, ctx.admin.cookie);
    await jsonRequest(ctx.port, 'POST', `/api/projects/${project.id}/approve`, undefined, 200, ctx.admin.cookie);
    const fields: [string, string][] = [
      ['projectId', project.id],
      ['fileType', 'PO'],
    ];
    const agent = new http.Agent({ keepAlive: true, maxSockets: CLIENTS });
    const cpuBefore = cpuMsOf(ctx.pid);
    try {
      const load = await runLoad(CLIENTS, CHANGES, 10 * 60_000, async (n) => {
        const res = await streamUpload({ port: ctx.port, path: '/api/upload', cookie: ctx.admin.cookie, agent, fields, filename: `${label}-${n}.pdf`, contentType: 'application/pdf', size: SIZE, block, timeoutMs: 30_000 });
        if (res.status !== 201) throw new Error(`upload answered ${res.status}`);
        return res.ms;
      });
      return { rate: load.count / (load.elapsedMs / 1000), label, cpuPerUpload: (cpuMsOf(ctx.pid) - cpuBefore) / load.count };
    } finally {
      agent.destroy();
    }
  };

  const sinks = [await sink(0), await sink(0), await sink(2000)];
  const [fastA, fastB, slow] = sinks as [Sink, Sink, Sink];
  const hooks: string[] = [];
  for (const s of sinks) hooks.push((await jsonRequest<{ id: string }>(ctx.port, 'POST', '/api/webhooks', { url: s.url, events: ['document.uploaded'] }, 201, ctx.admin.cookie)).body.id);
  const switchHooks = async (active: boolean) => {
    for (const id of hooks) await jsonRequest(ctx.port, 'PATCH', `/api/webhooks/${id}`, { active }, 200, ctx.admin.cookie);
  };
  const withRates: number[] = [];
  const withoutRates: number[] = [];
  /** Each round's rate with beside its rate without, measured one after the other. */
  const ratios: number[] = [];
  let allDelivered = true;
  let slowestMs = 0;
  let uploadsMs = 0;
  /** The service's CPU (ms) per upload while the uploads ran, with and without; and per delivery to the quick endpoints after them. */
  const cpuWith: number[] = [];
  const cpuWithout: number[] = [];
  const cpuPerDelivery: number[] = [];
  try {
    // The service's first thousand uploads are slower (its code not yet optimised, its caches cold): not counted.
    ctx.step(`webhooks: ${CHANGES} uploads to warm up, not counted`);
    await switchHooks(false);
    await uploads();
    for (let round = 0; round < ctx.rounds; round++) {
      for (const withHooks of round % 2 ? [true, false] : [false, true]) {
        ctx.step(`webhooks: round ${round + 1}, ${CHANGES} uploads ${withHooks ? 'with 3 endpoints (one answering in 2 s)' : 'with the endpoints switched off'}`);
        await switchHooks(withHooks);
        const seen = [fastA.ids.length, fastB.ids.length];
        const started = Date.now();
        const run = await uploads();
        (withHooks ? withRates : withoutRates).push(run.rate);
        (withHooks ? cpuWith : cpuWithout).push(run.cpuPerUpload);
        if (!withHooks) continue;
        const drainCpu = cpuMsOf(ctx.pid);
        const drained = fastA.ids.length + fastB.ids.length;
        uploadsMs = Math.max(uploadsMs, Date.now() - started);
        const deadline = Date.now() + WAIT_MS;
        while ((fastA.ids.length - seen[0]! < CHANGES || fastB.ids.length - seen[1]! < CHANGES) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
        slowestMs = Math.max(slowestMs, Math.max(fastA.lastAt, fastB.lastAt) - started);
        cpuPerDelivery.push((cpuMsOf(ctx.pid) - drainCpu) / Math.max(1, fastA.ids.length + fastB.ids.length - drained));
        // Eight clients upload at once, so the changes' order is the order they committed in, not the file numbers':
        // both quick endpoints must receive every change of the run once, in that same order.
        const a = fastA.ids.slice(seen[0]);
        const b = fastB.ids.slice(seen[1]);
        const expected = Array.from({ length: CHANGES }, (_, i) => `${run.label}-${i}.pdf`);
        const once = (ids: string[]) => ids.length === CHANGES && new Set(ids).size === CHANGES && expected.every((e) => ids.includes(e));
        allDelivered &&= once(a) && once(b) && a.every((id, i) => b[i] === id);
      }
      ratios.push(withRates.at(-1)! / withoutRates.at(-1)!);
    }
    const withRate = median(withRates);
    const withoutRate = median(withoutRates);
    ctx.report({
      section: 'webhooks',
      metric: `upload rate with 3 webhooks, ${CLIENTS} clients`,
      value: `${withRate.toFixed(1)} /s`,
      reference: `${withoutRate.toFixed(1)} /s without`,
      ratio: withRate / withoutRate,
      goal: { text: 'within 10 % of the rate without', met: withRate >= 0.9 * withoutRate },
      detail: `medians of ${ctx.rounds} runs of ${CHANGES} uploads each, in turn: with ${withRates.map((r) => r.toFixed(0)).join(', ')}; without ${withoutRates.map((r) => r.toFixed(0)).join(', ')}; each round's ratio ${ratios.map(fmtRatio).join(', ')}`,
    });
    ctx.report({
      section: 'webhooks',
      metric: 'service CPU per upload while uploading',
      value: `${median(cpuWith).toFixed(2)} ms with`,
      reference: `${median(cpuWithout).toFixed(2)} ms without`,
      ratio: median(cpuWith) / median(cpuWithout),
      detail: `medians; the deliveries made after the uploads: ${median(cpuPerDelivery).toFixed(2)} ms of service CPU per delivery to a quick endpoint (${cpuPerDelivery.map((c) => c.toFixed(2)).join(', ')})`,
    });
    ctx.report({
      section: 'webhooks',
      metric: 'quick endpoints: every delivery made',
      value: `${fastA.ids.length} + ${fastB.ids.length} of ${2 * CHANGES * withRates.length}`,
      goal: { text: 'all, once each, in order', met: allDelivered },
      detail: `a run's last delivered at most ${fmtMs(slowestMs)} after its first upload; its uploads took at most ${fmtMs(uploadsMs)}`,
    });
    ctx.report({
      section: 'webhooks',
      metric: 'slow endpoint (2 s per answer) meanwhile',
      value: `${slow.ids.length} delivered`,
      goal: { text: 'does not delay the others', met: allDelivered && slow.ids.length < CHANGES },
      detail: 'one endpoint is delivered in order, one event at a time: 0.5 events/s at 2 s an answer',
    });
  } finally {
    for (const id of hooks) await jsonRequest(ctx.port, 'DELETE', `/api/webhooks/${id}`, undefined, 204, ctx.admin.cookie).catch(() => undefined);
    for (const s of sinks) s.close();
  }
}
