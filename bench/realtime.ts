/**
 * npm run bench:realtime: 10,000 open SSE streams on one instance (memory driver), measured from
 * outside against a reference measured in the same run on the same machine:
 *
 * - fan-out: from an upload's 201 to its project-updated on the last stream that may see it, p50/p99;
 *   the reference is a bare node:http SSE server writing one message to as many connections
 *   (no session, no database, no scope), from its POST's answer to the last receipt;
 * - scope: the streams that may not see the project receive nothing;
 * - server RSS with the streams open, against the same service without them;
 * - replay: a reconnecting stream that missed 1,000 events receives them all.
 *
 * SQLite by default; BENCH_DATABASE_URL=postgres://… runs it on a fresh schema there (dropped after).
 */
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import http from 'node:http';
import os from 'node:os';
import { fileURLToPath } from 'node:url';
import { hashToken } from '../src/actions/auth.js';
import { nowIso } from '../src/deps.js';
import { openDatabase } from '../src/db/index.js';
import { createStore } from '../src/db/store.js';
import { newId } from '../src/ids.js';
import { silentLog } from '../src/logger.js';
import { hashPassword } from '../src/passwords.js';
import { BUILT, type ServiceProcess, memoryOf, spawnService } from '../test/helpers/child-service.js';
import { testConfig } from '../test/helpers/service.js';
import { HOST, jsonRequest, request } from './http.js';
import { fmtBytes, fmtMs, percentile, printTable } from './load.js';

const STREAMS = Number(process.env.BENCH_STREAMS ?? 10_000);
/** Sessions the streams are spread over: half admins (they see everything), half POCs (they see their own). */
const SESSIONS = 100;
const ROUNDS = 20;
const REPLAY_EVENTS = 1000;

const step = (msg: string) => console.error(`[bench:realtime] ${msg}`);

/** An open SSE connection that remembers when each message naming an id arrived. */
interface Listener {
  /** When the nth (1-based) message about this id arrived. */
  seen(id: string, nth?: number): number | undefined;
  close(): void;
}

/** Opens `count` SSE connections to `path` (with the given cookie per connection), resolving once each has its opening bytes. */
async function openMany(port: number, path: (i: number) => string, headers: (i: number) => Record<string, string>, count: number): Promise<Listener[]> {
  const agent = new http.Agent({ keepAlive: false, maxSockets: Infinity });
  const open = (i: number) =>
    new Promise<Listener>((resolve, reject) => {
      const arrivals = new Map<string, number[]>();
      let buffer = '';
      const req = http.get({ host: HOST, port, path: path(i), headers: headers(i), agent }, (res) => {
        if (res.statusCode !== 200) return reject(new Error(`stream ${i}: ${res.statusCode}`));
        res.setEncoding('utf8');
        let opened = false;
        res.on('data', (chunk: string) => {
          if (!opened) {
            opened = true;
            resolve({ seen: (id, nth = 1) => arrivals.get(id)?.[nth - 1], close: () => req.destroy() });
          }
          buffer += chunk;
          let end;
          while ((end = buffer.indexOf('\n\n')) >= 0) {
            const block = buffer.slice(0, end);
            buffer = buffer.slice(end + 2);
            const m = /"id":"([^"]+)"/.exec(block);
            if (m) {
              const times = arrivals.get(m[1]!) ?? [];
              times.push(performance.now());
              arrivals.set(m[1]!, times);
            }
          }
        });
        res.on('error', () => {});
      });
      req.on('error', reject);
    });
  // A burst of connects can overflow a listen backlog (a reset): try such a connection again.
  const openWithRetry = async (i: number): Promise<Listener> => {
    for (let attempt = 1; ; attempt++) {
      try {
        return await open(i);
      } catch (err) {
        if (attempt === 5) throw err;
        await new Promise((r) => setTimeout(r, 50 * attempt));
      }
    }
  };
  const listeners: Listener[] = [];
  for (let i = 0; i < count; i += 250) {
    listeners.push(...(await Promise.all(Array.from({ length: Math.min(250, count - i) }, (_, j) => openWithRetry(i + j)))));
  }
  return listeners;
}

/** Waits until every listener has seen the needle; the time of the last arrival (or throws after timeoutMs). */
async function lastArrival(listeners: Listener[], needle: string, nth = 1, timeoutMs = 10_000): Promise<number> {
  const deadline = performance.now() + timeoutMs;
  for (;;) {
    let last = 0;
    let missing = 0;
    for (const l of listeners) {
      const t = l.seen(needle, nth);
      if (t === undefined) missing++;
      else last = Math.max(last, t);
    }
    if (!missing) return last;
    if (performance.now() > deadline) throw new Error(`${missing} of ${listeners.length} streams did not receive ${needle}`);
    await new Promise((r) => setTimeout(r, 2));
  }
}

/** The reference: a bare SSE server; POST /emit?id=… writes one message to every open connection, then answers. */
async function serveReference(): Promise<void> {
  const open: http.ServerResponse[] = [];
  const server = http.createServer((req, res) => {
    if (req.method === 'GET') {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write(': connected\n\n');
      open.push(res);
      return;
    }
    const params = new URL(req.url ?? '/', 'http://x').searchParams;
    const message = `id: 1\nevent: project-updated\ndata: {"channel":"projects","payload":{"id":"${params.get('id')}"}}\n\n`;
    // Answered first, then written to as many connections as the service's event went to (the others
    // open and idle): the order the service follows (the upload's 201, then the notification's fan-out).
    res.end('{}');
    setImmediate(() => {
      for (const r of open.slice(0, Number(params.get('to')))) r.write(message);
    });
  });
  server.maxConnections = STREAMS + 100;
  await new Promise<void>((r) => server.listen({ port: 0, host: HOST, backlog: 4096 }, () => r()));
  process.stdout.write(`${(server.address() as { port: number }).port}\n`);
}

/** The reference runs in a process of its own, as the service does (one process cannot hold both ends of 10,000 connections). */
async function startReference(): Promise<{ port: number; close(): Promise<void> }> {
  const child = spawn(process.execPath, ['--import', 'tsx', fileURLToPath(import.meta.url), '--reference'], { stdio: ['ignore', 'pipe', 'inherit'] });
  const port = await new Promise<number>((resolve, reject) => {
    child.stdout.once('data', (d: Buffer) => resolve(Number(String(d).trim())));
    child.once('exit', (code) => reject(new Error(`the reference server exited (${code})`)));
  });
  return {
    port,
    close: async () => {
      child.kill();
      await new Promise((r) => child.once('exit', r));
    },
  };
}

async function main(): Promise<void> {
  const pgUrl = process.env.BENCH_DATABASE_URL?.trim() || undefined;
  const made = await testConfig({ postgresUrl: pgUrl, env: { LOG_LEVEL: 'warn', REALTIME_REPLAY_MAX_EVENTS: String(REPLAY_EVENTS) } });
  const { config } = made;
  const port = config.port;
  let server: ServiceProcess | undefined;
  const rows: string[][] = [];
  const report = (metric: string, ours: string, reference: string, ratio: string, detail = '') => rows.push([metric, ours, reference, ratio, detail]);
  try {
    console.log('print-order service benchmark: realtime streams');
    console.log(`  node ${process.version}, ${os.cpus().length} cores, ${fmtBytes(os.totalmem())} RAM; database ${config.database.dialect}; client and server on the same machine`);
    console.log(`  ${STREAMS} SSE streams over ${SESSIONS} sessions (${SESSIONS / 2} admins, ${SESSIONS / 2} POCs)\n`);

    // Users and sessions straight in the database: the bench measures streams, not bcrypt.
    const database = await openDatabase(config.database, silentLog);
    const { migrate } = await import('../src/db/index.js');
    await migrate(database);
    const store = createStore(database);
    const passwordHash = await hashPassword(randomBytes(12).toString('base64url'));
    const sessions: { userId: string; role: 'ADMIN' | 'POC'; cookie: string }[] = [];
    const expiresAt = new Date(Date.now() + 24 * 3_600_000).toISOString();
    for (let i = 0; i < SESSIONS; i++) {
      const role = i < SESSIONS / 2 ? 'ADMIN' : 'POC';
      const user = await store.users.insert(newId(), { name: `Bench ${role} ${i}`, email: `bench-${i}-${newId()}@example.com`, passwordHash, role, phone: null, location: null, branch: null }, nowIso());
      const token = randomBytes(32).toString('base64url');
      await store.sessions.create(hashToken(token), user.id, nowIso(), expiresAt);
      sessions.push({ userId: user.id, role, cookie: `session=${token}` });
    }
    await database.destroy();
    const admin = sessions[0]!;
    const owner = sessions[SESSIONS / 2]!; // the first POC

    server = await spawnService(made.env, { entry: BUILT });
    const baseline = memoryOf(server.pid);
    const { body: project } = await jsonRequest<{ id: string }>(port, 'POST', '/api/projects', { name: 'Realtime bench', pocId: owner.userId }, 201, admin.cookie);
    for (const action of ['approve', 'submit-pi', 'verify-pi']) {
      await jsonRequest(port, 'POST', `/api/projects/${project.id}/${action}`, action === 'submit-pi' ? { number: 'PI-1', amount: 100_000 } : undefined, 200, action === 'submit-pi' ? owner.cookie : admin.cookie);
    }

    step(`opening ${STREAMS} streams`);
    const sessionOf = (i: number) => sessions[i % SESSIONS]!;
    const streams = await openMany(port, () => '/api/realtime?channels=projects', (i) => ({ cookie: sessionOf(i).cookie }), STREAMS);
    const mayHear = streams.filter((_, i) => sessionOf(i).role === 'ADMIN' || sessionOf(i).userId === owner.userId);
    const mayNot = streams.filter((_, i) => !(sessionOf(i).role === 'ADMIN' || sessionOf(i).userId === owner.userId));
    await new Promise((r) => setTimeout(r, 500));
    const withStreams = memoryOf(server.pid);

    step(`${ROUNDS} uploads, each timed to its event on the last of ${mayHear.length} streams that may see it`);
    const ours: number[] = [];
    const boundary = `----bench${randomBytes(8).toString('hex')}`;
    for (let round = 0; round < ROUNDS; round++) {
      const body = Buffer.concat([
        Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="projectId"\r\n\r\n${project.id}\r\n--${boundary}\r\nContent-Disposition: form-data; name="fileType"\r\n\r\nPO\r\n`),
        Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="po.pdf"\r\nContent-Type: application/pdf\r\n\r\n%PDF-1.4 round ${round}\r\n--${boundary}--\r\n`),
      ]);
      const res = await request({ port, method: 'POST', path: '/api/upload', headers: { cookie: admin.cookie, 'content-type': `multipart/form-data; boundary=${boundary}`, 'content-length': body.length }, body, timeoutMs: 30_000 });
      if (res.status !== 201) throw new Error(`upload answered ${res.status}: ${res.body.toString()}`);
      const answered = performance.now();
      ours.push((await lastArrival(mayHear, project.id, round + 1)) - answered);
    }
    const leaked = mayNot.filter((l) => l.seen(project.id) !== undefined).length;
    for (const l of streams) l.close();

    step(`replay of ${REPLAY_EVENTS} events`);
    const resume = await new Promise<string>((resolve, reject) => {
      const req = http.get({ host: HOST, port, path: '/api/realtime', headers: { cookie: admin.cookie } }, (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (c: string) => {
          text += c;
          const m = /id: ([A-Za-z0-9_-]+)\n\n/.exec(text);
          if (m) {
            req.destroy();
            resolve(m[1]!);
          }
        });
      });
      req.on('error', reject);
    });
    for (let i = 0; i < REPLAY_EVENTS / 2; i++) {
      await jsonRequest(port, 'PATCH', `/api/projects/${project.id}`, { name: `Replay ${i}` }, 200, admin.cookie);
    }
    const replayStarted = performance.now();
    const replayed = await new Promise<number>((resolve, reject) => {
      const req = http.get({ host: HOST, port, path: '/api/realtime', headers: { cookie: admin.cookie, 'last-event-id': resume } }, (res) => {
        let count = 0;
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (c: string) => {
          text += c;
          let end;
          while ((end = text.indexOf('\n\n')) >= 0) {
            if (/^event: (project|stats)-updated$/m.test(text.slice(0, end))) count++;
            text = text.slice(end + 2);
          }
          if (count >= REPLAY_EVENTS) {
            req.destroy();
            resolve(performance.now() - replayStarted);
          }
        });
      });
      req.on('error', reject);
      setTimeout(() => reject(new Error('replay did not complete within 30 s')), 30_000).unref();
    });

    step(`reference: a bare SSE server, ${STREAMS} connections`);
    const ref = await startReference();
    const refListeners = await openMany(ref.port, () => '/', () => ({}), STREAMS);
    const reference: number[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      const res = await request({ port: ref.port, method: 'POST', path: `/emit?id=ref${round}&to=${mayHear.length}`, timeoutMs: 30_000 });
      if (res.status !== 200) throw new Error(`reference answered ${res.status}`);
      const answered = performance.now();
      reference.push((await lastArrival(refListeners.slice(0, mayHear.length), `ref${round}`)) - answered);
    }
    for (const l of refListeners) l.close();
    await ref.close();

    ours.sort((a, b) => a - b);
    reference.sort((a, b) => a - b);
    const ratio = (a: number, b: number) => `${(a / b).toFixed(2)}×`;
    report(`event on the last of ${mayHear.length} streams, p50`, fmtMs(percentile(ours, 50)), fmtMs(percentile(reference, 50)), ratio(percentile(ours, 50), percentile(reference, 50)), `from the upload's 201; reference from its POST's answer to the same number of its ${STREAMS} connections`);
    report(`event on the last of ${mayHear.length} streams, p99`, fmtMs(percentile(ours, 99)), fmtMs(percentile(reference, 99)), ratio(percentile(ours, 99), percentile(reference, 99)), `goal: p99 under 200 ms; ${ROUNDS} rounds`);
    report('streams that may not see the project and heard of it', String(leaked), '—', '—', `of ${mayNot.length} POC streams on other POCs' sessions (must be 0)`);
    report(`server RSS with ${STREAMS} streams`, withStreams ? fmtBytes(withStreams.rss) : 'n/a', baseline ? fmtBytes(baseline.rss) : 'n/a', '—', `reference column: the same service before the streams (${withStreams && baseline ? fmtBytes((withStreams.rss - baseline.rss) / STREAMS) : 'n/a'} per stream)`);
    report(`replay of ${REPLAY_EVENTS} missed events`, fmtMs(replayed), '—', '—', `${((REPLAY_EVENTS / replayed) * 1000).toFixed(0)} events/s to a reconnecting stream (Last-Event-ID)`);
    console.log();
    printTable(['measure', 'ours', 'reference', 'ratio', 'detail'], rows);
  } finally {
    await server?.stop();
    await made.cleanup();
  }
}

(process.argv.includes('--reference') ? serveReference() : main()).catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
