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
import { fmtMs, percentile } from './load.js';

export interface BenchContext {
  config: Config;
  /** The service's port and process id. */
  port: number;
  pid: number;
  admin: { email: string; password: string; cookie: string };
  /** The reference server of bench/reference-server.ts. */
  reference: { port: number };
  /** How long each closed-loop load runs, and how many times each comparison is measured (in turn). */
  loadMs: number;
  rounds: number;
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

/**
 * GET /healthz every intervalMs while a load runs (bench/probe.ts, in its own process so the load
 * client's work does not delay it): how long any request waits behind the load. stop() gives the
 * latencies in ms, sorted; call it once.
 */
export async function probeHealth(port: number, intervalMs = 25): Promise<{ stop(): Promise<number[]> }> {
  const child = fork(path.join(import.meta.dirname, 'probe.ts'), [String(port), String(intervalMs)], {
    execArgv: ['--import', 'tsx'],
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    env: { ...process.env, NODE_OPTIONS: '' },
  });
  await new Promise<void>((resolve, reject) => {
    child.once('message', () => resolve());
    child.once('exit', (code) => reject(new Error(`the /healthz probe exited with ${code}`)));
  });
  let stopped: Promise<number[]> | undefined;
  return {
    stop: () =>
      (stopped ??= new Promise<number[]>((resolve, reject) => {
        const timer = setTimeout(() => {
          child.kill('SIGKILL');
          reject(new Error('the /healthz probe did not report within 60 s'));
        }, 60_000);
        child.once('message', (msg: { latencies: number[]; failure?: string }) => {
          clearTimeout(timer);
          if (msg.failure) reject(new Error(`/healthz probe: ${msg.failure}`));
          else resolve(msg.latencies.sort((a, b) => a - b));
        });
        child.send('stop');
      })),
  };
}

export const fmtProbe = (sorted: number[]): string => `p50 ${fmtMs(percentile(sorted, 50))}, p99 ${fmtMs(percentile(sorted, 99))}, max ${fmtMs(sorted.at(-1) ?? NaN)} (${sorted.length} probes)`;

/** Starts bench/reference-server.ts as its own process, writing its files under dir. */
export async function startReference(dir: string): Promise<{ port: number; stop(): Promise<void> }> {
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
    async stop() {
      if (child.exitCode !== null) return;
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 5000);
      await exited;
      clearTimeout(timer);
    },
  };
}
