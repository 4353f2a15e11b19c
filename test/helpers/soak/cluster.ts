/**
 * The soak's instances and its chaos: two built services (dist/src/main.js) on one environment
 * each, started together; every `killEveryMs` one of them, chosen at random, is killed with SIGKILL
 * and started again on the same port, while the other goes on serving.
 */
import { BUILT, type ServiceProcess, spawnService } from '../child-service.js';

/** How long a (re)started instance may take to answer /healthz on a loaded machine. */
const START_TIMEOUT_MS = 120_000;

export interface Instance {
  name: string;
  env: Record<string, string>;
  url: string;
  process: ServiceProcess | undefined;
  /** False from the kill until /healthz answers again. */
  up: boolean;
}

export interface Kill {
  instance: string;
  atSecond: number;
  /** From the SIGKILL until /healthz answered again. */
  downMs: number;
}

export class Cluster {
  readonly instances: Instance[];
  readonly kills: Kill[] = [];
  #started = Date.now();

  constructor(envs: Record<string, string>[]) {
    this.instances = envs.map((env, i) => ({ name: String.fromCharCode(65 + i), env, url: `http://127.0.0.1:${env.PORT}`, process: undefined, up: false }));
  }

  /** Together, as a rollout starts them: the migration runs once under its advisory lock. */
  async start(): Promise<void> {
    await Promise.all(this.instances.map((i) => this.#spawn(i)));
    this.#started = Date.now(); // kills are timed from here, as the load is
  }

  /** When the instances were started (Date.now()): the kills' seconds count from it. */
  get startedAt(): number {
    return this.#started;
  }

  /** An instance that is up, at random; undefined while none is. */
  pick(): Instance | undefined {
    const up = this.instances.filter((i) => i.up);
    return up[Math.floor(Math.random() * up.length)];
  }

  /** SIGKILL to one instance at random, then the same instance started again. */
  async killOne(): Promise<Kill> {
    const victim = this.instances[Math.floor(Math.random() * this.instances.length)]!;
    const atSecond = Math.round((Date.now() - this.#started) / 1000);
    const killedAt = Date.now();
    // Requests in flight on it are cut mid-way; only once it is gone do clients stop choosing it (a balancer's health check).
    if (victim.process) {
      victim.process.child.kill('SIGKILL');
      await victim.process.exited;
    }
    victim.up = false;
    await this.#spawn(victim);
    const kill = { instance: victim.name, atSecond, downMs: Date.now() - killedAt };
    this.kills.push(kill);
    return kill;
  }

  /** Every instance up (one may have failed to come back). */
  async ensureUp(): Promise<void> {
    for (const i of this.instances) if (!i.up) await this.#spawn(i);
  }

  /** SIGTERM to each (SIGKILL after 10 s: spawnService's stop). */
  async stop(): Promise<void> {
    for (const i of this.instances) i.up = false;
    await Promise.all(this.instances.map((i) => i.process?.stop()));
  }

  async #spawn(instance: Instance): Promise<void> {
    let lastError: unknown;
    for (let attempt = 0; attempt < 3; attempt++) {
      try {
        instance.process = await spawnService(instance.env, { entry: BUILT, startTimeoutMs: START_TIMEOUT_MS });
        instance.up = true;
        return;
      } catch (err) {
        lastError = err;
        await new Promise((r) => setTimeout(r, 1000));
      }
    }
    throw new Error(`instance ${instance.name} did not start: ${String(lastError)}`);
  }
}

/** Kills one instance every `everyMs` until `signal` aborts (the cluster keeps the kills). */
export async function runChaos(cluster: Cluster, everyMs: number, signal: AbortSignal, log: (line: string) => void): Promise<void> {
  const started = Date.now();
  for (let k = 1; ; k++) {
    // On a fixed beat from the start: a slow restart does not stretch the period.
    const waited = await sleep(Math.max(0, started + k * everyMs - Date.now()), signal);
    if (!waited) return;
    const kill = await cluster.killOne();
    log(`SIGKILL to instance ${kill.instance} at ${kill.atSecond} s; it answered again after ${(kill.downMs / 1000).toFixed(1)} s`);
  }
}

/** Resolves true after `ms`, or false as soon as `signal` aborts. */
export function sleep(ms: number, signal?: AbortSignal): Promise<boolean> {
  return new Promise((resolve) => {
    if (signal?.aborted) return resolve(false);
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve(true);
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      resolve(false);
    };
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
