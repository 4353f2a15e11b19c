/** Closed-loop load: `concurrency` clients, each sending its next request when the last one answered. */
export interface LoadResult {
  count: number;
  elapsedMs: number;
  /** Per-request latency in ms, sorted ascending. */
  latencies: number[];
}

/**
 * Runs op from `concurrency` clients until maxCount operations have started or durationMs has
 * passed, whichever comes first. The first failing operation stops every client and is rethrown.
 */
export async function runLoad(concurrency: number, maxCount: number, durationMs: number, op: (n: number) => Promise<number>): Promise<LoadResult> {
  const latencies: number[] = [];
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
  latencies.sort((a, b) => a - b);
  return { count: latencies.length, elapsedMs, latencies };
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
