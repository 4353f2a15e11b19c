/**
 * The job ticket (interface.md, "The job ticket"), over real HTTP on both databases: the PDF's text
 * read back (pdf.js) with a Devanagari customer, every line's every field, fifty lines flowing onto
 * further pages with the table's header repeated, the RUSH mark and the hold only when they apply,
 * the latest approved proof's version, who may fetch it (a CLIENT of another customer hears what a
 * missing project answers), the QR code decoded from the drawn first page, and a 5,000-character
 * word drawn without pdfkit's quadratic cutting.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import jsQRModule from 'jsqr';
import { ConfigError, loadConfig } from '../src/config.js';
import { newId } from '../src/ids.js';
import { finish, newDocument } from '../src/pdf/document.js';
import { PdfRenderer } from '../src/pdf/index.js';
import { ticket } from '../src/pdf/layouts/ticket.js';
import { ticketData } from '../src/domain/ticket.js';
import { pagePixels } from './helpers/pdf-image.js';
import { hasWordLetters, pdfPages } from './helpers/pdf-text.js';
import { type Someone, startJobService } from './helpers/projects.js';
import { type Client, type TestService, startTestService } from './helpers/service.js';

// jsQR is CommonJS: its function is the module itself (and its `default`); the types declare only the default.
const jsQR = jsQRModule as unknown as typeof jsQRModule.default;

let svc: TestService;
let admin: Someone;
let poc: Someone;
let otherPoc: Someone;
let clientUser: Someone;
let strangerClient: Someone;
let customerId: string;

const CUSTOMER = 'शर्मा प्रिंटर्स Pvt Ltd';

before(async () => {
  ({ svc, admin, poc, otherPoc, clientUser } = await startJobService(() => '2026-11-27T04:30:00.000Z'));
  const made = await admin.client.post('/api/customers', { name: CUSTOMER });
  assert.equal(made.status, 201, made.text);
  customerId = made.body.id;
  const other = await admin.client.post('/api/customers', { name: 'Other Traders' });
  assert.equal(other.status, 201, other.text);
  strangerClient = await svc.signIn('CLIENT');
  assert.equal((await admin.client.patch(`/api/team/${clientUser.user.id}`, { customerId })).status, 200);
  assert.equal((await admin.client.patch(`/api/team/${strangerClient.user.id}`, { customerId: other.body.id })).status, 200);
});
after(() => svc?.close());

async function fetchPdf(client: Client, id: string): Promise<{ status: number; type: string | null; disposition: string | null; bytes: Buffer; text: string }> {
  const res = await fetch(new URL(`/api/projects/${id}/ticket.pdf`, client.baseUrl), { headers: client.cookie ? { cookie: client.cookie } : {} });
  const bytes = Buffer.from(await res.arrayBuffer());
  return { status: res.status, type: res.headers.get('content-type'), disposition: res.headers.get('content-disposition'), bytes, text: res.ok ? '' : bytes.toString('utf8') };
}

const line = (i: number) => ({
  description: `Line ${i} visiting cards`,
  quantity: 1000 + i,
  unit: 'pcs',
  size: `90x${50 + i} mm`,
  stock: `Art card ${300 + i} gsm`,
  colours: `CMYK${i} + Pantone ${i}`,
  finishing: `Matte lamination ${i}`,
  notes: `Note ${i}: cut to bleed`,
});

/** A project owned by `poc` for the customer, with these lines and details (set by the ADMIN). */
async function project(items: Record<string, unknown>[], details: Record<string, unknown> = {}, name = `Wedding cards ${newId().slice(-6)}`) {
  const p = await svc.createProject(poc.user.id, { name, status: 'APPROVED', customerId });
  const res = await admin.client.patch(`/api/projects/${p.id}`, { items, ...details });
  assert.equal(res.status, 200, res.text);
  return res.body as { id: string; number: number; name: string };
}

describe('the job ticket', () => {
  let full: { id: string; number: number; name: string };
  let pages: string[];

  before(async () => {
    const items = [
      { description: 'शादी का निमंत्रण कार्ड', quantity: 250, unit: 'sets', size: 'A5', stock: 'Handmade paper', colours: 'Gold foil', finishing: 'Die cut, ribbon', notes: 'नाम सुनहरे अक्षरों में' },
      ...Array.from({ length: 49 }, (_, i) => line(i + 2)),
    ];
    full = await project(items, { reference: 'PO-7781', dueDate: '2026-12-03', deliveryAddress: '12 MG Road, Bengaluru 560001', rush: true, description: 'Repeat of last year, same die' });
    const held = await poc.client.post(`/api/projects/${full.id}/hold`, { reason: 'Waiting for the gold foil' });
    assert.equal(held.status, 200, held.text);
    // Proofs: v1 approved, v2 pending: the ticket names v1, the latest approved.
    for (const [version, status] of [[1, 'approved'], [2, 'pending']] as const) {
      await svc.deps.store.proofs.insert({
        id: newId(), projectId: full.id, version, filename: `proof-v${version}.pdf`, size: 10, contentType: 'application/pdf', detectedType: null, sha256: '0'.repeat(64),
        storageKey: `print-orders/${full.id}/proof/v${version}.pdf`, url: `${svc.url}/files/v${version}`, note: null, status, postedById: poc.user.id, createdAt: new Date().toISOString(), response: null,
      });
    }
    const res = await fetchPdf(admin.client, full.id);
    assert.equal(res.status, 200, res.text);
    assert.equal(res.type, 'application/pdf');
    assert.equal(res.disposition, `inline; filename="ticket-${full.id}.pdf"`);
    assert.equal(res.bytes.subarray(0, 5).toString('latin1'), '%PDF-');
    pages = await pdfPages(res.bytes);
  });

  test('the first page: the shop, #number, name, id, customer (Devanagari), reference, owner, due date, RUSH, the hold, delivery, the approved proof', () => {
    const first = pages[0]!;
    const expected = [
      new URL(svc.deps.config.publicUrl).host, 'JOB TICKET', `#${full.number}`, full.name, full.id, 'PO-7781', poc.user.name, '3 Dec 2026', 'RUSH',
      'ON HOLD: Waiting for the gold foil', '12 MG Road, Bengaluru 560001', 'Repeat of last year, same die', 'Approved proof', 'v1', 'Pvt Ltd',
    ];
    for (const word of expected) assert.ok(first.includes(word), `${word} in ${first}`);
    for (const word of CUSTOMER.split(' ')) assert.ok(hasWordLetters(first, word), `${word} in ${first}`);
    assert.ok(!first.includes('v2'), 'the pending v2 is not the approved proof');
  });

  test('every line with every field; fifty lines flow onto further pages with the header repeated and the job named', () => {
    assert.ok(pages.length >= 2, `${pages.length} pages`);
    const all = pages.join('\n');
    for (const word of ['शादी', 'निमंत्रण', 'कार्ड', 'सुनहरे', 'अक्षरों']) assert.ok(hasWordLetters(all, word), word);
    for (const word of ['250 sets', 'A5', 'Handmade paper', 'Gold foil', 'Die cut, ribbon']) assert.ok(all.includes(word), word);
    for (let i = 2; i <= 50; i++) {
      const l = line(i);
      for (const cell of [l.description, `${(1000 + i).toLocaleString('en-IN')} pcs`, l.size, l.stock, l.colours, l.finishing, l.notes]) assert.ok(all.includes(cell), `line ${i}: ${cell}`);
    }
    const last = pages[pages.length - 1]!;
    assert.ok(last.includes('50 Line 50 visiting cards'), 'the last line, its number whole, on the last page');
    for (const page of pages.slice(1)) {
      for (const header of ['Description', 'Quantity', 'Size', 'Stock', 'Colours', 'Finishing', 'Notes']) assert.ok(page.includes(header), `${header} repeated: ${page.slice(0, 300)}`);
      assert.ok(page.includes(`#${full.number} · ${full.name} (continued)`), page.slice(0, 200));
    }
    assert.ok(pages[0]!.includes(`Page 1 of ${pages.length}`));
    assert.ok(!pages[0]!.includes('Line 50 visiting cards'));
  });

  test('the QR code on the first page, decoded from the drawn page, is the project\'s address', async () => {
    const res = await fetchPdf(poc.client, full.id);
    const { data, width, height } = await pagePixels(res.bytes, 1, 3);
    const found = jsQR(data, width, height);
    assert.ok(found, 'a QR code on page 1');
    assert.equal(found.data, `${svc.deps.config.publicUrl}/projects/${full.id}`);
    const second = await pagePixels(res.bytes, 2, 3);
    assert.equal(jsQR(second.data, second.width, second.height), null, 'only on the first page');
  });

  test('no RUSH mark and no hold on a job that is neither; no approved proof said so; a job without lines', async () => {
    const plain = await project([], {});
    const res = await fetchPdf(poc.client, plain.id);
    assert.equal(res.status, 200, res.text);
    const text = (await pdfPages(res.bytes)).join('\n');
    assert.ok(text.includes(`#${plain.number}`) && text.includes(plain.name));
    assert.ok(!text.includes('RUSH'), text);
    assert.ok(!text.includes('ON HOLD'), text);
    assert.ok(text.includes('None approved'), text);
    assert.ok(text.includes('Lines (0)'), text);
  });

  test('ADMIN and the owner; a CLIENT of the customer 403; another POC and a CLIENT of another customer 404 as for a missing project; no session 401', async () => {
    const p = await project([line(1)]);
    assert.equal((await fetchPdf(admin.client, p.id)).status, 200);
    assert.equal((await fetchPdf(poc.client, p.id)).status, 200);
    const forbidden = await fetchPdf(clientUser.client, p.id);
    assert.deepEqual([forbidden.status, JSON.parse(forbidden.text)], [403, { error: 'Forbidden' }]);
    const missing = await fetchPdf(strangerClient.client, newId());
    assert.deepEqual([missing.status, JSON.parse(missing.text)], [404, { error: 'Project not found' }]);
    for (const who of [strangerClient, otherPoc]) {
      const res = await fetchPdf(who.client, p.id);
      assert.deepEqual([res.status, res.text], [missing.status, missing.text], who.user.role);
    }
    assert.equal((await fetchPdf(svc.anonymous, p.id)).status, 401);
  });
});

describe('a word too long for its column', () => {
  const renderer = new PdfRenderer({ concurrency: 1, timeoutMs: 120_000, maxWaiting: 2 });
  after(() => renderer.close());

  test('a 5,000-character word in a narrow column is broken before pdfkit sees it: the letters measured stay within a small multiple of the same letters in short words (unbroken: over a thousand times), every letter kept', async () => {
    const base = (await svc.deps.store.projects.findWithNames((await project([line(1)])).id))!;
    const ticketOf = (text: string) =>
      ticketData({
        project: { ...base, items: [{ ...base.items[0]!, notes: text }] },
        shopName: 'Shop', publicUrl: 'https://shop.example', approvedProof: null, currency: 'INR', timeZone: 'Asia/Kolkata', now: '2026-11-27T04:30:00.000Z',
      });
    const word = 'Z'.repeat(5000); // a letter no other text of the ticket has
    const words = 'ZZZZ '.repeat(1250).trim(); // the same letters, breakable at its spaces: the reference
    // pdfkit cuts an over-long word by measuring ever shorter pieces of it: the letters it measures (widthOfString's strings) grow quadratically.
    const measurements = async (text: string) => {
      const doc = newDocument({ title: 'count' });
      let calls = 0;
      const widthOfString = doc.widthOfString.bind(doc);
      doc.widthOfString = (...args: Parameters<typeof widthOfString>) => {
        calls += String(args[0]).length;
        return widthOfString(...args);
      };
      ticket(doc, ticketOf(text));
      await finish(doc);
      return calls;
    };
    const reference = await measurements(words);
    const long = await measurements(word);
    // Unbroken, pdfkit measures ever longer pieces of such a word (millions of letters: seconds of CPU); broken first, a few times the words' (each piece is measured once more whole).
    assert.ok(long < reference * 20, `the word's measurements took ${long} letters, the same letters in words ${reference}`);
    const pdf = await renderer.render('ticket', ticketOf(word));
    const text = (await pdfPages(pdf)).join('\n');
    assert.equal([...text.matchAll(/Z/g)].length, 5000, 'every letter of the word');
  });

  test('the description takes a 5,000-character word (its longest) over HTTP; every letter drawn', async () => {
    const p = await project([line(1)], { description: 'X'.repeat(5000) });
    const res = await fetchPdf(poc.client, p.id);
    assert.equal(res.status, 200, res.text);
    const text = (await pdfPages(res.bytes)).join('\n');
    assert.equal([...text.matchAll(/X/g)].length, 5000, 'every letter of the description'); // no other text of the ticket has an X
    assert.ok(text.includes('Note 1: cut to bleed'), 'the line after it');
  });
});

describe("one user's flood of PDFs", () => {
  test('a CLIENT firing the PI many times at once fills only their own share of the waiting places (503 with Retry-After): the ADMIN\'s ticket asked meanwhile is drawn, not refused', async () => {
    const priced = { ...line(1), unitPrice: 1500, hsnSac: '4911', gstRate: 18 };
    const p = await project([priced]);
    const shared = svc.deps.pdf;
    // One thread and eight waiting places (the service's own: 100), so a flood of twelve overflows them.
    const small = new PdfRenderer({ concurrency: 1, timeoutMs: 120_000, maxWaiting: 8 });
    svc.deps.pdf = small;
    try {
      const url = new URL(`/api/projects/${p.id}/pi.pdf`, clientUser.client.baseUrl);
      let firstRefusal!: () => void;
      const refused = new Promise<void>((resolve) => (firstRefusal = resolve));
      const flood = Promise.all(
        Array.from({ length: 12 }, async () => {
          const res = await fetch(url, { headers: { cookie: clientUser.client.cookie! } });
          await res.arrayBuffer();
          if (res.status === 503) firstRefusal();
          return { status: res.status, retryAfter: res.headers.get('retry-after') };
        }),
      );
      await refused; // the client's flood is queued as far as it goes
      const mine = await fetchPdf(admin.client, p.id);
      const answers = await flood;
      assert.equal(mine.status, 200, `the ADMIN's ticket during the flood: ${mine.text}`);
      const refusals = answers.filter((a) => a.status === 503);
      assert.ok(refusals.length > 0 && refusals.every((a) => a.retryAfter === '1'), JSON.stringify(answers));
      assert.ok(answers.filter((a) => a.status === 200).length <= 1 + 2, `one drawn and a quarter of the places waiting for one user: ${JSON.stringify(answers)}`);
    } finally {
      svc.deps.pdf = shared;
      small.close();
    }
  });
});

describe('PDF_MAX_WAITING: the renderer\'s queue', () => {
  test('validated once at start: default 100 (the renderer\'s own), a whole number from 1 to 100000, anything else stops start-up naming it', () => {
    assert.equal(loadConfig({}).pdf.maxWaiting, 100);
    assert.equal(loadConfig({}).pdf.maxWaiting, new PdfRenderer().limits.maxWaiting);
    assert.equal(loadConfig({ PDF_MAX_WAITING: '1' }).pdf.maxWaiting, 1);
    assert.equal(loadConfig({ PDF_MAX_WAITING: '100000' }).pdf.maxWaiting, 100_000);
    // 0 would refuse every document: each one passes through the queue on its way to a thread.
    for (const bad of ['0', '-1', '2.5', 'many', '100001', '1e3x']) {
      assert.throws(() => loadConfig({ PDF_MAX_WAITING: bad }), (err: Error) => err instanceof ConfigError && err.message === `PDF_MAX_WAITING must be a whole number from 1 to 100000, got "${bad}"`, bad);
    }
  });

  test('the service\'s renderer takes it', async () => {
    assert.equal(svc.deps.pdf.limits.maxWaiting, 100);
    const other = await startTestService({ env: { PDF_MAX_WAITING: '7' } });
    try {
      assert.equal(other.deps.pdf.limits.maxWaiting, 7);
    } finally {
      await other.close();
    }
  });
});
