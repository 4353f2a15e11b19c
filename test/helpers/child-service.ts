import { type ChildProcess, spawn } from 'node:child_process';
import path from 'node:path';
import { Client, testConfig } from './service.js';

const root = path.resolve(import.meta.dirname, '../..');

export interface ChildService {
  child: ChildProcess;
  url: string;
  admin: Client;
  dataDir: string;
  /** Resolves with the exit code once the process has ended. */
  exited: Promise<number | null>;
  stop(): Promise<void>;
}

/** Runs the service as its own process (for memory and signal tests), with a signed-in admin. */
export async function startChildService(env: Record<string, string> = {}): Promise<ChildService> {
  const admin = { ADMIN_EMAIL: 'admin@example.com', ADMIN_PASSWORD: 'admin-password' };
  const { env: serviceEnv, cleanup, config } = await testConfig({ env: { ...admin, ...env } });
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts'], {
    cwd: root,
    env: { ...process.env, ...serviceEnv },
    stdio: ['ignore', 'inherit', 'inherit'],
  });
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const url = `http://127.0.0.1:${config.port}`;
  const deadline = Date.now() + 20_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`service exited with ${child.exitCode}`);
    const up = await fetch(`${url}/healthz`).then((r) => r.ok, () => false);
    if (up) break;
    if (Date.now() > deadline) throw new Error('service did not start in 20 s');
    await new Promise((r) => setTimeout(r, 100));
  }
  const client = new Client(url);
  await client.post('/api/auth/login', { email: admin.ADMIN_EMAIL, password: admin.ADMIN_PASSWORD });
  return {
    child,
    url,
    admin: client,
    dataDir: config.dataDir,
    exited,
    async stop() {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
      await exited;
      await cleanup();
    },
  };
}

/** Current resident set size of a process, in bytes (Linux). */
export async function rssOf(pid: number): Promise<number> {
  const { readFile } = await import('node:fs/promises');
  const status = await readFile(`/proc/${pid}/status`, 'utf8');
  return Number(/VmRSS:\s+(\d+) kB/.exec(status)?.[1] ?? 0) * 1024;
}
