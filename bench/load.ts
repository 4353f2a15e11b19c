import fs from 'node:fs';

/** Closed-loop load: `concurrency` clients, each sending its next request when the last one answered. */
export interface LoadResult {
  count: number;
  elapsedMs: number;
  /** Per-request latency in ms, sorted ascending. */
  latencies: number[];
  /** What the load cost the client (this process) meanwhile. */
  client: ClientCpu;
}

/**
 * The client's own CPU over a load: the load generators run in this process, on its one event loop,
 * so a figure taken while that thread was near a core measures the client, not the server.
 */
export interface ClientCpu {
  /** User + system time of the whole bench process (process.cpuUsage), ms. */
  cpuMs: number;
  /** Its main thread's alone (/proc, 10 ms ticks): the event loop every client shares. */
  mainMs: number;
  wallMs: number;
  requests: number;
}

/** From this share of one core on the client's main thread, the client is taken as the bottleneck. */
export const CLIENT_BOUND = 0.85;

const mainThreadMs = (): number => {
  try {
    // Fields 14 and 15 of /proc/self/task/<pid>/stat (after the name in parentheses): user and system ticks of 10 ms.
    const fields = fs.readFileSync(`/proc/self/task/${process.pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
    return (Number(fields[11]) + Number(fields[12])) * 10;
  } catch {
    return NaN; // not Linux: only the whole process's time is known
  }
};

/** Starts measuring the client's CPU; stop() takes the number of requests made meanwhile. */
export function clientCpuMeter(): { stop(requests: number): ClientCpu } {
  const cpu = process.cpuUsage();
  const main = mainThreadMs();
  const started = performance.now();
  return {
    stop: (requests) => {
      const used = process.cpuUsage(cpu);
      return { cpuMs: (used.user + used.system) / 1000, mainMs: mainThreadMs() - main, wallMs: performance.now() - started, requests };
    },
  };
}

/** The client's main thread's share of one core (the whole process's when /proc is not there). */
export const clientShare = (c: ClientCpu): number => (Number.isNaN(c.mainMs) ? c.cpuMs : c.mainMs) / c.wallMs;

/** Whether the client was the bottleneck of that load. */
export const clientBound = (c: ClientCpu): boolean => clientShare(c) >= CLIENT_BOUND;

/** "0.42 ms (61 %)": client CPU per request and its main thread's share of a core; "‼" when the client was the bottleneck. */
export const fmtClientCpu = (c: ClientCpu): string =>
  `${fmtMs(c.cpuMs / Math.max(1, c.requests))} (${(clientShare(c) * 100).toFixed(0)} %)${clientBound(c) ? ' ‼' : ''}`;

/** The median load (by client CPU per request) of several rounds, for the table. */
export function medianClient(loads: ClientCpu[]): ClientCpu | undefined {
  const sorted = [...loads].sort((a, b) => a.cpuMs / Math.max(1, a.requests) - b.cpuMs / Math.max(1, b.requests));
  return sorted[Math.floor((sorted.length - 1) / 2)];
}

/**
 * Runs op from `concurrency` clients until maxCount operations have started or durationMs has
 * passed, whichever comes first. The first failing operation stops every client and is rethrown.
 */
export async function runLoad(concurrency: number, maxCount: number, durationMs: number, op: (n: number) => Promise<number>): Promise<LoadResult> {
  const latencies: number[] = [];
  const meter = clientCpuMeter();
  const started = performance.now();
  const deadline = started + durationMs;
  let issued = 0;
  let failed = false;
  const client = async () => {
    while (!failed && issued < maxCount && performance.now() < deadline) {
      const n = issued++;
      try {
        latencies.push(await op(n));
      } catch (err) {
        failed = true;
        throw err;
      }
    }
  };
  const results = await Promise.allSettled(Array.from({ length: concurrency }, client));
  const rejected = results.find((r): r is PromiseRejectedResult => r.status === 'rejected');
  if (rejected) throw rejected.reason;
  const elapsedMs = performance.now() - started;
  const cpu = meter.stop(latencies.length);
  latencies.sort((a, b) => a - b);
  return { count: latencies.length, elapsedMs, latencies, client: cpu };
}

/** Nearest-rank percentile of an ascending array. */
export function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return NaN;
  const rank = Math.ceil((p / 100) * sorted.length);
  return sorted[Math.min(sorted.length, Math.max(1, rank)) - 1]!;
}

export const MiB = 1024 * 1024;
export const KiB = 1024;

export const fmtBytes = (n: number): string =>
  n >= 1024 * MiB ? `${(n / (1024 * MiB)).toFixed(2)} GiB` : n >= MiB ? `${(n / MiB).toFixed(1)} MiB` : n >= KiB ? `${(n / KiB).toFixed(1)} KiB` : `${n} B`;
export const fmtMs = (ms: number): string => (ms >= 1000 ? `${(ms / 1000).toFixed(2)} s` : `${ms.toFixed(ms < 10 ? 2 : 1)} ms`);

/** Prints rows as an aligned table with a header line. */
export function printTable(headers: string[], rows: string[][]): void {
  const widths = headers.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const line = (cells: string[]) => cells.map((c, i) => c.padEnd(widths[i]!)).join('  ').trimEnd();
  console.log(line(headers));
  console.log(widths.map((w) => '-'.repeat(w)).join('  '));
  for (const r of rows) console.log(line(r));
}
