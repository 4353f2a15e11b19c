/**
 * An outside test of our own, again (issue 33): seeded, over real HTTP on both databases, what
 * found items 11, 12, 17 and 18. Aggregates pushed to their numeric limits (PI amounts and
 * payments drawn at and around every bound, then a thousand PIs of the former bound straight in the
 * database: the dashboard's totals must equal a BigInt oracle's); many parallel requests with
 * distinct parameters to the expensive endpoints (previews of a heavy PDF at drawn pages and
 * widths, searches and CSV exports with drawn filters) while another user's requests keep their
 * speed; and floods of connections from one user (realtime streams past the cap, a scan of
 * document names). Every refusal must be `{"error": string}` JSON; nothing may answer 5xx but a
 * preview's 503 with Retry-After.
 *
 * FUZZ_SEED replays a run (default: the fixed seed "issue-33", printed).
 */
import assert from 'node:assert/strict';
import fs from 'node:fs/promises';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { MAX_AMOUNT } from '../src/domain/money.js';
import { FILE_MISSES } from '../src/http/miss-throttle.js';
import { MAX_STREAMS_PER_USER } from '../src/realtime/streams.js';
import { refusalProblems, rngFor } from './helpers/fuzz.js';
import { barsPdf, pdfOf } from './helpers/pdf.js';
import { type Someone, insertFile } from './helpers/projects.js';
import { seedProjects } from './helpers/seed-projects.js';
import { type TestService, startTestService } from './helpers/service.js';

const SEED = process.env.FUZZ_SEED ?? 'issue-33';
const PREVIEW_TIMEOUT_MS = 2500;

let svc: TestService;
let admin: Someone;
let poc: Someone;
/** Each rendering's owner and whether the document could not be drawn (not a page past the end). */
let renders: { owner: string; unreadable: boolean }[] = [];

before(async () => {
  console.log(`outside-fuzz-limits seed: ${SEED} (FUZZ_SEED=${SEED} replays it)`);
  svc = await startTestService({ env: { TRUST_PROXY: 'true', PREVIEW_CONCURRENCY: '2', PREVIEW_TIMEOUT_MS: String(PREVIEW_TIMEOUT_MS) } });
  [admin, poc] = await Promise.all([svc.signIn('ADMIN'), svc.signIn('POC')]);
  const renderer = svc.deps.previews!.renderer;
  const render = renderer.render.bind(renderer);
  renderer.render = async (job, owner) => {
    const outcome = await render(job, owner);
    renders.push({ owner: owner ?? '', unreadable: !outcome.ok && outcome.reason === 'unreadable' });
    return outcome;
  };
});
after(() => svc?.close());

/** Problems of one answer as any client reads it: a refusal is {"error": string} JSON; no 5xx but a preview's 503 with Retry-After. */
function problemsOf(what: string, status: number, headers: Headers, body: Buffer, allowed: number[]): string[] {
  const problems: string[] = [];
  if (!allowed.includes(status)) problems.push(`${what}: status ${status} (allowed ${allowed.join(', ')}): ${body.toString('utf8').slice(0, 200)}`);
  if (status >= 400) problems.push(...refusalProblems(Object.fromEntries(headers), body).map((p) => `${what}: ${p}`));
  if ((status === 503 || status === 429) && !/^\d+$/.test(headers.get('retry-after') ?? '')) problems.push(`${what}: ${status} without Retry-After`);
  return problems;
}

async function call(method: string, url: string, who: Someone | null, json?: unknown, extra: Record<string, string> = {}) {
  const res = await fetch(`${svc.url}${url}`, {
    method,
    headers: { ...extra, ...(who?.client.cookie ? { cookie: who.client.cookie } : {}), ...(json === undefined ? {} : { 'content-type': 'application/json' }) },
    body: json === undefined ? undefined : JSON.stringify(json),
  });
  const body = Buffer.from(await res.arrayBuffer());
  return { status: res.status, headers: res.headers, body, at: performance.now() };
}

/** An amount drawn at and around every bound: MAX_AMOUNT, 2^53, the former bound, 2^63, zero, negatives, fractions, or any valid one. */
function drawAmount(rng: ReturnType<typeof rngFor>): unknown {
  return rng.weighted<() => unknown>([
    [() => rng.int(1, MAX_AMOUNT), 4],
    [() => MAX_AMOUNT, 2],
    [() => MAX_AMOUNT - rng.int(0, 1000), 2],
    [() => MAX_AMOUNT + rng.int(1, 1000), 1],
    [() => 2 ** 53 - 1, 1],
    [() => 2 ** 53 + 2, 1],
    [() => 9_007_199_254_740_000, 1],
    [() => 2 ** 63, 1],
    [() => 1e20, 0.5],
    [() => rng.pick([0, -1, -MAX_AMOUNT, 1.5, '100', null, true]), 1],
  ])();
}

const isAmount = (v: unknown): v is number => typeof v === 'number' && Number.isInteger(v) && v >= 1 && v <= MAX_AMOUNT;

test('aggregates at their numeric limits: drawn PIs and payments are taken or refused by the bound, and the dashboard’s totals (past 2^63) equal the oracle’s', async () => {
  const problems: string[] = [];
  const currencies = ['INR', 'JPY', 'KWD'] as const;
  for (let i = 0; i < 24; i++) {
    const rng = rngFor(`${SEED}/amounts`, i);
    const p = await svc.createProject(poc.user.id, { status: 'APPROVED' });
    const amount = drawAmount(rng);
    const currency = rng.pick(currencies);
    const pi = await call('POST', `/api/projects/${p.id}/submit-pi`, poc, { number: `F-${i}`, amount, currency });
    problems.push(...problemsOf(`#${i} submit-pi ${String(amount)}`, pi.status, pi.headers, pi.body, isAmount(amount) ? [200] : [400]));
    if (pi.status !== 200) continue;
    let paid = 0;
    for (let k = rng.int(0, 3); k > 0; k--) {
      const pay = drawAmount(rng);
      const ok = isAmount(pay) && paid + pay <= MAX_AMOUNT;
      const res = await call('POST', `/api/projects/${p.id}/payments`, admin, { amount: pay, receivedOn: '2026-01-15' });
      problems.push(...problemsOf(`#${i} payment ${String(pay)} after ${paid}`, res.status, res.headers, res.body, ok ? [201] : [400]));
      if (res.status === 201) paid += pay as number;
    }
    if (rng.chance(0.3)) await call('POST', `/api/projects/${p.id}/verify-pi`, admin, {});
  }
  // A thousand and more PIs of the former bound (rows kept from before it was lowered), drawn apart.
  const rng = rngFor(`${SEED}/rows`, 0);
  const extra = rng.int(1_030, 1_100);
  await seedProjects(svc.deps.database, { projects: extra * 3, customers: 3, pocIds: [poc.user.id], today: '2026-01-15' });
  const db = svc.deps.database.db;
  const seeded = await db.selectFrom('projects').select('id').where('pi_number', 'like', 'PI-%').execute();
  for (let from = 0; from < seeded.length; from += 200) {
    const ids = seeded.slice(from, from + 200).map((r) => r.id);
    await db.updateTable('projects').set({ pi_amount: 9_007_199_254_740_000 - rng.int(0, 10_000) * 1000 - from }).where('id', 'in', ids).execute();
  }

  // The oracle: positive balances of PIs submitted or verified on projects not cancelled, per currency, in BigInt.
  const rows = await db.selectFrom('projects').select(['id', 'pi_amount', 'pi_currency', 'pi_status', 'status']).execute();
  const payments = await db.selectFrom('payments').select(['project_id', 'amount']).execute();
  const paidBy = new Map<string, bigint>();
  for (const pay of payments) paidBy.set(pay.project_id, (paidBy.get(pay.project_id) ?? 0n) + BigInt(pay.amount));
  const want = new Map<string, { amount: bigint; projects: number }>();
  for (const r of rows) {
    if (r.pi_amount === null || !['SUBMITTED', 'VERIFIED'].includes(r.pi_status) || r.status === 'CANCELLED') continue;
    const balance = BigInt(r.pi_amount) - (paidBy.get(r.id) ?? 0n);
    if (balance <= 0n) continue;
    const w = want.get(r.pi_currency!) ?? { amount: 0n, projects: 0 };
    want.set(r.pi_currency!, { amount: w.amount + balance, projects: w.projects + 1 });
  }
  assert.ok((want.get('INR')?.amount ?? 0n) > 2n ** 63n, 'the INR total passes 2^63');

  const stats = await call('GET', '/api/dashboard/stats', admin);
  problems.push(...problemsOf('dashboard', stats.status, stats.headers, stats.body, [200]));
  if (stats.status === 200) {
    const outstanding = JSON.parse(stats.body.toString()).pi.outstanding as Record<string, { amount: number | string; projects: number }>;
    const got = Object.fromEntries(Object.entries(outstanding).map(([c, o]) => [c, `${BigInt(o.amount)} in ${o.projects}`]));
    assert.deepEqual(got, Object.fromEntries([...want].map(([c, w]) => [c, `${w.amount} in ${w.projects}`])));
    for (const o of Object.values(outstanding)) if (typeof o.amount === 'number') assert.ok(Number.isSafeInteger(o.amount), `${o.amount} is exact`);
  }
  const pocStats = await call('GET', '/api/dashboard/stats', poc);
  problems.push(...problemsOf('POC dashboard', pocStats.status, pocStats.headers, pocStats.body, [200]));
  const csv = await call('GET', '/api/projects.csv', admin);
  problems.push(...problemsOf('CSV', csv.status, csv.headers, csv.body, [200]));
  assert.deepEqual(problems, []);
});

test('parallel distinct-parameter requests to the expensive endpoints: at most one failed rendering per heavy document, every answer readable, another user’s requests keep their speed', async () => {
  const rng = rngFor(`${SEED}/expensive`, 0);
  const flooder = await svc.signIn('POC');
  const other = await svc.signIn('POC');
  const project = await svc.createProject(flooder.user.id, { name: 'Expensive' });
  const mine = await svc.createProject(other.user.id, { name: 'Mine' });
  const heavy = pdfOf([{ content: Buffer.from('0 0 m 595 842 l S\n'.repeat(5_000_000), 'latin1'), deflate: true }]);
  const store = async (projectId: string, ownerId: string, bytes: Buffer) => {
    const f = await insertFile(svc, projectId, 'PO', ownerId);
    const file = path.join(svc.deps.storage.servesOwnFiles!.root, f.storageKey);
    await fs.mkdir(path.dirname(file), { recursive: true });
    await fs.writeFile(file, bytes);
    return f.id;
  };
  const heavyIds = [await store(project.id, flooder.user.id, heavy), await store(project.id, flooder.user.id, heavy)];
  const small = await store(mine.id, other.user.id, barsPdf(1));
  renders = [];

  const requests: Promise<string[]>[] = [];
  const seen = new Set<string>();
  for (let i = 0; requests.length < 40; i++) {
    const kind = rng.weighted([
      ['preview', 3],
      ['search', 1],
      ['csv', 1],
    ] as const);
    let url: string;
    if (kind === 'preview') url = `/api/projects/${project.id}/files/${rng.pick(heavyIds)}/preview?page=${rng.int(1, 40)}&width=${rng.int(64, 1600)}`;
    else {
      const q = rng.pick([rng.text(rng.int(1, 12)), '%', '_', "'", '\\', 'Job 1', '😀', 'x'.repeat(300)]);
      const filters = `q=${encodeURIComponent(q)}&status=${rng.pick(['REQUESTED', 'APPROVED', 'PRINTING', 'LOST'])}&limit=${rng.int(1, 250)}`;
      url = kind === 'search' ? `/api/projects?${filters}` : `/api/projects.csv?${filters}`;
    }
    if (seen.has(url)) continue;
    seen.add(url);
    const allowed = kind === 'preview' ? [404, 503] : [200, 400];
    requests.push(call('GET', url, flooder).then((r) => problemsOf(`GET ${url}`, r.status, r.headers, r.body, allowed)));
  }
  // Meanwhile another user: their project, and their own small preview, in turn with the flood.
  await new Promise((r) => setTimeout(r, 100));
  const asked = performance.now();
  const [theirs, list] = await Promise.all([call('GET', `/api/projects/${mine.id}/files/${small}/preview?width=200`, other), call('GET', `/api/projects/${mine.id}`, other)]);
  const waited = performance.now() - asked;
  const problems = (await Promise.all(requests)).flat();
  assert.deepEqual(problems, []);
  assert.equal(list.status, 200);
  assert.equal(theirs.status, 200, theirs.body.toString());
  // Behind at most the two renderings under way (each bounded by the time limit), never the flood's forty.
  assert.ok(waited < 3 * PREVIEW_TIMEOUT_MS + 3000, `the other user's preview took ${Math.round(waited)} ms`);
  // Per heavy document, at most one failed drawing, and at most one measuring of a page past the end before it: never one per page or width.
  const theirsRendered = renders.filter((r) => r.owner === flooder.user.id);
  assert.ok(theirsRendered.filter((r) => r.unreadable).length <= heavyIds.length, JSON.stringify(renders));
  assert.ok(theirsRendered.length <= 2 * heavyIds.length, `${theirsRendered.length} renderings for ${heavyIds.length} documents`);
});

test('connection floods from one user: streams past the cap are JSON 429s while others open theirs; a scan of document names ends in 429s for that address only', async () => {
  const rng = rngFor(`${SEED}/floods`, 0);
  const flooder = await svc.signIn('CLIENT');
  const other = await svc.signIn('POC');
  const n = MAX_STREAMS_PER_USER + rng.int(5, 20);
  const streams = await Promise.all(Array.from({ length: n }, () => fetch(`${svc.url}/api/realtime${rng.chance(0.5) ? '?channels=projects' : ''}`, { headers: { cookie: flooder.client.cookie! } })));
  const problems: string[] = [];
  let open = 0;
  for (const res of streams) {
    if (res.status === 200) {
      open++;
      continue;
    }
    problems.push(...problemsOf('stream', res.status, res.headers, Buffer.from(await res.arrayBuffer()), [429]));
  }
  assert.equal(open, MAX_STREAMS_PER_USER);
  const theirs = await fetch(`${svc.url}/api/realtime`, { headers: { cookie: other.client.cookie! } });
  assert.equal(theirs.status, 200, 'another user opens theirs');
  await theirs.body!.cancel();
  await Promise.all(streams.filter((r) => r.status === 200).map((r) => r.body!.cancel()));

  // A scan of the likely second's names from one address; a real page of existing documents from another.
  const project = await svc.createProject(poc.user.id, { name: 'Scanned' });
  const doc = await insertFile(svc, project.id, 'PO', poc.user.id);
  const file = path.join(svc.deps.storage.servesOwnFiles!.root, doc.storageKey);
  await fs.mkdir(path.dirname(file), { recursive: true });
  await fs.writeFile(file, '%PDF-1.4 found');
  const scanner = `198.51.100.${rng.int(1, 254)}`;
  const base = 1_795_800_000_000 + rng.int(0, 1_000_000) * 1000;
  const statuses: number[] = [];
  for (let ms = 0; ms < FILE_MISSES.burst + 20; ms++) {
    const res = await call('GET', `/files/print-orders/${project.id}/po/po_${base + ms}.pdf`, null, undefined, { 'x-forwarded-for': scanner });
    statuses.push(res.status);
    problems.push(...problemsOf('scan', res.status, res.headers, res.body, [404, 429]));
  }
  assert.deepEqual(statuses.slice(0, FILE_MISSES.burst), Array(FILE_MISSES.burst).fill(404));
  assert.deepEqual([...new Set(statuses.slice(FILE_MISSES.burst))], [429]);
  assert.equal((await call('GET', new URL(doc.url).pathname, null, undefined, { 'x-forwarded-for': scanner })).status, 429, 'a hit is no different while throttled');
  assert.equal((await call('GET', new URL(doc.url).pathname, null, undefined, { 'x-forwarded-for': '203.0.113.9' })).status, 200);
  assert.deepEqual(problems, []);
});
