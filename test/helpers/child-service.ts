import { type ChildProcess, spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { Client, testConfig } from './service.js';

const root = path.resolve(import.meta.dirname, '../..');

/** The service run from source, as the tests run it. */
export const FROM_SOURCE = ['--import', 'tsx', 'src/main.ts'];
/** The built service, as `npm start` runs it (the benchmark measures this). */
export const BUILT = ['dist/src/main.js'];

/** The service as its own process, for memory, signal and benchmark runs. */
export interface ServiceProcess {
  child: ChildProcess;
  pid: number;
  url: string;
  /** Resolves with the exit code once the process has ended. */
  exited: Promise<number | null>;
  /** SIGTERM, then SIGKILL if it has not ended after 10 s. */
  stop(): Promise<void>;
}

/** Starts the service with exactly this environment's service settings and waits until /healthz answers. */
export async function spawnService(env: Record<string, string>, options: { entry?: string[]; startTimeoutMs?: number } = {}): Promise<ServiceProcess> {
  const childEnv: Record<string, string | undefined> = { ...process.env };
  // Settings the caller's shell may hold must not leak into the service under test.
  for (const name of ['DATABASE_URL', 'DATABASE_SCHEMA', 'DATABASE_POOL_SIZE', 'TRUST_PROXY', 'NODE_OPTIONS']) delete childEnv[name];
  Object.assign(childEnv, env);
  const child = spawn(process.execPath, options.entry ?? FROM_SOURCE, { cwd: root, env: childEnv, stdio: ['ignore', 'inherit', 'inherit'] });
  if (child.pid === undefined) throw new Error('could not start the service');
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const ended = () => child.exitCode !== null || child.signalCode !== null;
  let stopping: Promise<void> | undefined;
  const service: ServiceProcess = {
    child,
    pid: child.pid,
    url: `http://127.0.0.1:${env.PORT}`,
    exited,
    stop: () =>
      (stopping ??= (async () => {
        if (ended()) return;
        child.kill('SIGTERM');
        const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
        await exited;
        clearTimeout(timer);
      })()),
  };

  const deadline = Date.now() + (options.startTimeoutMs ?? 30_000);
  for (;;) {
    if (ended()) throw new Error(`the service exited during start-up (code ${child.exitCode}, signal ${child.signalCode})`);
    if (await fetch(`${service.url}/healthz`).then((r) => r.ok, () => false)) return service;
    if (Date.now() > deadline) {
      await service.stop();
      throw new Error('the service did not answer /healthz in time');
    }
    await new Promise((r) => setTimeout(r, 100));
  }
}

export interface ChildService extends ServiceProcess {
  admin: Client;
  dataDir: string;
}

/** A service process on a temporary data dir (the tests' database), with a signed-in admin; stop() also cleans up. */
export async function startChildService(env: Record<string, string> = {}): Promise<ChildService> {
  const admin = { ADMIN_EMAIL: 'admin@example.com', ADMIN_PASSWORD: 'admin-password' };
  const { env: serviceEnv, cleanup, config } = await testConfig({ env: { ...admin, ...env } });
  const service = await spawnService(serviceEnv);
  const client = new Client(service.url);
  const login = await client.post('/api/auth/login', { email: admin.ADMIN_EMAIL, password: admin.ADMIN_PASSWORD });
  if (login.status !== 200) throw new Error(`the child service's admin could not sign in: ${login.status} ${login.text}`);
  return {
    ...service,
    admin: client,
    dataDir: config.dataDir,
    async stop() {
      await service.stop();
      await cleanup();
    },
  };
}

/** VmRSS and VmHWM of a process, in bytes (Linux /proc); undefined once it is gone. */
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

/** A process's RSS once it has settled after the previous request: the highest of a few samples 50 ms apart. */
export async function settledRss(pid: number): Promise<number> {
  let rss = 0;
  for (let i = 0; i < 5; i++) {
    rss = Math.max(rss, memoryOf(pid)?.rss ?? 0);
    await new Promise((r) => setTimeout(r, 50));
  }
  return rss;
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
