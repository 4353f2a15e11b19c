import { type ChildProcess, spawn } from 'node:child_process';
import fs from 'node:fs';
import { request } from './http.js';

/** The service under test, as a child process: `node dist/src/main.js` (what `npm start` runs; `npm run bench` builds it first). */
export interface ServerProcess {
  child: ChildProcess;
  pid: number;
  port: number;
  /** Resolves when the child has exited (whatever the reason). */
  exited: Promise<void>;
  stop(): Promise<void>;
}

export function startServer(root: string, env: Record<string, string>, port: number): ServerProcess {
  const childEnv: Record<string, string | undefined> = { ...process.env };
  // Whatever the caller's shell says about the service, the benchmark's settings are the only ones.
  for (const name of ['DATABASE_URL', 'DATABASE_SCHEMA', 'DATABASE_POOL_SIZE', 'TRUST_PROXY', 'NODE_OPTIONS']) delete childEnv[name];
  Object.assign(childEnv, env);
  const child = spawn(process.execPath, ['dist/src/main.js'], { cwd: root, env: childEnv, stdio: ['ignore', 'inherit', 'inherit'] });
  if (child.pid === undefined) throw new Error('could not start the service');
  const exited = new Promise<void>((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) resolve();
    else child.once('exit', () => resolve());
  });
  let stopping: Promise<void> | undefined;
  return {
    child,
    pid: child.pid,
    port,
    exited,
    stop: () =>
      (stopping ??= (async () => {
        if (child.exitCode !== null || child.signalCode !== null) return;
        child.kill('SIGTERM');
        const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
        await exited;
        clearTimeout(timer);
      })()),
  };
}

/** Polls GET /healthz until it answers 200; fails if the child exits first or after timeoutMs. */
export async function waitHealthy(server: ServerProcess, timeoutMs = 30_000): Promise<void> {
  let gone = false;
  void server.exited.then(() => (gone = true));
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (gone) throw new Error(`the service exited during start-up (code ${server.child.exitCode}, signal ${server.child.signalCode})`);
    try {
      const res = await request({ port: server.port, method: 'GET', path: '/healthz', timeoutMs: 2000 });
      if (res.status === 200) return;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`the service did not answer /healthz within ${timeoutMs} ms`);
}

/** VmRSS and VmHWM of a process, in bytes (Linux /proc); undefined where /proc is not available. */
export function memoryOf(pid: number): { rss: number; hwm: number } | undefined {
  let status: string;
  try {
    status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
  } catch {
    return undefined;
  }
  const kb = (field: string) => Number(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? NaN) * 1024;
  return { rss: kb('VmRSS'), hwm: kb('VmHWM') };
}

/** Samples a process's VmRSS every intervalMs until stopped; keeps the peak, the sample count and the longest gap. */
export class RssSampler {
  peak = 0;
  samples = 0;
  maxGapMs = 0;
  #timer: NodeJS.Timeout | undefined;
  #last = 0;

  constructor(
    private readonly pid: number,
    private readonly intervalMs = 20,
  ) {}

  start(): this {
    this.#last = performance.now();
    this.#sample();
    this.#timer = setInterval(() => this.#sample(), this.intervalMs);
    return this;
  }

  stop(): this {
    clearInterval(this.#timer);
    this.#sample();
    return this;
  }

  #sample(): void {
    const now = performance.now();
    this.maxGapMs = Math.max(this.maxGapMs, now - this.#last);
    this.#last = now;
    const m = memoryOf(this.pid);
    if (!m || Number.isNaN(m.rss)) return;
    this.samples++;
    this.peak = Math.max(this.peak, m.rss);
  }
}
