/**
 * npm run bench: starts the built service as a child process on a temporary data dir (on tmpfs when
 * /dev/shm exists) and, beside it, the reference server of bench/reference-server.ts; measures both
 * with the same client, in turn, and prints each of our figures beside its reference and the ratio:
 * upload throughput, CPU and memory (beside the plain raw upload and the raw upload that also
 * SHA-256s every byte), small-upload rate and CPU, one client's small-upload latency on an idle
 * service, GET /api/team with 10,001 users, logins, and /healthz latency during each load. SQLite
 * by default; BENCH_DATABASE_URL=postgres://… runs it on a fresh schema there (dropped after). BENCH_ROUNDS (default 1) repeats each comparison and
 * reports medians (ratios: the median of each round's ours / reference); BENCH_SECONDS (default 8) is the length of each closed-loop load.
 */
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { loadConfig } from '../src/config.js';
import { openDatabase } from '../src/db/index.js';
import { createStore } from '../src/db/store.js';
import type { Role } from '../src/domain/model.js';
import { newId } from '../src/ids.js';
import { silentLog } from '../src/logger.js';
import { hashPassword } from '../src/passwords.js';
import { BUILT, RssSampler, type ServiceProcess, memoryOf, spawnService } from '../test/helpers/child-service.js';
import { testConfig } from '../test/helpers/service.js';
import { type HttpResult, contentBlock, jsonRequest, request, sessionCookie, streamUpload } from './http.js';
import { CLIENT_BOUND, type ClientCpu, KiB, MiB, clientCpuMeter, fmtBytes, fmtClientCpu, fmtMs, medianClient, percentile, printTable, runLoad } from './load.js';
import { previews } from './previews.js';
import { webhookPhase } from './webhooks.js';
import { type BenchContext, cpuMsOf, type Phase, type Probed, type ReportRow, fmtProbe, fmtRatio, median, probeHealth, startReference } from './phase.js';
import { proofsPhase } from './proofs.js';
import { boardPhase } from './board.js';
import { moneyPhase } from './money.js';
import { ticketPhase } from './ticket.js';
import { priorityPhase } from './priority.js';

const GiB = 1024 * MiB;

const LARGE_UPLOADS = [
  { size: MiB, count: 20, goal: 0.7 },
  { size: 100 * MiB, count: 1, goal: undefined },
  { size: GiB, count: 1, goal: 0.85 },
];
const RSS_GROWTH_GOAL = 64 * MiB;
const SMALL_UPLOAD = { size: 10 * KiB, clients: 8, maxCount: 100_000 };
/** Issue 27's idle-latency goal: p99 no worse than before group commit, 1.41× raw's. A fixed count, bounded in time on a slow machine. */
const IDLE_UPLOAD = { size: 10 * KiB, count: 2000, warmup: 50, maxMs: 120_000, p99Goal: 1.41 };
const TEAM = { users: 10_000, batch: 500, clients: 8, maxCount: 100_000 };
const LOGINS = { concurrent: 50, waves: 3 };
const BENCH_USER_PASSWORD = 'bench user password';
const HEALTH_P99_GOAL_MS = 20;
/** The service runs with /metrics on, as it would in production; the bench reads its event-loop delay there. */
const METRICS_TOKEN = `bench-${randomBytes(9).toString('base64url')}`;

const rows: ReportRow[] = [];
const step = (msg: string) => console.error(`[bench] ${msg}`);

/** The phases, in order; each reports its own rows. Further phases (e.g. another file's) go at the end of this list. */
const PHASES: Phase[] = [
  { name: 'large uploads', run: largeUploads },
  { name: 'small uploads', run: smallUploads },
  { name: 'idle upload latency', run: idleUploadLatency },
  { name: 'team list', run: teamList },
  { name: 'logins', run: logins },
  { name: 'previews', run: previews },
  { name: 'webhooks', run: webhookPhase },
  { name: 'proofs', run: proofsPhase },
  { name: 'board', run: boardPhase },
  { name: 'money', run: moneyPhase },
  { name: 'job ticket', run: ticketPhase },
  { name: 'priority', run: priorityPhase },
];

let cleanup: () => Promise<void> = async () => {};

async function main(): Promise<void> {
  const pgUrl = process.env.BENCH_DATABASE_URL?.trim() || undefined;
  if (!process.env.TMPDIR && fs.existsSync('/dev/shm')) process.env.TMPDIR = '/dev/shm'; // files on tmpfs: the disk is not what we measure
  const admin = { email: 'bench-admin@example.com', password: `bench-${randomBytes(9).toString('base64url')}` };
  const made = await testConfig({
    postgresUrl: pgUrl,
    env: {
      LOG_LEVEL: 'warn',
      MAX_UPLOAD_BYTES: String(GiB + 64 * MiB),
      ADMIN_EMAIL: admin.email,
      ADMIN_PASSWORD: admin.password,
      ADMIN_NAME: 'Bench Admin',
      SHUTDOWN_GRACE_MS: '5000',
      LOGIN_MAX_FAILURES_PER_ADDRESS: '1000',
      METRICS_TOKEN: METRICS_TOKEN,
      // The webhooks phase's receivers run on this machine.
      WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true',
      WEBHOOK_POLL_MS: '100',
    },
  });
  const { config } = made;
  const port = config.port;
  const running: { server?: ServiceProcess; reference?: { stop(): Promise<void> } } = {};
  let cleaning: Promise<void> | undefined;
  cleanup = () =>
    (cleaning ??= (async () => {
      if (running.server) {
        step(`stopping the service (pid ${running.server.pid})`);
        await running.server.stop();
      }
      await running.reference?.stop();
      await made.cleanup().catch((err: unknown) => step(`could not clean up: ${String(err)}`));
    })());

  const where = config.database.dialect === 'sqlite' ? config.database.file : `schema ${made.env.DATABASE_SCHEMA}`;
  const loadMs = Number(process.env.BENCH_SECONDS ?? 8) * 1000;
  const rounds = Math.max(1, Number(process.env.BENCH_ROUNDS ?? 1));
  console.log('print-order service benchmark');
  console.log(`  node ${process.version}, ${os.cpus().length} cores (${os.cpus()[0]?.model.trim() ?? 'unknown CPU'}), ${fmtBytes(os.totalmem())} RAM, ${os.platform()} ${os.release()}, load average ${os.loadavg().map((l) => l.toFixed(2)).join(' ')}`);
  console.log(`  database: ${config.database.dialect} (${where})`);
  console.log(`  service: child process \`${path.basename(process.execPath)} dist/src/main.js\` on 127.0.0.1:${port}, data dir ${config.dataDir}`);
  console.log(`  references: bench/reference-server.ts as its own process; each comparison ${rounds} round(s) in turn, loads of ${loadMs / 1000} s, medians`);
  console.log('  client, service and reference share the same machine (and its cores)\n');

  const reference = (running.reference = await startReference(path.join(config.dataDir, 'reference')));
  // BENCH_NODE_ARGS: extra node flags for the service (e.g. --cpu-prof --cpu-prof-dir=/tmp/prof to see where its time goes).
  const nodeArgs = process.env.BENCH_NODE_ARGS?.split(' ').filter(Boolean) ?? [];
  const { pid } = (running.server = await spawnService(made.env, { entry: [...nodeArgs, ...BUILT] }));
  step(`service up (pid ${pid}), reference on port ${reference.port}`);

  const login = await jsonRequest<unknown>(port, 'POST', '/api/auth/login', admin, 200);
  const cookie = sessionCookie(login.res);
  const ctx: BenchContext = {
    config,
    port,
    pid,
    admin: { ...admin, cookie },
    reference,
    metricsToken: METRICS_TOKEN,
    loadMs,
    rounds,
    state: {},
    report: (row) => rows.push(row),
    step,
  };
  // BENCH_PHASES (e.g. "small uploads,logins"): only those phases, for a quicker look at one of them.
  const only = process.env.BENCH_PHASES?.split(',').map((p) => p.trim()).filter(Boolean);
  for (const phase of PHASES.filter((p) => !only?.length || only.includes(p.name))) {
    step(`phase: ${phase.name}`);
    await phase.run(ctx);
  }

  console.log('');
  const order = [...new Set(rows.map((r) => r.section))];
  const grouped = order.flatMap((s) => rows.filter((r) => r.section === s));
  let section = '';
  printTable(
    ['section', 'metric', 'ours', 'reference', 'ratio · server CPU/req', 'client CPU/req: ours · ref', 'goal', 'detail'],
    grouped.map((r) => {
      const cells = [
        r.section === section ? '' : r.section,
        r.metric,
        r.value,
        r.reference ?? '',
        [r.ratio === undefined ? '' : fmtRatio(r.ratio), r.cpuRatio === undefined ? '' : `CPU ${fmtRatio(r.cpuRatio)}`].filter(Boolean).join(' · '),
        r.client ? [r.client.ours, r.client.reference].map((c) => (c ? fmtClientCpu(c) : '–')).join(' · ') : '',
        r.goal ? `${r.goal.met ? '✓' : '✗'} ${r.goal.text}` : '',
        r.detail ?? '',
      ];
      section = r.section;
      return cells;
    }),
  );
  console.log('');
  console.log('  ratio: ours / reference (higher is better); server CPU/req: reference / ours, from each server process\'s user + system time.');
  console.log(`  client CPU/req: this process's CPU (the load generators) per request, and (in brackets) its main thread's share of one core;`);
  console.log(`  ‼ marks a load where that share was ≥ ${CLIENT_BOUND * 100} %: the client was the bottleneck, so the figure and its ratio measure the client.`);
}

/** The benchmark project (approved, so the admin may upload POs) and the upload form's fields. */
async function uploadFields(ctx: BenchContext): Promise<[string, string][]> {
  if (ctx.state.fields) return ctx.state.fields as [string, string][];
  const { body: project } = await jsonRequest<{ id: string }>(ctx.port, 'POST', '/api/projects', { name: 'Benchmark project' }, 201, ctx.admin.cookie);
  const { body: approved } = await jsonRequest<{ status: string }>(ctx.port, 'POST', `/api/projects/${project.id}/approve`, undefined, 200, ctx.admin.cookie);
  if (approved.status !== 'APPROVED') throw new Error(`approve left the project in ${approved.status}`);
  const fields: [string, string][] = [
    ['projectId', project.id],
    ['fileType', 'PO'],
  ];
  return (ctx.state.fields = fields);
}

/**
 * The median of each round's ours / reference: a round's two figures are measured one right after
 * the other, so what else the machine is doing weighs on both alike.
 */
const pairedRatio = (ours: number[], refs: number[]): number => median(ours.map((o, i) => o / refs[i]!));

const mibPerS = (bytes: number, ms: number) => bytes / MiB / (ms / 1000);

/** Where each large upload goes: the service, the plain raw reference, the raw reference that also SHA-256s every byte. */
type UploadTarget = 'ours' | 'raw' | 'raw+sha256';
const REFERENCE_PATHS: Record<Exclude<UploadTarget, 'ours'>, string> = { raw: '/upload', 'raw+sha256': '/upload-sha256' };

/**
 * 1 + 2. Large uploads, one at a time, each round in turn to the plain raw reference, the raw
 * reference with SHA-256 (the fair ceiling: the service must hash every byte) and us; our memory
 * sampled meanwhile, and each server's CPU time (user + system) over its uploads.
 */
async function largeUploads(ctx: BenchContext): Promise<void> {
  const { port, pid } = ctx;
  const fields = await uploadFields(ctx);
  const block = contentBlock(MiB);
  const upload = (target: UploadTarget, size: number, name: string) =>
    streamUpload({
      port: target === 'ours' ? port : ctx.reference.port,
      path: target === 'ours' ? '/api/upload' : REFERENCE_PATHS[target],
      cookie: ctx.admin.cookie,
      fields,
      filename: name,
      contentType: 'application/pdf',
      size,
      block,
      timeoutMs: 60_000 + (size / MiB) * 1000,
    });
  await checkedUpload(await upload('ours', 64 * KiB, 'warmup.pdf'), 64 * KiB);
  for (const ref of ['raw', 'raw+sha256'] as const) await checkedUpload(await upload(ref, 64 * KiB, 'warmup.pdf'), 64 * KiB, true);

  for (const { size, count, goal } of LARGE_UPLOADS) {
    const label = fmtBytes(size);
    const rates: Record<UploadTarget, number[]> = { ours: [], raw: [], 'raw+sha256': [] };
    const cpu: Record<UploadTarget, number[]> = { ours: [], raw: [], 'raw+sha256': [] };
    const client: Record<UploadTarget, ClientCpu[]> = { ours: [], raw: [], 'raw+sha256': [] };
    let peak = 0;
    let growth = 0;
    let probe: Probed = { latencies: [], targets: [] };
    for (let round = 0; round < ctx.rounds; round++) {
      ctx.step(`uploading ${count} × ${label}, round ${round + 1}: raw, raw + SHA-256, then ours`);
      for (const target of ['raw', 'raw+sha256', 'ours'] as const) {
        const server = target === 'ours' ? pid : ctx.reference.pid;
        const before = target === 'ours' ? memoryOf(pid) : undefined;
        const sampler = target === 'ours' ? new RssSampler(pid, 20).start() : undefined;
        const prober = target === 'ours' && size === GiB ? await probeHealth(port, METRICS_TOKEN) : undefined;
        const cpuBefore = cpuMsOf(server);
        const meter = clientCpuMeter();
        let ms = 0;
        try {
          for (let i = 0; i < count; i++) {
            const res = await upload(target, size, `${target === 'ours' ? 'bench' : 'ref'}-${size}-${round}-${i}.pdf`);
            await checkedUpload(res, size, target !== 'ours');
            ms += res.ms;
          }
        } finally {
          sampler?.stop();
          if (prober) probe = await prober.stop();
        }
        cpu[target].push(cpuMsOf(server) - cpuBefore);
        client[target].push(meter.stop(count));
        rates[target].push(mibPerS(size * count, ms));
        if (sampler) peak = Math.max(peak, sampler.peak);
        if (sampler && before) growth = Math.max(growth, sampler.peak - before.rss);
      }
    }
    const value = median(rates.ours);
    const ofChecksum = pairedRatio(rates.ours, rates['raw+sha256']);
    const rounds = (target: UploadTarget) => rates[target].map((x) => x.toFixed(0)).join('/');
    const metric = count > 1 ? `throughput, ${count} × ${label} files one after another` : `throughput, ${label} file`;
    // CPU per upload (one after another) or per GiB (one large file): what the bytes cost each server.
    const perUnit = count > 1 ? count : size / GiB;
    const unit = count > 1 ? `per ${label} upload` : 'per GiB';
    const cpuOf = (target: UploadTarget) => median(cpu[target]) / perUnit;
    ctx.report({
      section: 'upload',
      metric: `${metric}, of raw + SHA-256`,
      cpuRatio: cpuOf('raw+sha256') / cpuOf('ours'),
      client: { ours: medianClient(client.ours), reference: medianClient(client['raw+sha256']) },
      value: `${value.toFixed(1)} MiB/s`,
      reference: `${median(rates['raw+sha256']).toFixed(1)} MiB/s`,
      ratio: ofChecksum,
      goal: goal === undefined ? undefined : { text: `≥ ${goal * 100} % of raw + SHA-256`, met: ofChecksum >= goal },
      detail: `rounds: ours ${rounds('ours')}, raw + SHA-256 ${rounds('raw+sha256')} MiB/s; 201 with size checked`,
    });
    ctx.report({
      section: 'upload',
      metric: `${metric}, of plain raw`,
      value: `${value.toFixed(1)} MiB/s`,
      reference: `${median(rates.raw).toFixed(1)} MiB/s`,
      ratio: pairedRatio(rates.ours, rates.raw),
      cpuRatio: cpuOf('raw') / cpuOf('ours'),
      client: { ours: medianClient(client.ours), reference: medianClient(client.raw) },
      detail: `rounds: raw ${rounds('raw')} MiB/s`,
    });
    ctx.report({
      section: 'upload',
      metric: `server CPU ${unit}, ${label} uploads`,
      value: fmtMs(cpuOf('ours')),
      reference: `${fmtMs(cpuOf('raw+sha256'))} (raw ${fmtMs(cpuOf('raw'))})`,
      ratio: cpuOf('raw+sha256') / cpuOf('ours'),
      detail: 'user + system time of each server process over its uploads (10 ms ticks); ratio: raw + SHA-256 / ours',
    });
    if (size === GiB) {
      ctx.report({
        section: 'memory',
        metric: `server RSS growth during the ${label} upload`,
        value: fmtBytes(growth),
        goal: { text: `≤ ${fmtBytes(RSS_GROWTH_GOAL)}`, met: growth <= RSS_GROWTH_GOAL },
        detail: `peak ${fmtBytes(peak)}; VmRSS sampled every 20 ms`,
      });
      ctx.report({ section: 'health', metric: `/healthz during the ${label} upload`, value: `p99 ${fmtMs(percentile(probe.latencies, 99))}`, detail: fmtProbe(probe) });
    } else {
      ctx.report({ section: 'memory', metric: `server peak RSS during the ${label} uploads`, value: fmtBytes(peak) });
    }
  }
}

/**
 * One small upload to us (POST /api/upload) or the raw reference (POST /upload), checked (201,
 * size): its latency in ms, from the request's start to the answer's last byte.
 */
async function smallUpload(
  ctx: BenchContext,
  target: 'ours' | 'reference',
  opts: { agent: http.Agent; fields: [string, string][]; block: Buffer; filename: string },
): Promise<number> {
  const res = await streamUpload({
    port: target === 'ours' ? ctx.port : ctx.reference.port,
    path: target === 'ours' ? '/api/upload' : '/upload',
    cookie: ctx.admin.cookie,
    agent: opts.agent,
    fields: opts.fields,
    filename: opts.filename,
    contentType: 'application/pdf',
    size: opts.block.length,
    block: opts.block,
    timeoutMs: 30_000,
  });
  await checkedUpload(res, opts.block.length, target === 'reference');
  return res.ms;
}

/** 3. Many small uploads from 8 keep-alive clients, in turn to the reference and to us. */
async function smallUploads(ctx: BenchContext): Promise<void> {
  const fields = await uploadFields(ctx);
  const small = contentBlock(SMALL_UPLOAD.size);
  const run = async (target: 'ours' | 'reference') => {
    const agent = new http.Agent({ keepAlive: true, maxSockets: SMALL_UPLOAD.clients });
    const prober = target === 'ours' ? await probeHealth(ctx.port, METRICS_TOKEN) : undefined;
    const server = target === 'ours' ? ctx.pid : ctx.reference.pid;
    const cpuBefore = cpuMsOf(server);
    const mainBefore = cpuMsOf(server, 'main');
    try {
      const load = await runLoad(SMALL_UPLOAD.clients, SMALL_UPLOAD.maxCount, ctx.loadMs, (n) => smallUpload(ctx, target, { agent, fields, block: small, filename: `small-${n}.pdf` }));
      const cpuPerUpload = (cpuMsOf(server) - cpuBefore) / load.count;
      const mainPerUpload = (cpuMsOf(server, 'main') - mainBefore) / load.count;
      return { rate: load.count / (load.elapsedMs / 1000), load, cpuPerUpload, mainPerUpload, probe: (await prober?.stop()) ?? { latencies: [], targets: [] } };
    } finally {
      await prober?.stop().catch(() => undefined);
      agent.destroy();
    }
  };
  const ours: Awaited<ReturnType<typeof run>>[] = [];
  const refRuns: typeof ours = [];
  for (let round = 0; round < ctx.rounds; round++) {
    ctx.step(`small uploads, round ${round + 1}: ${SMALL_UPLOAD.clients} clients × ${fmtBytes(SMALL_UPLOAD.size)} for ${ctx.loadMs / 1000} s, reference then ours`);
    refRuns.push(await run('reference'));
    ours.push(await run('ours'));
  }
  const refs = refRuns.map((r) => r.rate);
  const value = median(ours.map((o) => o.rate));
  const ref = median(refs);
  // Issue 27's goals; the PostgreSQL figure is this phase run with BENCH_DATABASE_URL.
  const goal = ctx.config.database.dialect === 'sqlite' ? 0.5 : 0.3;
  const mid = ours.find((o) => o.rate === value) ?? ours[0]!;
  ctx.report({
    section: 'small uploads',
    metric: `${fmtBytes(SMALL_UPLOAD.size)} uploads/s, ${SMALL_UPLOAD.clients} clients`,
    value: `${value.toFixed(1)} /s`,
    reference: `${ref.toFixed(1)} /s`,
    ratio: pairedRatio(ours.map((o) => o.rate), refs),
    goal: { text: `≥ ${goal * 100} % of raw (${ctx.config.database.dialect})`, met: pairedRatio(ours.map((o) => o.rate), refs) >= goal },
    cpuRatio: pairedRatio(refRuns.map((r) => r.cpuPerUpload), ours.map((o) => o.cpuPerUpload)),
    client: { ours: medianClient(ours.map((o) => o.load.client)), reference: medianClient(refRuns.map((r) => r.load.client)) },
    detail: `rounds: ours ${ours.map((o) => o.rate.toFixed(0)).join('/')}, raw ${refs.map((x) => x.toFixed(0)).join('/')} /s; auth, database, activity, events`,
  });
  ctx.report({
    section: 'small uploads',
    metric: 'latency p50 / p99',
    value: `${fmtMs(percentile(mid.load.latencies, 50))} / ${fmtMs(percentile(mid.load.latencies, 99))}`,
    detail: `max ${fmtMs(mid.load.latencies.at(-1) ?? NaN)}`,
  });
  // CPU per upload is steadier than the rate on a shared machine; the event loop's own share is what limits the rate.
  const cpuRow = (metric: string, of: (r: (typeof ours)[number]) => number, detail: string) => {
    const [mine, raw] = [median(ours.map(of)), median(refRuns.map(of))];
    ctx.report({ section: 'small uploads', metric, value: fmtMs(mine), reference: fmtMs(raw), ratio: raw / mine, detail });
  };
  cpuRow('server CPU per upload', (r) => r.cpuPerUpload, 'user + system time of the server process over the load, per upload (10 ms ticks)');
  cpuRow('server main-thread CPU per upload', (r) => r.mainPerUpload, "the event loop's own user + system time (its thread in /proc), per upload");
  const probe = median(ours.map((o) => percentile(o.probe.latencies, 99)));
  ctx.report({ section: 'health', metric: '/healthz during small uploads', value: `p99 ${fmtMs(probe)}`, detail: fmtProbe(mid.probe) });
}

/**
 * 3b. One client's small uploads on an idle service (issue 27: group commit must not add waiting
 * when nothing else is in flight): one upload after another on one kept-alive connection, each
 * round to the raw reference, then to us, a fixed count each so both p99s rank as many uploads.
 */
async function idleUploadLatency(ctx: BenchContext): Promise<void> {
  const fields = await uploadFields(ctx);
  const block = contentBlock(IDLE_UPLOAD.size);
  const run = async (target: 'ours' | 'reference', round: number) => {
    const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
    try {
      const upload = (name: string) => smallUpload(ctx, target, { agent, fields, block, filename: `idle-${round}-${name}.pdf` });
      // The first uploads open the connection and warm the code: start-up, not the idle path.
      for (let i = 0; i < IDLE_UPLOAD.warmup; i++) await upload(`warmup-${i}`);
      return await runLoad(1, IDLE_UPLOAD.count, IDLE_UPLOAD.maxMs, (n) => upload(String(n)));
    } finally {
      agent.destroy();
    }
  };
  const ours: number[][] = [];
  const refs: number[][] = [];
  const clients: { ours: ClientCpu[]; reference: ClientCpu[] } = { ours: [], reference: [] };
  for (let round = 0; round < ctx.rounds; round++) {
    ctx.step(`idle upload latency, round ${round + 1}: one client, ${IDLE_UPLOAD.count} × ${fmtBytes(IDLE_UPLOAD.size)} one after another, reference then ours`);
    const ref = await run('reference', round);
    const mine = await run('ours', round);
    refs.push(ref.latencies);
    ours.push(mine.latencies);
    clients.reference.push(ref.client);
    clients.ours.push(mine.client);
  }
  const counts = [...new Set([...ours, ...refs].map((l) => l.length))].join('/');
  for (const p of [50, 99] as const) {
    const mine = ours.map((l) => percentile(l, p));
    const raw = refs.map((l) => percentile(l, p));
    // Lower latency is better, so the ratio is raw / ours: higher is better, as the CPU rows' raw / ours.
    const ratio = pairedRatio(raw, mine);
    const goal = IDLE_UPLOAD.p99Goal;
    ctx.report({
      section: 'small uploads',
      metric: `one client on an idle service: ${fmtBytes(IDLE_UPLOAD.size)} upload p${p}`,
      value: fmtMs(median(mine)),
      reference: fmtMs(median(raw)),
      ratio,
      goal: p === 99 ? { text: `p99 ≤ ${goal}× raw's (ratio raw/ours ≥ ${((1 / goal) * 100).toFixed(0)} %)`, met: ratio >= 1 / goal } : undefined,
      client: p === 50 ? { ours: medianClient(clients.ours), reference: medianClient(clients.reference) } : undefined,
      detail:
        `ours/raw ${(1 / ratio).toFixed(2)}×; rounds: ours ${mine.map((x) => x.toFixed(2)).join('/')}, raw ${raw.map((x) => x.toFixed(2)).join('/')} ms` +
        (p === 99 ? `; ${counts} uploads a round after ${IDLE_UPLOAD.warmup} to warm up, one kept-alive connection` : `; max ours ${fmtMs(median(ours.map((l) => l.at(-1) ?? NaN)))}, raw ${fmtMs(median(refs.map((l) => l.at(-1) ?? NaN)))}`),
    });
  }
}

/** 4. GET /api/team with 10,001 users seeded straight into the database, against the earlier approach's in-memory sort. */
async function teamList(ctx: BenchContext): Promise<void> {
  const { port } = ctx;
  const cookie = ctx.admin.cookie;
  ctx.step(`seeding ${TEAM.users} users into the database`);
  const seeded = await seedUsers(ctx.config.database, TEAM.users, TEAM.batch);
  ctx.state.seededUsers = TEAM.users;
  ctx.report({ section: 'team', metric: `seed ${TEAM.users} users (one shared bcrypt hash)`, value: fmtMs(seeded.ms), detail: `batches of ${TEAM.batch} in transactions, through src/db/store.ts` });

  const first = await request({ port, method: 'GET', path: '/api/team', headers: { cookie }, timeoutMs: 30_000 });
  if (first.status !== 200) throw new Error(`GET /api/team: ${first.status} ${first.body.toString('utf8').slice(0, 300)}`);
  const team = JSON.parse(first.body.toString('utf8')) as { createdAt: string; password?: unknown }[];
  if (team.length !== TEAM.users + 1) throw new Error(`GET /api/team listed ${team.length} users, expected ${TEAM.users + 1}`);
  if (team.some((u, i) => 'password' in u || (i > 0 && u.createdAt > team[i - 1]!.createdAt))) throw new Error('GET /api/team: a password field or an order other than createdAt descending');
  const size = first.body.length;
  const seededRef = await request({ port: ctx.reference.port, method: 'PUT', path: '/seed', body: first.body, headers: { 'content-type': 'application/json' }, timeoutMs: 30_000 });
  if (seededRef.status !== 200) throw new Error(`reference seed: ${seededRef.status}`);
  const refFirst = await request({ port: ctx.reference.port, method: 'GET', path: '/api/team', timeoutMs: 30_000 });
  if (!refFirst.body.equals(first.body)) throw new Error('the reference answers GET /api/team with other bytes than the service');

  type Variant = { label: string; headers: Record<string, string>; expect: number };
  const run = async (target: 'ours' | 'reference', variant: Variant) => {
    const agent = new http.Agent({ keepAlive: true, maxSockets: TEAM.clients });
    const prober = await probeHealth(target === 'ours' ? port : ctx.reference.port, target === 'ours' ? METRICS_TOKEN : undefined);
    const server = target === 'ours' ? ctx.pid : ctx.reference.pid;
    const cpuBefore = cpuMsOf(server);
    let wire = 0;
    try {
      const load = await runLoad(TEAM.clients, TEAM.maxCount, ctx.loadMs, async () => {
        const res = await request({ port: target === 'ours' ? port : ctx.reference.port, method: 'GET', path: '/api/team', headers: { cookie, ...variant.headers }, agent, timeoutMs: 30_000, discardBody: true });
        if (res.status !== variant.expect || (variant.expect === 200 && !variant.headers['accept-encoding'] && res.bytes !== size)) {
          throw new Error(`GET /api/team (${variant.label}): ${res.status}, ${res.bytes} bytes (expected ${variant.expect}${variant.expect === 200 ? `, ${size}` : ''})`);
        }
        wire = res.bytes;
        return res.ms;
      });
      return { rate: load.count / (load.elapsedMs / 1000), load, wire, cpuPerRequest: (cpuMsOf(server) - cpuBefore) / load.count, probe: await prober.stop() };
    } finally {
      await prober.stop().catch(() => undefined); // already stopped above unless the load failed
      agent.destroy();
    }
  };

  const plain: Variant = { label: 'identity', headers: {}, expect: 200 };
  const ours: Awaited<ReturnType<typeof run>>[] = [];
  const refs: Awaited<ReturnType<typeof run>>[] = [];
  for (let round = 0; round < ctx.rounds; round++) {
    ctx.step(`GET /api/team, round ${round + 1}: ${TEAM.clients} keep-alive clients for ${ctx.loadMs / 1000} s, earlier approach then ours`);
    refs.push(await run('reference', plain));
    ours.push(await run('ours', plain));
  }
  const value = median(ours.map((o) => o.rate));
  const ref = median(refs.map((r) => r.rate));
  const mid = ours.find((o) => o.rate === value) ?? ours[0]!;
  ctx.report({
    section: 'team',
    metric: `GET /api/team req/s, ${TEAM.users + 1} users, ${TEAM.clients} clients`,
    value: `${value.toFixed(1)} /s`,
    reference: `${ref.toFixed(1)} /s`,
    ratio: pairedRatio(ours.map((o) => o.rate), refs.map((r) => r.rate)),
    goal: { text: '≥ 2× the earlier approach', met: pairedRatio(ours.map((o) => o.rate), refs.map((r) => r.rate)) >= 2 },
    cpuRatio: pairedRatio(refs.map((r) => r.cpuPerRequest), ours.map((o) => o.cpuPerRequest)),
    client: { ours: medianClient(ours.map((o) => o.load.client)), reference: medianClient(refs.map((r) => r.load.client)) },
    detail: `rounds: ours ${ours.map((o) => o.rate.toFixed(1)).join('/')}, earlier ${refs.map((r) => r.rate.toFixed(1)).join('/')} /s; ${fmtBytes(size)} of JSON each, no Accept-Encoding`,
  });
  ctx.report({
    section: 'team',
    metric: 'latency p50 / p99',
    value: `${fmtMs(percentile(mid.load.latencies, 50))} / ${fmtMs(percentile(mid.load.latencies, 99))}`,
    reference: `${fmtMs(percentile(refs[0]!.load.latencies, 50))} / ${fmtMs(percentile(refs[0]!.load.latencies, 99))}`,
    detail: `first (cold) request ${fmtMs(first.ms)}`,
  });
  const probe = median(ours.map((o) => percentile(o.probe.latencies, 99)));
  ctx.report({
    section: 'health',
    metric: '/healthz while GET /api/team is under load',
    value: `p99 ${fmtMs(probe)}`,
    reference: `p99 ${fmtMs(median(refs.map((r) => percentile(r.probe.latencies, 99))))}`,
    goal: { text: `p99 ≤ ${HEALTH_P99_GOAL_MS} ms`, met: probe <= HEALTH_P99_GOAL_MS },
    detail: fmtProbe(mid.probe),
  });

  // What a browser sends: gzip/brotli accepted, and the ETag it has.
  const etag = first.headers.etag;
  const variants: Variant[] = [{ label: 'gzip, br accepted', headers: { 'accept-encoding': 'gzip, deflate, br' }, expect: 200 }];
  if (typeof etag === 'string') variants.push({ label: 'If-None-Match (304)', headers: { 'if-none-match': etag }, expect: 304 });
  for (const variant of variants) {
    ctx.step(`GET /api/team, ${variant.label}`);
    const r = await run('ours', variant);
    ctx.report({
      section: 'team',
      metric: `GET /api/team req/s, ${variant.label}`,
      value: `${r.rate.toFixed(1)} /s`,
      reference: `${ref.toFixed(1)} /s`,
      ratio: r.rate / ref,
      cpuRatio: median(refs.map((x) => x.cpuPerRequest)) / r.cpuPerRequest,
      client: { ours: r.load.client, reference: medianClient(refs.map((x) => x.load.client)) },
      detail: `${fmtBytes(r.wire)} on the wire; p50 ${fmtMs(percentile(r.load.latencies, 50))}; /healthz p99 ${fmtMs(percentile(r.probe.latencies, 99))}`,
    });
  }
  if (typeof etag !== 'string') ctx.report({ section: 'team', metric: 'GET /api/team, If-None-Match (304)', value: 'n/a', detail: 'the answer carries no ETag' });
}

/** 5. Bursts of 50 logins at once (bcrypt cost 10 each), /healthz probed meanwhile. */
async function logins(ctx: BenchContext): Promise<void> {
  if (!ctx.state.seededUsers) throw new Error('the logins phase needs the team phase\'s seeded users');
  const prober = await probeHealth(ctx.port, METRICS_TOKEN);
  let count = 0;
  const started = performance.now();
  const latencies: number[] = [];
  try {
    for (let wave = 0; wave < LOGINS.waves; wave++) {
      ctx.step(`logins: wave ${wave + 1} of ${LOGINS.concurrent} at once`);
      await Promise.all(
        Array.from({ length: LOGINS.concurrent }, async (_, i) => {
          const n = String(wave * LOGINS.concurrent + i + 1).padStart(5, '0');
          const { res } = await jsonRequest<unknown>(ctx.port, 'POST', '/api/auth/login', { email: `bench.user.${n}@example.com`, password: BENCH_USER_PASSWORD }, 200);
          latencies.push(res.ms);
          count++;
        }),
      );
    }
  } finally {
    const probe = await prober.stop();
    const elapsed = performance.now() - started;
    latencies.sort((a, b) => a - b);
    ctx.report({
      section: 'logins',
      metric: `${LOGINS.waves} bursts of ${LOGINS.concurrent} logins at once`,
      value: `${(count / (elapsed / 1000)).toFixed(1)} /s`,
      detail: `login p50 ${fmtMs(percentile(latencies, 50))}, p99 ${fmtMs(percentile(latencies, 99))}`,
    });
    const p99 = percentile(probe.latencies, 99);
    ctx.report({
      section: 'health',
      metric: `/healthz during ${LOGINS.concurrent} logins at once`,
      value: `p99 ${fmtMs(p99)}`,
      goal: { text: `p99 ≤ ${HEALTH_P99_GOAL_MS} ms`, met: p99 <= HEALTH_P99_GOAL_MS },
      detail: fmtProbe(probe),
    });
  }
}

/** A 201 whose `size` is exactly the number of bytes sent (the reference counts the whole raw body). */
async function checkedUpload(res: HttpResult, size: number, raw = false): Promise<void> {
  const text = res.body.toString('utf8');
  if (res.status !== 201) throw new Error(`upload of ${size} bytes: ${res.status} ${text.slice(0, 300)}`);
  const body = JSON.parse(text) as { size?: unknown };
  if (raw ? !(typeof body.size === 'number' && body.size > size) : body.size !== size) throw new Error(`upload of ${size} bytes answered size ${String(body.size)}`);
}

/** Inserts users with the project's own data layer, all sharing one bcrypt hash (so seeding takes seconds, not minutes). */
async function seedUsers(databaseConfig: ReturnType<typeof loadConfig>['database'], count: number, batch: number): Promise<{ ms: number }> {
  const started = performance.now();
  const database = await openDatabase(databaseConfig, silentLog);
  try {
    const store = createStore(database);
    const passwordHash = await hashPassword(BENCH_USER_PASSWORD);
    const roles: Role[] = ['POC', 'POC', 'POC', 'CLIENT'];
    const base = Date.now() - count * 1000;
    for (let from = 0; from < count; from += batch) {
      await store.transaction(async (trx) => {
        for (let i = from; i < Math.min(count, from + batch); i++) {
          const n = String(i + 1).padStart(5, '0');
          await trx.users.insert(
            newId(),
            {
              name: `Bench User ${n}`,
              email: `bench.user.${n}@example.com`,
              passwordHash,
              role: roles[i % roles.length]!,
              phone: i % 3 === 0 ? null : `+91 98${String(10_000_000 + i).slice(-8)}`,
              location: i % 2 === 0 ? 'Mumbai' : 'Bengaluru',
              branch: i % 5 === 0 ? null : `Branch ${i % 40}`,
            },
            new Date(base + i * 1000).toISOString(),
          );
        }
      });
    }
  } finally {
    await database.destroy();
  }
  return { ms: performance.now() - started };
}

let interrupted = false;
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    interrupted = true;
    step(`${signal}: cleaning up`);
    void cleanup().finally(() => process.exit(130));
  });
}

try {
  await main();
} catch (err) {
  process.exitCode = 1;
  if (!interrupted) console.error('\nbenchmark failed:', err instanceof Error ? (err.stack ?? err.message) : err);
} finally {
  await cleanup();
}
