/**
 * The webhooks phase of `npm run bench`: 1,000 uploads (changes) without webhooks, then 1,000 with
 * three endpoints listening (two quick, one answering in 2 s), measured in the same run: the upload
 * rate with webhooks beside the rate without (goal: within 10 %), every delivery to the quick
 * endpoints made, once each and in order, and the slow endpoint not delaying them. An endpoint is
 * delivered in order, one event at a time, so the slow one gets one event per 2 s: its count so far is reported.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { contentBlock, jsonRequest, streamUpload } from './http.js';
import { KiB, fmtMs, runLoad } from './load.js';
import type { BenchContext } from './phase.js';

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
  const { body: project } = await jsonRequest<{ id: string }>(ctx.port, 'POST', '/api/projects', { name: 'Webhook benchmark' }, 201, ctx.admin.cookie);
  await jsonRequest(ctx.port, 'POST', `/api/projects/${project.id}/approve`, undefined, 200, ctx.admin.cookie);
  const fields: [string, string][] = [
    ['projectId', project.id],
    ['fileType', 'PO'],
  ];
  const block = contentBlock(SIZE);
  const uploads = async (label: string) => {
    const agent = new http.Agent({ keepAlive: true, maxSockets: CLIENTS });
    try {
      const load = await runLoad(CLIENTS, CHANGES, 10 * 60_000, async (n) => {
        const res = await streamUpload({ port: ctx.port, path: '/api/upload', cookie: ctx.admin.cookie, agent, fields, filename: `${label}-${n}.pdf`, contentType: 'application/pdf', size: SIZE, block, timeoutMs: 30_000 });
        if (res.status !== 201) throw new Error(`upload answered ${res.status}`);
        return res.ms;
      });
      return load.count / (load.elapsedMs / 1000);
    } finally {
      agent.destroy();
    }
  };

  ctx.step(`webhooks: ${CHANGES} uploads without webhooks`);
  const without = await uploads('plain');
  const sinks = [await sink(0), await sink(0), await sink(2000)];
  const hooks: string[] = [];
  for (const s of sinks) hooks.push((await jsonRequest<{ id: string }>(ctx.port, 'POST', '/api/webhooks', { url: s.url, events: ['document.uploaded'] }, 201, ctx.admin.cookie)).body.id);
  try {
    ctx.step(`webhooks: ${CHANGES} uploads with 3 endpoints (one answering in 2 s)`);
    const started = Date.now();
    const withHooks = await uploads('hooked');
    const uploadsEnded = Date.now();
    const [fastA, fastB, slow] = sinks as [Sink, Sink, Sink];
    const deadline = Date.now() + WAIT_MS;
    while ((fastA.ids.length < CHANGES || fastB.ids.length < CHANGES) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
    const expected = Array.from({ length: CHANGES }, (_, i) => `hooked-${i}.pdf`);
    // Eight clients upload at once, so the changes' order is the order they committed in, not the file numbers':
    // both quick endpoints must receive every change once, in that same order.
    const once = (s: Sink) => s.ids.length === CHANGES && new Set(s.ids).size === CHANGES;
    const sameOrder = fastA.ids.every((id, i) => fastB.ids[i] === id);
    const quickDone = Math.max(fastA.lastAt, fastB.lastAt) - started;
    ctx.report({
      section: 'webhooks',
      metric: `upload rate with 3 webhooks, ${CLIENTS} clients`,
      value: `${withHooks.toFixed(1)} /s`,
      reference: `${without.toFixed(1)} /s without`,
      ratio: withHooks / without,
      goal: { text: 'within 10 % of the rate without', met: withHooks >= 0.9 * without },
      detail: `${CHANGES} uploads each, same run`,
    });
    ctx.report({
      section: 'webhooks',
      metric: 'quick endpoints: every delivery made',
      value: `${fastA.ids.length} + ${fastB.ids.length} of ${2 * CHANGES}`,
      goal: { text: 'all, once each, in order', met: once(fastA) && once(fastB) && sameOrder && expected.every((e) => fastA.ids.includes(e)) },
      detail: `last delivered ${fmtMs(quickDone)} after the first upload; uploads took ${fmtMs(uploadsEnded - started)}`,
    });
    ctx.report({
      section: 'webhooks',
      metric: 'slow endpoint (2 s per answer) meanwhile',
      value: `${slow.ids.length} delivered`,
      goal: { text: 'does not delay the others', met: quickDone < WAIT_MS && slow.ids.length < CHANGES },
      detail: 'one endpoint is delivered in order, one event at a time: 0.5 events/s at 2 s an answer',
    });
  } finally {
    for (const id of hooks) await jsonRequest(ctx.port, 'DELETE', `/api/webhooks/${id}`, undefined, 204, ctx.admin.cookie).catch(() => undefined);
    for (const s of sinks) s.close();
  }
}
