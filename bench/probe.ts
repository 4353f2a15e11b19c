/**
 * GET /healthz every intervalMs from one keep-alive connection, in its own process so the load
 * client's work does not delay it: what it measures is the service's wait. Started by
 * bench/phase.ts (probeHealth) over IPC: 'stop' → sends the latencies (ms) back and exits.
 * Further targets (a JSON list of {path, headers?} as the third argument) are asked in turn with
 * /healthz through the same connection, each round /healthz first: their latencies come back per
 * target (`targets`), the same run's floor beside them.
 * Usage: node --import tsx bench/probe.ts <port> <intervalMs> [targets-json]
 */
import http from 'node:http';
import { request } from './http.js';

const port = Number(process.argv[2]);
const intervalMs = Number(process.argv[3] ?? 25);
const extra = JSON.parse(process.argv[4] ?? '[]') as { path: string; headers?: Record<string, string> }[];
const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
const latencies: number[] = [];
const targets: number[][] = extra.map(() => []);
let running = true;
let failure: string | undefined;

const get = async (path: string, headers?: Record<string, string>) => {
  const res = await request({ port, method: 'GET', path, headers, agent, timeoutMs: 30_000 });
  if (res.status !== 200) throw new Error(`${path} answered ${res.status}`);
  return res.ms;
};

const loop = (async () => {
  while (running) {
    latencies.push(await get('/healthz'));
    for (const [i, t] of extra.entries()) targets[i]!.push(await get(t.path, t.headers));
    await new Promise((r) => setTimeout(r, intervalMs));
  }
})().catch((err: unknown) => {
  failure = String(err);
});

process.on('message', (msg) => {
  if (msg !== 'stop') return;
  running = false;
  void loop.then(() => {
    agent.destroy();
    process.send?.({ latencies, targets, failure }, () => process.exit(0));
  });
});
process.send?.('ready');
