/**
 * GET /healthz every intervalMs from one keep-alive connection, in its own process so the load
 * client's work does not delay it: what it measures is the service's wait. Started by
 * bench/phase.ts (probeHealth) over IPC: 'stop' → sends the latencies (ms) back and exits.
 * Usage: node --import tsx bench/probe.ts <port> <intervalMs>
 */
import http from 'node:http';
import { request } from './http.js';

const port = Number(process.argv[2]);
const intervalMs = Number(process.argv[3] ?? 25);
const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
const latencies: number[] = [];
let running = true;
let failure: string | undefined;

const loop = (async () => {
  while (running) {
    const res = await request({ port, method: 'GET', path: '/healthz', agent, timeoutMs: 30_000 });
    if (res.status !== 200) throw new Error(`/healthz answered ${res.status}`);
    latencies.push(res.ms);
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
    process.send?.({ latencies, failure }, () => process.exit(0));
  });
});
process.send?.('ready');
