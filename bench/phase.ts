/**
 * What a phase of `npm run bench` gets: the running service, the reference server, a signed-in
 * admin, and the report. bench/bench.ts runs its phases in a list; further phases (other files)
 * are added to that list.
 */
import { type ChildProcess, fork } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import type { Config } from '../src/config.js';
import { freePort } from '../test/helpers/service.js';
import { request } from './http.js';
import { type ClientCpu, fmtMs, percentile } from './load.js';

export interface BenchContext {
  config: Config;
  /** The service's port and process id. */
  port: number;
  pid: number;
  admin: { email: string; password: string; cookie: string };
  /** The reference server of bench/reference-server.ts. */
  reference: { port: number; pid: number };
  /** How long each closed-loop load runs, and how many times each comparison is measured (in turn). */
  loadMs: number;
  rounds: number;
  /** The service's METRICS_TOKEN, for its event-loop delay (probeHealth). */
  metricsToken?: string;
  /** Shared between phases (the benchmark project, the seeded users, …). */
  state: Record<string, unknown>;
  report(row: ReportRow): void;
  step(msg: string): void;
}

export interface ReportRow {
  section: string;
  metric: string;
  /** Our figure, formatted. */
  value: string;
  /** The reference's figure in the same run, formatted, when there is one. */
  reference?: string;
  /** ours / reference (higher is better), printed as a percentage or a factor. */
  ratio?: number;
  /** The goal for the ratio or figure, in words (printed with ✓ or ✗). */
  goal?: { text: string; met: boolean };
  detail?: string;
  /** The client's own CPU over our load and over the reference's (bench/load.ts), printed beside the figure; "‼" marks a load the client was the bottleneck of. */
  client?: { ours?: ClientCpu; reference?: ClientCpu };
  /** Server CPU per request, reference / ours (higher is better), printed beside a throughput ratio. */
  cpuRatio?: number;
}

export interface Phase {
  name: string;
  run(ctx: BenchContext): Promise<void>;
}

export const median = (xs: number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  return s.length % 2 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
};

export const fmtRatio = (r: number): string => (r >= 2 ? `${r.toFixed(2)}×` : `${(r * 100).toFixed(0)} %`);

export interface LoopDelay {
  p99: number;
  max: number;
}

/**
 * The service's own event-loop delay over a stretch of time (prom-client's monitorEventLoopDelay,
 * reset by each scrape): read from /metrics at the start and the end. A /healthz probe's latency
 * also counts the time its process and the service wait for a core; this is only the service's
 * event loop being busy.
 */
export async function watchEventLoop(port: number, token: string): Promise<{ stop(): Promise<LoopDelay | undefined> } | undefined> {
  const scrape = async () => {
    const res = await request({ port, method: 'GET', path: '/metrics', headers: { authorization: `Bearer ${token}` }, timeoutMs: 30_000 });
    if (res.status === 404) return undefined; // a build without /metrics (an earlier commit, measured for comparison)
    if (res.status !== 200) throw new Error(`/metrics answered ${res.status}`);
    const text = res.body.toString('utf8');
    const value = (name: string) => Number(new RegExp(`^${name} (\\S+)$`, 'm').exec(text)?.[1] ?? NaN) * 1000;
    return { p99: value('nodejs_eventloop_lag_p99_seconds'), max: value('nodejs_eventloop_lag_max_seconds') };
  };
  return (await scrape()) ? { stop: scrape } : undefined;
}

/**
 * GET /healthz every intervalMs while a load runs (bench/probe.ts, in its own process so the load
 * client's work does not delay it): how long any request waits behind the load. stop() gives the
 * latencies in ms, sorted, and with the service's METRICS_TOKEN its event-loop delay meanwhile.
 */
export async function probeHealth(
  port: number,
  metricsToken?: string,
  intervalMs = 25,
  targets: { path: string; headers?: Record<string, string> }[] = [],
): Promise<{ stop(): Promise<Probed> }> {
  const loop = metricsToken ? await watchEventLoop(port, metricsToken) : undefined;
  const child = fork(path.join(import.meta.dirname, 'probe.ts'), [String(port), String(intervalMs), JSON.stringify(targets)], {
    execArgv: ['--import', 'tsx'],
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    env: { ...process.env, NODE_OPTIONS: '' },
  });
  await new Promise<void>((resolve, reject) => {
    child.once('message', () => resolve());
    child.once('exit', (code) => reject(new Error(`the /healthz probe exited with ${code}`)));
  });
  let stopped: Promise<Probed> | undefined;
  return {
    stop: () =>
      (stopped ??= new Promise<{ latencies: number[]; targets: number[][] }>((resolve, reject) => {
        const timer = setTimeout(() => {
          child.kill('SIGKILL');
          reject(new Error('the /healthz probe did not report within 60 s'));
        }, 60_000);
        child.once('message', (msg: { latencies: number[]; targets: number[][]; failure?: string }) => {
          clearTimeout(timer);
          if (msg.failure) reject(new Error(`/healthz probe: ${msg.failure}`));
          else resolve({ latencies: msg.latencies.sort((a, b) => a - b), targets: msg.targets.map((t) => t.sort((a, b) => a - b)) });
        });
        child.send('stop');
      }).then(async (probed) => ({ ...probed, loop: await loop?.stop() }))),
  };
}

export interface Probed {
  /** /healthz latencies, ms, ascending. */
  latencies: number[];
  /** The further targets' latencies (probeHealth's `targets`, in their order), ms, ascending. */
  targets: number[][];
  /** The service's event-loop delay meanwhile (when it has /metrics). */
  loop?: LoopDelay;
}

export const fmtProbe = ({ latencies: sorted, loop }: Probed): string =>
  `p50 ${fmtMs(percentile(sorted, 50))}, p99 ${fmtMs(percentile(sorted, 99))}, max ${fmtMs(sorted.at(-1) ?? NaN)} (${sorted.length} probes)` +
  (loop ? `; service event-loop delay p99 ${fmtMs(loop.p99)}, max ${fmtMs(loop.max)}` : '');

/** Starts bench/reference-server.ts as its own process, writing its files under dir. */
export async function startReference(dir: string): Promise<{ port: number; pid: number; stop(): Promise<void> }> {
  const port = await freePort();
  fs.mkdirSync(dir, { recursive: true });
  const child: ChildProcess = fork(path.join(import.meta.dirname, 'reference-server.ts'), [String(port), dir], {
    execArgv: ['--import', 'tsx'],
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    env: { ...process.env, NODE_OPTIONS: '' },
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('the reference server did not start within 30 s')), 30_000);
    child.once('message', () => {
      clearTimeout(timer);
      resolve();
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`the reference server exited with ${code}`));
    });
  });
  return {
    port,
    pid: child.pid!,
    async stop() {
      if (child.exitCode !== null) return;
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 5000);
      await exited;
      clearTimeout(timer);
    },
  };
}

/** CPU time (user + system, ms) a process has used so far: what a load cost the server, whatever else the machine was doing. */
export function cpuMsOf(pid: number, thread?: 'main'): number {
  // Fields 14 and 15 of /proc/<pid>/stat, after the command name in parentheses; clock ticks of 10 ms.
  // The main thread's own (its task's id is the process's): the event loop, without the thread pool, GC helpers or workers.
  const fields = fs.readFileSync(thread ? `/proc/${pid}/task/${pid}/stat` : `/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return (Number(fields[11]) + Number(fields[12])) * 10;
}
