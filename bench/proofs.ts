/**
 * The proofs phase of `npm run bench` (issue 34): posting a 20 MiB proof against uploading a 20 MiB
 * document, in turn in each round (document, proof, …: a drift of the machine weighs on both), the
 * ratio of their rates printed (goal: a proof costs no more than a document, ≥ 95 % allowing for the
 * machine's noise); then the approval link's page (GET /api/proof-links/:token) while 8 clients
 * upload 1 MiB documents: its p50/p99 (goal: p99 under 50 ms).
 */
import http from 'node:http';
import { hashToken } from '../src/actions/auth.js';
import { openDatabase } from '../src/db/index.js';
import { newId } from '../src/ids.js';
import { silentLog } from '../src/logger.js';
import { contentBlock, jsonRequest, streamUpload } from './http.js';
import { MiB, fmtMs, percentile, runLoad } from './load.js';
import { type BenchContext, median, probeHealth } from './phase.js';

const SIZE = 20 * MiB;
const PER_ROUND = 3;
const LINK = { uploaders: 8, uploadSize: MiB, p99GoalMs: 50 };

/** One GET, its time in ms; the body read and dropped; a status but 200 fails it. */
function timedGet(port: number, path: string): Promise<number> {
  const started = performance.now();
  return new Promise((resolve, reject) => {
    const req = http.get({ host: '127.0.0.1', port, path, agent: false }, (res) => {
      res.resume();
      res.on('end', () => (res.statusCode === 200 ? resolve(performance.now() - started) : reject(new Error(`GET ${path} answered ${res.statusCode}`))));
      res.on('error', reject);
    });
    req.on('error', reject);
  });
}

export async function proofsPhase(ctx: BenchContext): Promise<void> {
  const { port } = ctx;
  const cookie = ctx.admin.cookie;
  const { body: project } = await jsonRequest<{ id: string }>(port, 'POST', '/api/projects', { name: 'Proofs benchmark' }, 201, cookie);
  await jsonRequest(port, 'POST', `/api/projects/${project.id}/approve`, undefined, 200, cookie);
  const block = contentBlock(MiB);
  const send = (kind: 'document' | 'proof', size: number, n: number) =>
    streamUpload({
      port,
      path: kind === 'proof' ? `/api/projects/${project.id}/proofs` : '/api/upload',
      cookie,
      fields: kind === 'proof' ? [['note', `bench ${n}`]] : [['projectId', project.id], ['fileType', 'PO']],
      filename: `${kind}-${n}.pdf`,
      contentType: 'application/pdf',
      size,
      block,
      timeoutMs: 120_000,
    }).then((res) => {
      if (res.status !== 201) throw new Error(`${kind} answered ${res.status}: ${res.body.toString().slice(0, 200)}`);
      return res.ms;
    });
  await send('document', MiB, 0);
  await send('proof', MiB, 0);

  const rates = { document: [] as number[], proof: [] as number[] };
  for (let round = 0; round < Math.max(2, ctx.rounds); round++) {
    ctx.step(`proofs: ${PER_ROUND} × 20 MiB documents, then ${PER_ROUND} × 20 MiB proofs, round ${round + 1}`);
    for (const kind of ['document', 'proof'] as const) {
      let ms = 0;
      for (let i = 0; i < PER_ROUND; i++) ms += await send(kind, SIZE, round * PER_ROUND + i + 1);
      rates[kind].push((SIZE * PER_ROUND) / MiB / (ms / 1000));
    }
  }
  const ratio = median(rates.proof.map((p, i) => p / rates.document[i]!));
  ctx.report({
    section: 'proofs',
    metric: 'posting a 20 MiB proof, of uploading a 20 MiB document',
    value: `${median(rates.proof).toFixed(1)} MiB/s`,
    reference: `${median(rates.document).toFixed(1)} MiB/s`,
    ratio,
    goal: { text: 'a proof costs no more than a document (≥ 95 %, the machine’s noise)', met: ratio >= 0.95 },
    detail: `rounds: proof ${rates.proof.map((r) => r.toFixed(0)).join('/')}, document ${rates.document.map((r) => r.toFixed(0)).join('/')} MiB/s`,
  });

  // A link for the latest proof, its token known: written as the service writes one (only the hash).
  const token = `bench${newId().replace(/-/g, '')}`.slice(0, 40);
  const database = await openDatabase(ctx.config.database, silentLog);
  try {
    const proof = await database.db.selectFrom('proofs').select('id').where('project_id', '=', project.id).orderBy('version', 'desc').executeTakeFirstOrThrow();
    const admin = await database.db.selectFrom('users').select('id').where('role', '=', 'ADMIN').executeTakeFirstOrThrow();
    const now = Date.now();
    await database.db
      .insertInto('proof_links')
      .values({ id: newId(), proof_id: proof.id, token_hash: hashToken(token), email: 'bench@example.com', name: null, created_by_id: admin.id, created_at: new Date(now).toISOString(), expires_at: new Date(now + 86_400_000).toISOString() })
      .execute();
  } finally {
    await database.destroy();
  }
  const api = `/api/proof-links/${token}`;
  const page = `/proofs/${token}`;
  const html = { accept: 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8', 'accept-encoding': 'gzip, deflate, br' };
  await timedGet(port, api);

  ctx.step(`proofs: the link's page while ${LINK.uploaders} clients upload 1 MiB documents for ${ctx.loadMs / 1000} s`);
  // From a process of its own (bench/probe.ts), one keep-alive connection, in turn: /healthz (the
  // request path's floor: what the machine allows a trivial answer meanwhile), the page as a browser
  // asks for it (the web app's index.html) and the API call the page makes.
  const probe = await probeHealth(port, ctx.config.metricsToken ?? undefined, 5, [{ path: page, headers: html }, { path: api, headers: { accept: 'application/json', 'accept-encoding': 'gzip, deflate, br' } }]);
  const load = await runLoad(LINK.uploaders, 100_000, ctx.loadMs, (n) => send('document', LINK.uploadSize, 1000 + n));
  const probed = await probe.stop();
  const floor = percentile(probed.latencies, 99);
  for (const [i, what] of [`the link's page (GET ${'/proofs/<token>'}, index.html)`, 'its API call (GET /api/proof-links/<token>)'].entries()) {
    const times = probed.targets[i]!;
    const p99 = percentile(times, 99);
    ctx.report({
      section: 'proofs',
      metric: `${what} p99, while ${LINK.uploaders} clients upload 1 MiB documents`,
      value: fmtMs(p99),
      reference: `${fmtMs(floor)} (/healthz)`,
      ratio: floor / p99,
      goal: { text: `p99 < ${LINK.p99GoalMs} ms`, met: p99 < LINK.p99GoalMs },
      detail: `p50 ${fmtMs(percentile(times, 50))} (/healthz ${fmtMs(percentile(probed.latencies, 50))}), ${times.length} requests; uploads ${(load.count / (load.elapsedMs / 1000)).toFixed(1)}/s` + (probed.loop ? `; service event-loop delay p99 ${fmtMs(probed.loop.p99)}, max ${fmtMs(probed.loop.max)}` : ''),
    });
  }
}
