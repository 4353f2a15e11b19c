/**
 * GET /api/projects.csv (interface.md, "The job itself"), over real HTTP on both databases: who
 * may download it and what each sees (the one visibility rule, a CLIENT of a customer included),
 * the list's filters and order, the bytes (a byte-order mark once, CRLF, RFC 4180 quoting, the
 * formula prefix), money in major units, and 20,000 projects streamed page by page: read as the
 * client reads, stopped when the client goes away, and (the service in its own process, its heap
 * capped at 96 MiB) 80 MB of CSV out whole with its RSS growing by less than 128 MiB.
 */
import assert from 'node:assert/strict';
import http from 'node:http';
import { after, before, describe, test } from 'node:test';
import type { User } from '../src/domain/model.js';
import { openDatabase } from '../src/db/index.js';
import { silentLog } from '../src/logger.js';
import { FROM_SOURCE, RssSampler, type ServiceProcess, settledRss, spawnService } from './helpers/child-service.js';
import { isoInZone } from '../src/domain/shop-format.js';
import { Client, type TestService, startTestService, testConfig } from './helpers/service.js';
import { seedProjects } from './helpers/seed-projects.js';

type Someone = { user: User; client: Client };

const COLUMNS = 'id,name,customer,reference,status,piStatus,dueDate,overdue,poc,piNumber,piAmount,currency,paid,balance,createdAt,rush,held,holdReason,number';
const NOW = '2026-03-10T06:00:00.000Z';
const TODAY = '2026-03-10';

let svc: TestService;
let admin: Someone;
let poc: Someone;
let otherPoc: Someone;
let acmeClient: Someone;
let loneClient: Someone;
let acmeId: string;
let betaId: string;

before(async () => {
  svc = await startTestService({ env: { TIMEZONE: 'Asia/Kolkata' } });
  svc.deps.clock = { now: () => new Date(NOW) };
  [admin, poc, otherPoc, acmeClient, loneClient] = await Promise.all([svc.signIn('ADMIN'), svc.signIn('POC'), svc.signIn('POC'), svc.signIn('CLIENT'), svc.signIn('CLIENT')]);
  acmeId = (await admin.client.post('/api/customers', { name: '@Acme, "Quoted" Ltd' })).body.id;
  betaId = (await admin.client.post('/api/customers', { name: 'Beta Traders' })).body.id;
  assert.equal((await admin.client.patch(`/api/team/${acmeClient.user.id}`, { customerId: acmeId })).status, 200);
});
after(() => svc?.close());

/** The raw answer (fetch's text() would drop the byte-order mark). */
async function download(who: Someone | null, query = ''): Promise<{ status: number; headers: Headers; bytes: Buffer; text: string }> {
  const res = await fetch(`${svc.url}/api/projects.csv${query}`, { headers: who?.client.cookie ? { cookie: who.client.cookie } : {} });
  const bytes = Buffer.from(await res.arrayBuffer());
  return { status: res.status, headers: res.headers, bytes, text: bytes.toString('utf8') };
}

/** RFC 4180 read back: records of fields (quoted fields may hold commas, quotes doubled, line breaks). */
function parseCsv(text: string): string[][] {
  const records: string[][] = [];
  let field = '';
  let record: string[] = [];
  let quoted = false;
  const endField = () => {
    record.push(field);
    field = '';
  };
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (quoted) {
      if (c === '"' && text[i + 1] === '"') {
        field += '"';
        i++;
      } else if (c === '"') quoted = false;
      else field += c;
    } else if (c === '"' && field === '') quoted = true;
    else if (c === ',') endField();
    else if (c === '\r' && text[i + 1] === '\n') {
      endField();
      records.push(record);
      record = [];
      i++;
    } else field += c;
  }
  assert.equal(field + record.join(''), '', 'the last line ends with CRLF');
  return records;
}

/** The body's records as objects by the header's names. */
function rowsOf(text: string): Record<string, string>[] {
  assert.ok(text.startsWith('\uFEFF'), 'the byte-order mark first');
  const [header, ...records] = parseCsv(text.slice(1));
  assert.equal(header!.join(','), COLUMNS);
  return records.map((r) => Object.fromEntries(header!.map((h, i) => [h, r[i]!])));
}

const idsOf = (text: string) => rowsOf(text).map((r) => r.id);

describe('GET /api/projects.csv', () => {
  test('no session: 401 JSON; an unknown filter value: 400 JSON naming it; nothing streamed', async () => {
    const anonymous = await download(null);
    assert.equal(anonymous.status, 401);
    assert.deepEqual(JSON.parse(anonymous.text), { error: 'Unauthorized' });
    for (const query of ['?status=LOST', '?due=later', '?sort=oldest', '?piStatus=PAID', '?approval=MAYBE']) {
      const res = await download(admin, query);
      assert.equal(res.status, 400, query);
      assert.match(res.headers.get('content-type') ?? '', /^application\/json/, query);
      assert.match(JSON.parse(res.text).error, new RegExp(query.slice(1, query.indexOf('='))), query);
    }
  });

  test('the bytes: text/csv UTF-8, a dated file name, the byte-order mark once, the header, CRLF lines, every project', async () => {
    const project = await svc.createProject(poc.user.id, { name: 'Wedding cards', reference: 'PO-77', dueDate: '2026-03-09', status: 'APPROVED' });
    const res = await download(admin);
    assert.equal(res.status, 200);
    assert.equal(res.headers.get('content-type'), 'text/csv; charset=utf-8');
    assert.equal(res.headers.get('content-disposition'), `attachment; filename="projects-${TODAY}.csv"`);
    assert.deepEqual([...res.bytes.subarray(0, 3)], [0xef, 0xbb, 0xbf]);
    assert.equal(res.text.split('\uFEFF').length, 2, 'one byte-order mark');
    assert.ok(res.text.startsWith(`\uFEFF${COLUMNS}\r\n`));
    assert.doesNotMatch(res.text.replace(/\r\n/g, ''), /\n/, 'every line ends with CRLF');
    const row = rowsOf(res.text).find((r) => r.id === project.id);
    assert.deepEqual(row, {
      id: project.id,
      name: 'Wedding cards',
      customer: '',
      reference: 'PO-77',
      status: 'APPROVED',
      piStatus: 'PENDING',
      dueDate: '2026-03-09',
      overdue: 'true',
      poc: poc.user.name,
      piNumber: '',
      piAmount: '',
      currency: 'INR',
      paid: '0.00',
      balance: '',
      createdAt: isoInZone(project.createdAt, 'Asia/Kolkata'),
      rush: 'false',
      held: 'false',
      holdReason: '',
      number: String(project.number),
    });
    // The shop's offset (TIMEZONE), not UTC: the same instant, and the date the screen shows (issue 33, item 8).
    assert.match(row!.createdAt!, /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}\+05:30$/);
    assert.equal(Date.parse(row!.createdAt!), Date.parse(project.createdAt));
    assert.equal(row!.createdAt!.slice(0, 10), new Date(project.createdAt).toLocaleDateString('en-CA', { timeZone: 'Asia/Kolkata' }));
  });

  test('quoting and formulas: commas, quotes and line breaks quoted; values starting with = + - @ prefixed with an apostrophe', async () => {
    const names = ['=HYPERLINK("http://evil.example","click")', '+91 call me', '-2+3', '@SUM(A1)', 'Line one\r\nline two', 'Plain, with "quotes"', 'a=b stays'];
    const made = [];
    for (const name of names) made.push(await svc.createProject(otherPoc.user.id, { name, reference: name === '+91 call me' ? '=cmd|/c calc' : null, customerId: acmeId }));
    const rows = rowsOf((await download(otherPoc)).text);
    const byId = new Map(rows.map((r) => [r.id, r]));
    const expected = ['\'=HYPERLINK("http://evil.example","click")', "'+91 call me", "'-2+3", "'@SUM(A1)", 'Line one\r\nline two', 'Plain, with "quotes"', 'a=b stays'];
    made.forEach((p, i) => assert.equal(byId.get(p.id)?.name, expected[i]));
    assert.equal(byId.get(made[1]!.id)?.reference, "'=cmd|/c calc");
    assert.equal(byId.get(made[0]!.id)?.customer, '\'@Acme, "Quoted" Ltd');
    assert.equal(rows.length, names.length, 'the other POC sees only their own');
  });

  test('money: the PI and payments in major units with the currency digits, the balance; integer arithmetic', async () => {
    const project = await svc.createProject(poc.user.id, { name: 'Annual report', status: 'APPROVED' });
    const pi = await poc.client.post(`/api/projects/${project.id}/submit-pi`, { number: '-PI 42', amount: 12_500_001 });
    assert.equal(pi.status, 200, pi.text);
    const paid = await admin.client.post(`/api/projects/${project.id}/payments`, { amount: 2_500_000, receivedOn: '2026-03-01' });
    assert.equal(paid.status, 201, paid.text);
    const yen = await svc.createProject(poc.user.id, { name: 'Yen job', status: 'APPROVED' });
    assert.equal((await poc.client.post(`/api/projects/${yen.id}/submit-pi`, { number: 'Y-1', amount: 5000, currency: 'JPY' })).status, 200);
    const rows = new Map(rowsOf((await download(poc)).text).map((r) => [r.id, r]));
    const row = rows.get(project.id)!;
    assert.deepEqual([row.piNumber, row.piAmount, row.currency, row.paid, row.balance, row.piStatus], ["'-PI 42", '125000.01', 'INR', '25000.00', '100000.01', 'SUBMITTED']);
    const yenRow = rows.get(yen.id)!;
    assert.deepEqual([yenRow.piAmount, yenRow.currency, yenRow.paid, yenRow.balance], ['5000', 'JPY', '0', '5000']);
  });

  test('who sees what: ADMIN all, a POC their own, a CLIENT their own and their customer’s, another CLIENT none of them', async () => {
    const acmeJob = await svc.createProject(otherPoc.user.id, { name: 'Acme brochure', customerId: acmeId });
    const betaJob = await svc.createProject(otherPoc.user.id, { name: 'Beta brochure', customerId: betaId });
    const clientsOwn = await svc.createProject(loneClient.user.id, { name: 'Lone client job' });
    const all = idsOf((await download(admin)).text);
    for (const p of [acmeJob, betaJob, clientsOwn]) assert.ok(all.includes(p.id));
    const json = await admin.client.get('/api/projects?limit=200');
    assert.deepEqual(all, json.body.items.map((p: { id: string }) => p.id), 'the list’s order, newest first');

    const mine = idsOf((await download(poc)).text);
    assert.ok(mine.length > 0);
    const pocJson = await poc.client.get('/api/projects?limit=200');
    assert.deepEqual(mine, pocJson.body.items.map((p: { id: string }) => p.id));
    for (const p of [acmeJob, betaJob, clientsOwn]) assert.ok(!mine.includes(p.id));

    const acme = idsOf((await download(acmeClient)).text);
    assert.ok(acme.includes(acmeJob.id));
    assert.ok(!acme.includes(betaJob.id) && !acme.includes(clientsOwn.id));
    const acmeJson = await acmeClient.client.get('/api/projects?limit=200');
    assert.deepEqual(acme, acmeJson.body.items.map((p: { id: string }) => p.id));

    assert.deepEqual(idsOf((await download(loneClient)).text), [clientsOwn.id]);
  });

  test('the list’s filters: customerId, status, q (name, reference, customer, POC), due=overdue&sort=due in the list’s order', async () => {
    await svc.createProject(poc.user.id, { name: 'Overdue one', dueDate: '2026-03-01', status: 'PRINTING', customerId: betaId });
    await svc.createProject(poc.user.id, { name: 'Overdue two', dueDate: '2026-02-01', status: 'APPROVED' });
    await svc.createProject(poc.user.id, { name: 'Delivered late', dueDate: '2026-02-01', status: 'DELIVERED' });
    for (const query of ['?customerId=' + betaId, '?status=PRINTING', '?q=overdue', '?q=po-77', '?q=beta trad', `?q=${encodeURIComponent(poc.user.name.slice(1, 6))}`, '?due=overdue&sort=due', '?sort=due', '?q=zzz-nothing']) {
      const csv = idsOf((await download(admin, query)).text);
      const json = await admin.client.get(`/api/projects${query}&limit=200`.replace('s&', 's?'));
      assert.equal(json.status, 200, query);
      assert.deepEqual(csv, json.body.items.map((p: { id: string }) => p.id), query);
    }
    const overdue = rowsOf((await download(admin, '?due=overdue&sort=due')).text);
    assert.ok(overdue.length >= 2);
    assert.ok(overdue.every((r) => r.overdue === 'true'));
    assert.deepEqual(overdue.map((r) => r.dueDate), overdue.map((r) => r.dueDate).sort());
  });
});

describe('20,000 projects', () => {
  const COUNT = 20_000;
  let reads = 0;

  before(async () => {
    // About 1 KB a line, 20 MB in all: far more than the sockets' buffers (a few MB) hold while the client waits.
    const { customerIds } = await seedProjects(svc.deps.database, { projects: COUNT, customers: 50, pocIds: [admin.user.id], today: TODAY, namePadding: 900 });
    assert.equal(customerIds.length, 50);
    // Count the pages read: the export reads through the list's repository walk (csvPage).
    const repo = svc.deps.store.projects;
    const csvPage = repo.csvPage.bind(repo);
    repo.csvPage = (...args) => ((reads += 1), csvPage(...args));
  });

  test('the lean read writes what the project objects wrote: byte for byte, every page, each sort and a filter', async () => {
    // Among the 20,000 (40 pages): payments (two on one), lines, holds, rush, Devanagari, a customer with quotes, PIs and none.
    const db = svc.deps.database.db;
    const picked = await db.selectFrom('projects').select(['id', 'pi_amount']).orderBy('number').where('number', '<=', 2000).execute();
    const withPi = picked.filter((p) => p.pi_amount !== null);
    const at = '2026-03-01T00:00:00.000Z';
    for (const [i, p] of withPi.slice(0, 30).entries()) {
      for (let k = 0; k <= i % 2; k++) {
        await db.insertInto('payments').values({ id: crypto.randomUUID(), project_id: p.id, amount: 1000 * (i + 1) + k, currency: 'INR', received_on: '2026-03-01', method: null, reference: null, recorded_by_id: admin.user.id, created_at: at }).execute();
      }
    }
    for (const [i, p] of picked.slice(0, 20).entries()) {
      await db.insertInto('project_items').values({ id: crypto.randomUUID(), project_id: p.id, position: 0, description: `पोस्टर ${i}`, quantity: 10, unit: 'pcs', size: null, stock: null, colours: null, finishing: null, notes: null }).execute();
    }
    for (const p of picked.slice(40, 60)) await db.updateTable('projects').set({ held: true, hold_reason: 'कागज़ की कमी, "paper"', hold_since: at, hold_by_id: admin.user.id }).where('id', '=', p.id).execute();
    for (const p of picked.slice(50, 90)) await db.updateTable('projects').set({ rush: true, name: `शादी के कार्ड ${p.id.slice(0, 4)}` }).where('id', '=', p.id).execute();
    await db.updateTable('projects').set({ customer_id: acmeId }).where('id', '=', picked[3]!.id).execute();

    const { csvLine } = await import('../src/domain/csv.js');
    const { projectCsvValues } = await import('../src/presenters/projects-csv.js');
    const config = svc.deps.config;
    /** The export as it was made before the lean read: the list's pages of project objects, each through projectCsvValues. */
    const before = async (f: { sort?: 'due' | 'priority'; q?: string }) => {
      let text = '';
      let cursor: string | undefined;
      do {
        const page = await svc.deps.store.projects.list({ all: true }, { ...f, limit: 500, cursor });
        for (const p of page.items) text += csvLine(projectCsvValues(p, TODAY, config.currency, config.timeZone));
        cursor = page.nextCursor ?? undefined;
      } while (cursor);
      return text;
    };
    for (const [query, f] of [['', {}], ['?sort=due', { sort: 'due' }], ['?sort=priority', { sort: 'priority' }], ['?q=job 1', { q: 'job 1' }]] as const) {
      const now = (await download(admin, query)).text;
      const then = await before(f);
      assert.ok(then.split('\r\n').length > 1000, query);
      assert.equal(now.slice(now.indexOf('\r\n') + 2), then, query || 'newest');
    }
  });

  test('streamed: read as the client reads, not ahead; a client that goes away stops the reads', async () => {
    reads = 0;
    const url = new URL('/api/projects.csv', svc.url);
    const req = http.get(url, { headers: { cookie: admin.client.cookie! } });
    const res = await new Promise<http.IncomingMessage>((resolve) => req.once('response', resolve));
    assert.equal(res.statusCode, 200);
    res.pause();
    // The client reads nothing more: the server fills the socket's buffers, then waits.
    await new Promise((r) => setTimeout(r, 1500));
    const whilePaused = reads;
    assert.ok(whilePaused >= 1 && whilePaused < 20, `the server read ${whilePaused} of ${COUNT / 500} pages (500 KB each) while the client read nothing`);
    req.destroy();
    await new Promise((r) => setTimeout(r, 800));
    const afterGone = reads;
    assert.ok(afterGone <= whilePaused + 1, `the reads went on after the client left (${whilePaused} → ${afterGone})`);
  });

  test('the whole export in pages: every project once', async () => {
    reads = 0;
    const ids = await streamedIds(new URL('/api/projects.csv', svc.url), admin.client.cookie!);
    assert.ok(ids.size >= COUNT, `${ids.size} projects`);
    assert.ok(reads >= COUNT / 500, 'read in pages');
  });
});

describe('the service’s memory during an export of 20,000 projects (its own process)', () => {
  let child: ServiceProcess | undefined;
  let cleanup: (() => Promise<void>) | undefined;
  after(async () => {
    await child?.stop();
    await cleanup?.();
  });

  test('with its heap capped at 96 MiB, 80 MB of CSV go out whole and its RSS grows by less than 128 MiB', async (t) => {
    const credentials = { email: 'csv-admin@example.com', password: 'csv-admin-password' };
    const made = await testConfig({ env: { ADMIN_EMAIL: credentials.email, ADMIN_PASSWORD: credentials.password } });
    cleanup = made.cleanup;
    // The heap capped below what an 80 MB answer held whole would need: the export must stream to finish at all.
    child = await spawnService(made.env, { entry: ['--max-old-space-size=96', ...FROM_SOURCE] });
    const client = new Client(child.url);
    assert.equal((await client.post('/api/auth/login', credentials)).status, 200);
    const me = await client.get('/api/account');
    const database = await openDatabase(made.config.database, silentLog);
    try {
      await seedProjects(database, { projects: 20_000, customers: 50, pocIds: [me.body.id], today: TODAY });
      // A POC name of 4,000 characters on every line: 80 MB of CSV, more than the bound if the answer were held whole.
      await database.db.updateTable('users').set({ name: `Admin ${'with a very long name '.repeat(200)}`.slice(0, 4000) }).where('id', '=', me.body.id).execute();
    } finally {
      await database.destroy();
    }
    // Warmed up first (modules loaded, statements prepared) by an export of a few projects: what follows is the export's own.
    assert.ok((await streamedIds(new URL('/api/projects.csv?q=Job 1999', child.url), client.cookie!)).size > 0);
    const rest = await settledRss(child.pid);
    const sampler = new RssSampler(child.pid).start();
    const ids = await streamedIds(new URL('/api/projects.csv', child.url), client.cookie!);
    sampler.stop();
    assert.ok(ids.size >= 20_000, `${ids.size} projects`);
    const growth = sampler.peak - rest;
    t.diagnostic(`RSS at rest ${(rest / 1048576).toFixed(1)} MiB, peak ${(sampler.peak / 1048576).toFixed(1)} MiB`);
    assert.ok(growth < 128 * 1024 * 1024, `RSS grew by ${(growth / 1048576).toFixed(1)} MiB for an 80 MB export`);
  });
});

/** The ids of a CSV download read as a stream (only the ids kept). */
async function streamedIds(url: URL, cookie: string): Promise<Set<string>> {
  const ids = new Set<string>();
  let lines = 0;
  let rest = '';
  const res = await new Promise<http.IncomingMessage>((resolve) => http.get(url, { headers: { cookie } }, resolve));
  assert.equal(res.statusCode, 200);
  res.setEncoding('utf8');
  for await (const chunk of res as AsyncIterable<string>) {
    const parts = (rest + chunk).split('\r\n');
    rest = parts.pop()!;
    for (const line of parts) if (lines++ > 0 && /^[0-9a-f-]{36},/.test(line)) ids.add(line.slice(0, 36));
  }
  assert.equal(rest, '', 'the last line ends with CRLF');
  return ids;
}
